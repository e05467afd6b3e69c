// SPDX-License-Identifier: MIT
/*
 * procs_init.c - the run's init: pid 1 of the run's PID namespace, in the
 * run's mount namespace (see nt/live/procs.h).
 *
 * Why a raw clone, and why this file never allocates: the init is made with
 * clone(CLONE_NEWPID | CLONE_NEWNS) as a system call (glibc's fork() takes no
 * flags), as bubblewrap and systemd-nspawn do. That skips glibc's fork
 * handlers, so a lock another thread of nagle-trace held at that moment (the
 * capture closer's, malloc's) stays held forever in the copy. The init and the
 * children it forks therefore use system calls only: no malloc, no stdio, no
 * glibc fork(); everything was prepared in struct procs_spawn_plan before the
 * clone. The children exec at once.
 *
 * Why pid 1 of a new PID namespace: the kernel gives such a process two
 * guarantees nothing in user space can. Orphans of the namespace reparent to
 * it (find_child_reaper()), so it can reap them and know when the namespace is
 * empty; and when it dies, zap_pid_ns_processes() SIGKILLs every other
 * process in the namespace and waits for them before the init itself can be
 * reaped. With PR_SET_PDEATHSIG(SIGKILL) the init dies with nagle-trace, so
 * even a SIGKILL of nagle-trace leaves nothing behind. As pid 1 it also
 * ignores every signal it has no handler for, from inside the namespace or
 * from the terminal (sig_task_ignored() and SIGNAL_UNKILLABLE), but SIGKILL
 * from outside.
 *
 * Mounts: the namespace's mounts are made private first, so nothing
 * propagates back to the host. The run's /etc files are written to a tmpfs
 * mounted for a moment over /tmp (the init is alone in the namespace then),
 * bound over /etc/hosts (and resolv.conf, nsswitch.conf), and the tmpfs is
 * detached again: the bind mounts keep it alive, no path shows it, and it
 * vanishes with the namespace. The host's files are never written. /run is a
 * tmpfs of the run's own, with the directories the host's packages make
 * there at boot and as their services start (nt/live/rundirs.h). A fresh
 * /proc shows the namespace's own processes, so a command's getpid() and
 * /proc/<pid> agree.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/live/procs_plan.h"
#include "procs_int.h"

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* Where the scratch tmpfs goes for a moment; the first directory that takes it. */
static const char *const scratch_dirs[] = { "/tmp", "/mnt", "/run" };

/* Descriptors below this are the child's stdio; its sources are moved above it first. */
#define FD_HIGH 10

/* The first 64 bytes of struct clone_args (CLONE_ARGS_SIZE_VER0), without <linux/sched.h>. */
struct clone_args_v0 {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
};

pid_t procs_raw_clone(unsigned long flags)
{
	struct clone_args_v0 args = { .flags = flags, .exit_signal = SIGCHLD };
	long ret = syscall(SYS_clone3, &args, sizeof(args));

	/* clone3() is 5.3; some seccomp profiles answer ENOSYS so that callers fall back. */
	if (ret < 0 && errno == ENOSYS) {
#if defined(__s390__) || defined(__s390x__)
		ret = syscall(SYS_clone, 0, flags | SIGCHLD);
#else
		/* No stack: the child runs on a copy of ours, as after fork(). */
		ret = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
#endif
	}
	return (pid_t)ret;
}

/* ---- messages -------------------------------------------------------------------------- */

static void copy_text(char *dst, size_t len, const char *a, const char *b)
{
	size_t n = 0;

	for (; a && *a && n + 1 < len; a++)
		dst[n++] = *a;
	for (; b && *b && n + 1 < len; b++)
		dst[n++] = *b;
	dst[n] = '\0';
}

static void send_msg_at(int fd, enum procs_msg_kind kind, int who, int status, int64_t t_ns,
			const char *text, const char *text2)
{
	struct procs_msg m = {
		.kind = kind,
		.who = who,
		.status = status,
		.t_mono_ns = t_ns,
	};

	copy_text(m.text, sizeof(m.text), text, text2);
	/* Ignored when nagle-trace is gone: then PR_SET_PDEATHSIG is about to end us. */
	(void)send(fd, &m, sizeof(m), MSG_NOSIGNAL);
}

static void send_msg(int fd, enum procs_msg_kind kind, int who, int status, const char *text,
		     const char *text2)
{
	send_msg_at(fd, kind, who, status, nt_now_mono_ns(), text, text2);
}

/* A setup step failed: say what (the strerror() text is added on our side) and die. */
static noreturn void init_fail(const struct procs_spawn_plan *plan, int neg_errno, const char *what,
			       const char *path)
{
	send_msg(plan->ctl_fd, PROCS_MSG_FAILED, 0, neg_errno, what, path);
	_exit(1);
}

/* ---- the children ------------------------------------------------------------------------ */

/* A message on stderr from a child that could not exec: write(2) only. */
static noreturn void child_die(const char *what, int err)
{
	const char *desc = strerrordesc_np(err);

	(void)!write(2, "nagle-trace: ", 13);
	(void)!write(2, what, strlen(what));
	(void)!write(2, ": ", 2);
	(void)!write(2, desc ? desc : "error", strlen(desc ? desc : "error"));
	(void)!write(2, "\n", 1);
	_exit(127);
}

/*
 * A copy of @fd above the stdio slots, or /dev/null when @fd is -1 or closed
 * (nagle-trace run with its stdin closed, as some CI systems do).
 */
static int high_copy(int fd, int flags)
{
	int copy = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, FD_HIGH) : -1;

	if (copy < 0 && (fd < 0 || errno == EBADF)) {
		int null = open("/dev/null", flags | O_CLOEXEC);

		if (null < 0)
			child_die("open /dev/null", errno);
		copy = fcntl(null, F_DUPFD_CLOEXEC, FD_HIGH);
	}
	return copy;
}

/* In the child: network namespace, stdio, descriptors, exec. */
static noreturn void child_exec(const struct procs_side_plan *sp)
{
	sigset_t none;
	int src[3];

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setns(sp->netns_fd, CLONE_NEWNET) < 0)
		child_die("enter the lab's network namespace", errno);
	/*
	 * Move every source above the stdio slots first: a source may itself be
	 * 0, 1 or 2 (stdout passed through as stderr), and dup2() onto it
	 * would replace it before it is used.
	 */
	src[0] = high_copy(sp->stdin_fd, O_RDONLY);
	src[1] = high_copy(sp->stdout_fd, O_WRONLY);
	src[2] = high_copy(sp->stderr_fd, O_WRONLY);
	for (int i = 0; i < 3; i++)
		if (src[i] < 0 || dup2(src[i], i) < 0)
			child_die("set up standard input and output", errno);
	/* Nothing of ours leaks into the command, whether or not it was O_CLOEXEC. */
	(void)syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
	execve("/bin/sh", sp->argv, sp->envp);
	child_die("run /bin/sh", errno);
}

static pid_t spawn(const struct procs_side_plan *sp)
{
	pid_t pid = procs_raw_clone(0);

	if (pid == 0)
		child_exec(sp);
	return pid;
}

/* ---- setting up -------------------------------------------------------------------------- */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	size_t n = strlen(text);

	if (fd < 0)
		return -errno;
	while (n > 0) {
		ssize_t w = write(fd, text, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int ret = -errno;

			close(fd);
			return ret;
		}
		text += w;
		n -= (size_t)w;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* @dir/@name into @buf, with no snprintf (which may allocate in some locales). */
static void join(char *buf, size_t len, const char *dir, const char *name)
{
	copy_text(buf, len, dir, "/");
	copy_text(buf + strlen(buf), len - strlen(buf), name, NULL);
}

/* Writes @text as @dir/@name and binds it over @etc. Return: 0 or -errno. */
static int bind_file(const char *dir, const char *name, const char *text, const char *etc)
{
	char path[64];
	int ret;

	join(path, sizeof(path), dir, name);
	ret = write_file(path, text);
	if (ret)
		return ret;
	return mount(path, etc, NULL, MS_BIND, NULL) < 0 ? -errno : 0;
}

static void setup_etc(const struct procs_spawn_plan *plan, const char *dir)
{
	int ret = bind_file(dir, "hosts", plan->hosts_text, "/etc/hosts");

	if (ret)
		init_fail(plan, ret, "give the run its own /etc/hosts (bind over /etc/hosts)", "");
	/* The others are best effort: a missing or dangling resolv.conf has nothing to hide. */
	ret = bind_file(dir, "resolv.conf", nt_procs_resolv_text(), "/etc/resolv.conf");
	if (ret && ret != -ENOENT)
		send_msg(plan->ctl_fd, PROCS_MSG_NOTE, 0, ret, "/etc/resolv.conf not replaced", "");
	if (plan->nsswitch_text) {
		ret = bind_file(dir, "nsswitch.conf", plan->nsswitch_text, "/etc/nsswitch.conf");
		if (ret)
			send_msg(plan->ctl_fd, PROCS_MSG_NOTE, 0, ret,
				 "/etc/nsswitch.conf not replaced", "");
	}
}

/* mkdir -p @path's parents (root's, 0755), then @path itself. Return: 0 or -errno. */
static int make_dir(const char *path, mode_t mode)
{
	char buf[NT_RUNDIR_PATH_MAX];

	copy_text(buf, sizeof(buf), path, NULL);
	for (char *at = buf; *at; at++) {
		if (at == buf || *at != '/')
			continue;
		*at = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*at = '/';
	}
	return mkdir(buf, mode) < 0 && errno != EEXIST ? -errno : 0;
}

/*
 * The run's own /run: a tmpfs with the directories the host's packages
 * expect there (tmpfiles.d, their units' RuntimeDirectory= and mkdir), so a
 * server started by hand finds them, and its pid files and sockets are not
 * the host's (a stock nginx would otherwise overwrite, then unlink, the
 * host's /run/nginx.pid). The owners are set where the user namespace maps
 * them; under a one-uid namespace chown() fails (EINVAL) and the directory
 * stays ours, as everything else there is. Best effort: a run that cannot
 * mount it keeps the host's /run.
 */
static void setup_run(const struct procs_spawn_plan *plan)
{
	const struct nt_rundirs *d = &plan->run_dirs;

	if (mount("nagle-trace-run", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") <
	    0) {
		send_msg(plan->ctl_fd, PROCS_MSG_NOTE, 0, -errno,
			 "the run's own /run not mounted: the commands share the host's", "");
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct nt_rundir *r = &d->dir[i];

		if (make_dir(r->path, 0700) < 0)
			continue;
		(void)chown(r->path, r->uid, r->gid);
		/* After chown(): mkdir()'s mode passed the umask, which the commands inherit. */
		(void)chmod(r->path, r->mode);
	}
}

static bool setup_mounts(const struct procs_spawn_plan *plan)
{
	const char *dir = NULL;

	/* Nothing we mount may propagate to the host's mount namespace (MS_SHARED peers). */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		init_fail(plan, -errno, "make the run's mounts private", "");
	/*
	 * /run first: an /etc/resolv.conf that is a link into the host's /run
	 * (systemd-resolved's stub) then dangles, and the bind below skips it.
	 */
	setup_run(plan);
	for (size_t i = 0; i < sizeof(scratch_dirs) / sizeof(scratch_dirs[0]) && !dir; i++)
		if (mount("nagle-trace", scratch_dirs[i], "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "mode=0755,size=1m") == 0)
			dir = scratch_dirs[i];
	if (!dir)
		init_fail(plan, -errno, "mount a tmpfs for the run's /etc files on ", "/tmp");
	setup_etc(plan, dir);
	if (umount2(dir, MNT_DETACH) < 0)
		init_fail(plan, -errno, "detach the scratch tmpfs from ", dir);
	/*
	 * A user namespace may mount proc only where a proc is fully visible
	 * already (mount_too_revealing()): a container that masks parts of its
	 * /proc refuses. The run then keeps the host's /proc, which is a
	 * difference, not a failure.
	 */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		send_msg(plan->ctl_fd, PROCS_MSG_NOTE, 0, -errno,
			 "/proc of the run's PID namespace not mounted", "");
		return false;
	}
	return true;
}

static void reset_signals(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	/* nagle-trace's handlers are ours no more, and ignored signals stay ignored across exec. */
	for (int sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &dfl, NULL);
}

/*
 * PR_SET_PDEATHSIG fires when the parent dies after the call; a parent that
 * died between the clone and the call would go unnoticed (our getppid() is 0
 * in any case: the parent is outside our PID namespace). Its pidfd answers.
 */
static bool parent_gone(const struct procs_spawn_plan *plan)
{
	struct pollfd pfd = { .fd = plan->parent_pidfd, .events = POLLIN };

	if (pfd.fd < 0) {
		/* No pidfd: the socket's other end closes when nagle-trace dies. */
		pfd.fd = plan->ctl_fd;
		return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLHUP);
	}
	return poll(&pfd, 1, 0) != 0;
}

/*
 * The init was cloned from nagle-trace with all its descriptors: the
 * capture's socket, report files, our ends of the pipes. Holding them would
 * keep a closed capture alive and a pipe from ever reading EOF: keep only
 * what the plan names.
 */
static void close_other_fds(const struct procs_spawn_plan *plan)
{
	int keep[2 + 4 * PROCS_WHO_COUNT], n = 0;

	keep[n++] = plan->ctl_fd;
	keep[n++] = plan->parent_pidfd;
	for (int who = 0; who < PROCS_WHO_COUNT; who++) {
		keep[n++] = plan->side[who].netns_fd;
		keep[n++] = plan->side[who].stdin_fd;
		keep[n++] = plan->side[who].stdout_fd;
		keep[n++] = plan->side[who].stderr_fd;
	}
	/* Sorted, then every gap above stderr closed. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0, from = 3; i <= n; i++) {
		int to = i < n ? keep[i] - 1 : INT_MAX;

		if (i < n && keep[i] < from)
			continue;
		if (to >= from)
			(void)syscall(SYS_close_range, (unsigned)from, (unsigned)to, 0U);
		if (i < n)
			from = keep[i] + 1;
	}
}

/* ---- the loop ---------------------------------------------------------------------------- */

struct init_state {
	struct procs_spawn_plan *plan;
	pid_t pid[PROCS_WHO_COUNT];
	bool alive[PROCS_WHO_COUNT];
	bool terminating;
	bool killed;
	bool empty;
	bool own_proc;
	int64_t kill_at_ns;
};

/*
 * Whether the init has a child it did not start: an orphan of the namespace,
 * reparented to us (find_child_reaper()), such as a daemon whose parent
 * exited. Our own /proc lists our children (/proc/PID/task/TID/children,
 * CONFIG_PROC_CHILDREN); without it, any child at all counts (@any_child).
 */
static bool has_orphan(const struct init_state *s, bool any_child)
{
	char buf[4096];
	ssize_t n = -1;
	int fd = s->own_proc ? open("/proc/1/task/1/children", O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n < 0 || n == (ssize_t)sizeof(buf) - 1)
		return any_child;
	buf[n] = '\0';
	for (char *at = buf; *at;) {
		pid_t pid = 0;
		bool known = false;

		while (*at == ' ')
			at++;
		if (!*at || *at == '\n')
			break;
		for (; *at >= '0' && *at <= '9'; at++)
			pid = pid * 10 + (*at - '0');
		for (int who = 0; who < PROCS_WHO_COUNT; who++)
			known |= s->alive[who] && s->pid[who] == pid;
		if (!known && pid > 0)
			return true;
		if (*at && *at != ' ')
			break;
	}
	return false;
}

static bool has_orphan(const struct init_state *s, bool any_child);

static void reap(struct init_state *s)
{
	int exited[PROCS_WHO_COUNT], n = 0, status[PROCS_WHO_COUNT];
	pid_t pid;

	for (;;) {
		int st;

		pid = waitpid(-1, &st, WNOHANG);
		if (pid < 0 && errno == ECHILD)
			s->empty = true;
		if (pid <= 0)
			break;
		for (int who = 0; who < PROCS_WHO_COUNT; who++) {
			if (s->alive[who] && pid == s->pid[who]) {
				s->alive[who] = false;
				exited[n] = who;
				status[n++] = st;
			}
		}
	}
	/*
	 * Told after the loop, with whether anything is left: a daemon's
	 * parent exits once its child is forked, and that child, orphaned,
	 * is ours now (find_child_reaper()), so waitpid() answered 0 above.
	 */
	bool orphans = n > 0 && has_orphan(s, pid == 0);

	for (int i = 0; i < n; i++) {
		struct procs_msg m = { .kind = PROCS_MSG_EXITED,
				       .who = exited[i],
				       .status = status[i],
				       .port = orphans,
				       .t_mono_ns = nt_now_mono_ns() };

		(void)send(s->plan->ctl_fd, &m, sizeof(m), MSG_NOSIGNAL);
	}
}

static int alive_mask(const struct init_state *s)
{
	return (s->alive[PROCS_TARGET] ? 1 << PROCS_TARGET : 0) |
	       (s->alive[PROCS_CLIENT] ? 1 << PROCS_CLIENT : 0);
}

static void start(struct init_state *s, int who)
{
	/* Stamped before the clone: the child may run (and even exit) before we do again. */
	int64_t t_ns = nt_now_mono_ns();
	pid_t pid = spawn(&s->plan->side[who]);

	if (pid < 0)
		init_fail(s->plan, -errno,
			  who == PROCS_TARGET	? "start the target"
			  : who == PROCS_CLIENT ? "start the client"
						: "start the readiness probe (--ready)",
			  "");
	s->pid[who] = pid;
	s->alive[who] = true;
	s->empty = false;
	send_msg_at(s->plan->ctl_fd, PROCS_MSG_STARTED, who, 0, t_ns, NULL, NULL);
}

/* kill(-1) from pid 1 reaches every process of the namespace but the init itself. */
static void terminate(struct init_state *s)
{
	if (s->terminating)
		return;
	s->terminating = true;
	reap(s);
	send_msg(s->plan->ctl_fd, PROCS_MSG_TERM_SENT, 0, alive_mask(s), NULL, NULL);
	(void)kill(-1, SIGTERM);
	(void)kill(-1, SIGCONT); /* a stopped process (^Z) acts on SIGTERM only once continued */
	s->kill_at_ns = nt_now_mono_ns() + s->plan->grace_ns;
}

static void port_env(char *buf, size_t len, unsigned port)
{
	char digits[8];
	size_t n = 0;

	do
		digits[n++] = (char)('0' + port % 10);
	while ((port /= 10) > 0 && n < sizeof(digits));
	copy_text(buf, len, "NT_TARGET_PORT=", NULL);
	for (size_t i = strlen(buf); n > 0 && i + 1 < len; i++) {
		buf[i] = digits[--n];
		buf[i + 1] = '\0';
	}
}

/* A message from nagle-trace; false when it is gone (its end closed). */
static bool handle_ctl(struct init_state *s)
{
	struct procs_msg m;
	ssize_t n = recv(s->plan->ctl_fd, &m, sizeof(m), MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n != (ssize_t)sizeof(m))
		return false;
	if (m.kind == PROCS_MSG_START_CLIENT && !s->terminating && s->pid[PROCS_CLIENT] == 0) {
		port_env(s->plan->port_env, sizeof(s->plan->port_env), m.port);
		start(s, PROCS_CLIENT);
	} else if (m.kind == PROCS_MSG_START_READY && !s->terminating && !s->alive[PROCS_READY] &&
		   s->plan->side[PROCS_READY].argv[0]) {
		port_env(s->plan->port_env, sizeof(s->plan->port_env), m.port);
		start(s, PROCS_READY);
	} else if (m.kind == PROCS_MSG_TERMINATE) {
		terminate(s);
	}
	return true;
}

static int poll_timeout_ms(const struct init_state *s)
{
	int64_t left;

	if (!s->terminating || s->killed)
		return -1;
	left = s->kill_at_ns - nt_now_mono_ns();
	return left <= 0 ? 0 : (int)((left + NT_NS_PER_MS - 1) / NT_NS_PER_MS);
}

static noreturn void init_loop(struct init_state *s, int sfd)
{
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = s->plan->ctl_fd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		struct signalfd_siginfo si;

		if (poll(pfd, 2, poll_timeout_ms(s)) < 0 && errno != EINTR)
			init_fail(s->plan, -errno, "wait for the run's processes", "");
		while (read(sfd, &si, sizeof(si)) > 0)
			;
		reap(s);
		if (pfd[0].revents && !handle_ctl(s)) {
			/* nagle-trace closed its end without a word: it failed. End everything. */
			(void)kill(-1, SIGKILL);
			_exit(1);
		}
		if (s->terminating && !s->killed && nt_now_mono_ns() >= s->kill_at_ns) {
			reap(s);
			s->killed = true;
			send_msg(s->plan->ctl_fd, PROCS_MSG_KILL_SENT, 0, alive_mask(s), NULL,
				 NULL);
			(void)kill(-1, SIGKILL);
		}
		/* No child left means no process left: every orphan of the namespace is ours. */
		if (s->terminating && s->empty)
			_exit(0);
	}
}

noreturn void procs_init_main(struct procs_spawn_plan *plan)
{
	struct init_state s = { .plan = plan };
	sigset_t chld;
	int sfd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || parent_gone(plan))
		_exit(1);
	reset_signals();
	close_other_fds(plan);
	/* SIGCHLD through a descriptor: one poll() waits for children and for us. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		init_fail(plan, -errno, "create the init's signalfd", "");
	s.own_proc = setup_mounts(plan);
	start(&s, PROCS_TARGET);
	init_loop(&s, sfd);
}
