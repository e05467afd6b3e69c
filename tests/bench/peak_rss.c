// SPDX-License-Identifier: MIT
/*
 * peak_rss.c - run a command, then print its peak resident set size in KiB
 * to standard error as "peak_rss_kib N", and exit with its status.
 *
 *   peak_rss [--self] CMD [ARG...]
 *
 * Why not measure from the benchmark's Python: a child forked from Python
 * carries Python's resident pages until exec, and the kernel keeps that
 * high-water mark across exec (exec_mmap() -> setmax_mm_hiwater_rss()), so
 * ru_maxrss would report Python's size. Forked from this small process, the
 * figure is the command's own.
 *
 * What "peak_rss_kib" covers: wait4()'s ru_maxrss is the larger of the
 * command's own high-water mark and its reaped descendants' (getrusage()'s
 * RUSAGE_BOTH: max(signal->maxrss, signal->cmaxrss), and wait_task_zombie()
 * folds each reaped child's figure into its parent's cmaxrss). It is the
 * largest single process of the tree, not a sum. For `nagle-trace run` that is
 * usually the user's client or server, not nagle-trace.
 *
 * --self also prints "self_hwm_kib N": the command's own process alone. The
 * command is traced (PTRACE_TRACEME, PTRACE_O_TRACEEXIT) and stopped in
 * do_exit() before exit_mm() drops its memory, where /proc/PID/status still
 * has VmHWM. Only the thread that was exec'd is traced (no
 * PTRACE_O_TRACECLONE or TRACEFORK), so its children and threads run
 * untraced; the signals it receives are passed on as they come.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long read_hwm_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* Follow the traced command to its end; its VmHWM when it stops in do_exit(). */
static int trace_to_exit(pid_t pid, int *status, struct rusage *ru, long *self_kib)
{
	int opts_set = 0;

	for (;;) {
		int sig = 0;

		if (wait4(pid, status, 0, ru) < 0) {
			perror("peak_rss: wait4");
			return -1;
		}
		if (!WIFSTOPPED(*status))
			return 0;
		if (!opts_set) {
			/* The first stop is the SIGTRAP of the exec after PTRACE_TRACEME. */
			if (ptrace(PTRACE_SETOPTIONS, pid, 0,
				   PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) <
			    0) {
				perror("peak_rss: PTRACE_SETOPTIONS");
				return -1;
			}
			opts_set = 1;
		} else if (*status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			*self_kib = read_hwm_kib(pid);
		} else if (*status >> 16 == 0) {
			sig = WSTOPSIG(*status);
		}
		ptrace(PTRACE_CONT, pid, 0, sig);
	}
}

int main(int argc, char **argv)
{
	int self = argc > 1 && strcmp(argv[1], "--self") == 0;
	char **cmd = argv + 1 + self;
	long self_kib = -1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (!cmd[0]) {
		fprintf(stderr, "usage: peak_rss [--self] CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("peak_rss: fork");
		return 2;
	}
	if (pid == 0) {
		if (self && ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
			perror("peak_rss: PTRACE_TRACEME");
			_exit(127);
		}
		execvp(cmd[0], cmd);
		perror("peak_rss: exec");
		_exit(127);
	}
	if (self ? trace_to_exit(pid, &status, &ru, &self_kib) < 0
		 : wait4(pid, &status, 0, &ru) < 0) {
		if (!self)
			perror("peak_rss: wait4");
		return 2;
	}
	if (self)
		fprintf(stderr, "self_hwm_kib %ld\n", self_kib);
	fprintf(stderr, "peak_rss_kib %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
