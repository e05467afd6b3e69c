// SPDX-License-Identifier: MIT
/*
 * qemu.c - one guest boot under qemu-system-x86_64 (see nt/vm/guest.h).
 *
 * qemu is a child that dies with us: PR_SET_PDEATHSIG(SIGKILL) before exec,
 * and a check that the parent did not die before the prctl took hold. It
 * reads the kernel and the initramfs from memfds it inherits as fds 3 and 4
 * (-kernel /proc/self/fd/3), writes the result port into a third (fd 5) and
 * the console into a pipe this process reads, so a panic is seen as it
 * happens. No file of the host is named but qemu's own.
 *
 * KVM only when the CPU advertises vmx or svm: /dev/kvm can exist and even
 * create a VM where the vCPU never runs (a nested host without the flag),
 * and qemu then spins instead of failing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/unknown.h"
#include "nt/vm/guest.h"

#define FD_KERNEL  3
#define FD_INITRD  4
#define FD_DATA	   5
#define PANIC_TEXT "Kernel panic - not syncing"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return nt_timespec_ns(&ts);
}

int nt_vm_qemu_find(char *path, size_t size)
{
	const char *env = getenv("PATH");
	/* All of PATH, however long: a copy cut short would miss the directories after the cut. */
	char *dirs = strdup(env ? env : "/usr/bin:/bin"), *save = NULL;
	int ret = -ENOENT;

	if (!dirs)
		return -ENOMEM;
	for (char *d = strtok_r(dirs, ":", &save); d && ret < 0; d = strtok_r(NULL, ":", &save)) {
		int n = snprintf(path, size, "%s/%s", *d ? d : ".", NT_VM_QEMU);

		/* A candidate cut to fit would be another file: skipped. */
		if (n > 0 && (size_t)n < size && access(path, X_OK) == 0)
			ret = 0;
	}
	free(dirs);
	return ret;
}

static bool cpu_virtualises(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strncmp(line, "flags", 5) == 0 &&
			(strstr(line, " vmx") || strstr(line, " svm"));
	if (f)
		fclose(f);
	return found;
}

static bool kvm_usable(void)
{
	int fd;

	if (!cpu_virtualises())
		return false;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* In the child, between fork() and exec: async-signal-safe calls only. */
static void child(const char *qemu, char *const argv[], int fds[3], int console, pid_t parent)
{
	sigset_t none;
	int null = open("/dev/null", O_RDONLY);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(126);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/*
	 * Each source out of the way first (one may already be 3, 4 or 5), then
	 * dup2() onto the fixed numbers, which clears close-on-exec on those only.
	 */
	for (int i = 0; i < 3; i++)
		if ((fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(126);
	if (null < 0 || dup2(null, 0) < 0 || dup2(console, 1) < 0 || dup2(console, 2) < 0 ||
	    dup2(fds[0], FD_KERNEL) < 0 || dup2(fds[1], FD_INITRD) < 0 || dup2(fds[2], FD_DATA) < 0)
		_exit(126);
	execv(qemu, argv);
	_exit(127);
}

/* The panic's line, once it is whole (or at the console's end, as far as it got). */
static void take_panic(struct nt_vm_result *res, bool at_end)
{
	const char *p = strstr(res->console, PANIC_TEXT);
	size_t n;

	if (!p || res->panic[0])
		return;
	n = strcspn(p, "\r\n");
	if (p[n] || at_end)
		snprintf(res->panic, sizeof(res->panic), "%.*s", (int)n, p);
}

static void keep_console(struct nt_vm_result *res, const char *buf, size_t n)
{
	size_t have = strlen(res->console), room = sizeof(res->console) - 1;

	if (n > room) {
		buf += n - room;
		n = room;
	}
	if (have + n > room) {
		memmove(res->console, res->console + (have + n - room), room - n);
		have = room - n;
	}
	memcpy(res->console + have, buf, n);
	res->console[have + n] = '\0';
	take_panic(res, false);
}

static bool data_ended(int data_fd)
{
	char tail[64];
	struct stat st;
	ssize_t n;

	if (fstat(data_fd, &st) < 0 || st.st_size == 0)
		return false;
	n = pread(data_fd, tail, sizeof(tail) - 1, st.st_size > 63 ? st.st_size - 63 : 0);
	if (n <= 0)
		return false;
	tail[n] = '\0';
	return strstr(tail, "\nNT-END ") || strncmp(tail, "NT-END ", 7) == 0;
}

static bool first_frame(int data_fd)
{
	struct stat st;

	return fstat(data_fd, &st) == 0 && st.st_size > 0;
}

/* Read the console until qemu closes it, the time is up, a signal comes or the kernel panics. */
static void watch(const struct nt_vm_boot *cfg, pid_t pid, int console, int data_fd,
		  struct nt_vm_result *res, int64_t start_ns)
{
	struct pollfd p = { .fd = console, .events = POLLIN };
	char buf[4096];

	res->end = NT_VM_END_EXITED;
	for (;;) {
		int64_t left_ms = (start_ns + cfg->timeout_ns - now_ns()) / NT_NS_PER_MS;
		ssize_t n;

		if (cfg->stop && *cfg->stop) {
			res->end = NT_VM_END_STOPPED;
			break;
		}
		if (left_ms <= 0) {
			res->end = NT_VM_END_TIMEOUT;
			break;
		}
		if (!nt_known(res->boot_ns) && first_frame(data_fd))
			res->boot_ns = now_ns() - start_ns;
		if (poll(&p, 1, left_ms > 200 ? 200 : (int)left_ms) <= 0)
			continue;
		n = read(console, buf, sizeof(buf));
		if (n <= 0)
			break;
		keep_console(res, buf, (size_t)n);
		if (res->panic[0]) {
			res->end = NT_VM_END_PANIC;
			break;
		}
	}
	if (res->end == NT_VM_END_EXITED) {
		take_panic(res, true);
		if (res->panic[0])
			res->end = NT_VM_END_PANIC;
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &res->qemu_status, 0) < 0 && errno == EINTR)
		;
	if (res->end == NT_VM_END_EXITED && data_ended(data_fd))
		res->end = NT_VM_END_DONE;
}

static int collect(int data_fd, struct nt_vm_result *res, struct nt_err *err)
{
	struct stat st;
	ssize_t n;

	if (fstat(data_fd, &st) < 0 || !(res->data = malloc((size_t)st.st_size + 1)))
		return nt_err_set(err, -ENOMEM, "the guest's results: out of memory");
	n = pread(data_fd, res->data, (size_t)st.st_size, 0);
	if (n < 0)
		return nt_err_set(err, -errno, "the guest's results: read");
	res->data_len = (size_t)n;
	res->data[n] = '\0';
	return 0;
}

static void make_argv(bool kvm, const char *qemu, char *mem, char *append, const char **argv)
{
	unsigned n = 0;

	argv[n++] = qemu;
	argv[n++] = "-nodefaults";
	argv[n++] = "-no-user-config";
	argv[n++] = "-accel";
	argv[n++] = kvm ? "kvm" : "tcg";
	if (kvm) {
		argv[n++] = "-cpu";
		argv[n++] = "host";
	} else {
		/*
		 * The guest's clock counts its own instructions (1 ns each), not the
		 * host's time: a vCPU the busy host does not schedule sees no time
		 * pass, so timers and the exchange keep the order they have on real
		 * hardware. sleep=off: an idle guest's clock jumps to its next timer.
		 */
		argv[n++] = "-icount";
		argv[n++] = "shift=0,sleep=off";
	}
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-smp";
	argv[n++] = "1";
	argv[n++] = "-nic";
	argv[n++] = "none";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-monitor";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-serial";
	argv[n++] = "stdio";
	argv[n++] = "-serial";
	argv[n++] = "file:/proc/self/fd/5";
	argv[n++] = "-kernel";
	argv[n++] = "/proc/self/fd/3";
	argv[n++] = "-initrd";
	argv[n++] = "/proc/self/fd/4";
	argv[n++] = "-append";
	argv[n++] = append;
	argv[n] = NULL;
}

int nt_vm_boot_run(const struct nt_vm_boot *cfg, const char *qemu, int kernel_fd, int initrd_fd,
		   struct nt_vm_result *res, struct nt_err *err)
{
	bool kvm = cfg->accel == NT_VM_ACCEL_KVM ||
		   (cfg->accel == NT_VM_ACCEL_AUTO && kvm_usable());
	char mem[24], append[1024];
	const char *argv[40];
	int pipefd[2], fds[3], data_fd, ret = 0;
	int64_t start_ns;
	pid_t pid, self = getpid();

	memset(res, 0, sizeof(*res));
	res->boot_ns = NT_UNKNOWN;
	res->accel = kvm ? "kvm" : "tcg";
	snprintf(mem, sizeof(mem), "%u", cfg->memory_mb);
	/* panic=-1: reboot at once on a panic, and -no-reboot makes that qemu's exit. */
	snprintf(append, sizeof(append), "console=ttyS0 panic=-1 loglevel=4 %s",
		 cfg->append ? cfg->append : "");
	make_argv(kvm, qemu, mem, append, argv);
	data_fd = memfd_create("nt-results", MFD_CLOEXEC);
	if (data_fd < 0)
		return nt_err_set(err, -errno, "memfd for the guest's results");
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		ret = nt_err_set(err, -errno, "pipe for the guest's console");
		goto close_data;
	}
	fds[0] = kernel_fd;
	fds[1] = initrd_fd;
	fds[2] = data_fd;
	start_ns = now_ns();
	pid = fork();
	if (pid < 0) {
		ret = nt_err_set(err, -errno, "start %s", qemu);
		goto close_pipe;
	}
	if (pid == 0)
		child(qemu, (char *const *)argv, fds, pipefd[1], self);
	close(pipefd[1]);
	pipefd[1] = -1;
	watch(cfg, pid, pipefd[0], data_fd, res, start_ns);
	res->wall_ns = now_ns() - start_ns;
	ret = collect(data_fd, res, err);
close_pipe:
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
close_data:
	close(data_fd);
	return ret;
}

void nt_vm_result_fini(struct nt_vm_result *res)
{
	free(res->data);
	res->data = NULL;
	res->data_len = 0;
}
