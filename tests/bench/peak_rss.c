// SPDX-License-Identifier: MIT
/*
 * peak_rss.c - run a command, then print its peak resident set size in KiB
 * to standard error as "peak_rss_kib N", and exit with its status.
 *
 *   peak_rss CMD [ARG...]
 *
 * Why not measure from the benchmark's Python: a child forked from Python
 * carries Python's resident pages until exec, and the kernel keeps that
 * high-water mark across exec (exec_mmap() -> setmax_mm_hiwater_rss()), so
 * ru_maxrss would report Python's size. Forked from this small process, the
 * figure is the command's own.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: peak_rss CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("peak_rss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("peak_rss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("peak_rss: wait4");
		return 2;
	}
	fprintf(stderr, "peak_rss_kib %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
