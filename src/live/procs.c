// SPDX-License-Identifier: MIT
/*
 * procs.c - nagle-trace's side of a run of the user's commands (see
 * nt/live/procs.h); the init's side is procs_init.c.
 *
 * One thread, one poll loop, the caller's: the init reports over a
 * SOCK_SEQPACKET pair (one datagram per message, so no framing, and EOF when
 * the init is gone), the commands' output arrives on two pipes, and the
 * target's readiness is read from its namespace's /proc/net/tcp{,6}.
 *
 * Readiness: the two files are opened once, from this thread while it is in
 * the target namespace, and re-read from offset 0 on each check. A
 * /proc/net file belongs to the namespace of the task it was looked up
 * through (/proc/thread-self, not /proc/self: the latter follows the main
 * thread), and seq_file regenerates its text on every read from offset 0. No
 * event marks a new listening socket (sock_diag reports only destruction,
 * SKNLGRP_INET_TCP_DESTROY), so the files are polled every
 * LISTEN_POLL_NS; output from the target (servers tend to say "ready" once
 * they listen) triggers a check at once. The target namespace has its own
 * small established hash (lab.c), so a read costs a few microseconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/netns.h"
#include "nt/live/procnet.h"
#include "nt/live/procs.h"
#include "nt/live/procs_plan.h"
#include "procs_int.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* How often the target's sockets are read while waiting for it to listen. */
#define LISTEN_POLL_NS (2 * NT_NS_PER_MS)
/* After the grace time, how long the init may take to report and exit before we kill it. */
#define INIT_EXIT_SLACK_NS (2 * NT_NS_PER_SEC)
/* Bytes read from one pipe per nt_procs_advance(), so a chatty command cannot starve the loop. */
#define PIPE_READ_BUDGET      ((size_t)256 * 1024)
#define PROCNET_INITIAL_BYTES ((size_t)16 * 1024)
#define PROCNET_MAX_BYTES     ((size_t)16 * 1024 * 1024)
#define TCP_LISTEN_STATE      10

static const char *const end_names[] = {
	[NT_PROCS_END_NONE] = "still running",
	[NT_PROCS_END_CLIENT_EXITED] = "client exited",
	[NT_PROCS_END_TARGET_EXITED] = "target exited before it listened",
	[NT_PROCS_END_LISTEN_TIMEOUT] = "target did not listen in time",
	[NT_PROCS_END_RUN_TIMEOUT] = "run timed out",
	[NT_PROCS_END_STOPPED] = "stopped",
	[NT_PROCS_END_FAILED] = "failed",
};

const char *nt_procs_end_name(enum nt_procs_end end)
{
	return (unsigned)end < sizeof(end_names) / sizeof(end_names[0]) ? end_names[end] : "?";
}

void nt_procs_describe_status(int wait_status, char *buf, size_t len)
{
	if (WIFEXITED(wait_status)) {
		snprintf(buf, len, "exit status %d", WEXITSTATUS(wait_status));
	} else if (WIFSIGNALED(wait_status)) {
		int sig = WTERMSIG(wait_status);
		const char *abbrev = sigabbrev_np(sig);

		snprintf(buf, len, "killed by signal %d (SIG%s)%s", sig, abbrev ? abbrev : "?",
			 WCOREDUMP(wait_status) ? ", core dumped" : "");
	} else {
		snprintf(buf, len, "wait status 0x%x", (unsigned)wait_status);
	}
}

void nt_procs_config_init(struct nt_procs_config *cfg, const struct nt_lab *lab,
			  const char *target_cmd, const char *client_cmd)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->lab = lab;
	cfg->target_cmd = target_cmd;
	cfg->client_cmd = client_cmd;
	cfg->listen_timeout_ns = NT_PROCS_LISTEN_TIMEOUT_NS;
	cfg->run_timeout_ns = NT_PROCS_RUN_TIMEOUT_NS;
	cfg->term_grace_ns = NT_PROCS_TERM_GRACE_NS;
	cfg->target_log_fd = STDERR_FILENO;
	cfg->target_log_prefix = NT_PROCS_TARGET_PREFIX;
	cfg->client_stdin_fd = STDIN_FILENO;
	cfg->client_stdout_fd = STDOUT_FILENO;
	cfg->client_stderr_fd = STDERR_FILENO;
}

/* ---- the plan ---------------------------------------------------------------------------- */

/* A host file's text, or *out = NULL when it does not exist. */
static int read_host_file(const char *path, char **out, struct nt_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	char *buf;

	*out = NULL;
	if (fd < 0)
		return errno == ENOENT ? 0 : nt_err_set(err, -errno, "read %s", path);
	buf = malloc(NT_PROCS_ETC_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return nt_err_set(err, -ENOMEM, "read %s", path);
	}
	while (len < NT_PROCS_ETC_MAX_BYTES) {
		ssize_t n = read(fd, buf + len, NT_PROCS_ETC_MAX_BYTES - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int ret = nt_err_set(err, -errno, "read %s", path);

			free(buf);
			close(fd);
			return ret;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int plan_etc(struct procs_spawn_plan *plan, const struct nt_lab *lab, struct nt_err *err)
{
	char *host = NULL;
	int ret = read_host_file("/etc/hosts", &host, err);

	if (ret)
		return ret;
	if (!host)
		return nt_err_set(err, -ENOENT,
				  "the host has no /etc/hosts for the run's own to cover");
	plan->hosts_text = nt_procs_hosts_text(lab->client_addr_str, lab->target_addr_str, host);
	free(host);
	if (!plan->hosts_text)
		return nt_err_set(err, -ENOMEM, "prepare the run's /etc/hosts");
	ret = read_host_file("/etc/nsswitch.conf", &host, err);
	if (ret || !host)
		return ret;
	plan->nsswitch_text = nt_procs_nsswitch_text(host);
	free(host);
	return plan->nsswitch_text ? 0 : nt_err_set(err, -ENOMEM, "prepare /etc/nsswitch.conf");
}

/* "LD_PRELOAD=@lib ..." into @slot, then onto @set; nothing when @lib is NULL. */
static int plan_preload(char **slot, const char *lib, char **set, size_t *n)
{
	if (!lib)
		return 0;
	*slot = nt_procs_preload_value(lib, getenv("LD_PRELOAD"));
	if (!*slot)
		return -ENOMEM;
	set[(*n)++] = *slot;
	return 0;
}

static int plan_env(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
		    struct nt_err *err)
{
	char *set[4];
	size_t n = 2;

	snprintf(plan->addr_env[0], sizeof(plan->addr_env[0]), "NT_CLIENT_ADDR=%s",
		 cfg->lab->client_addr_str);
	snprintf(plan->addr_env[1], sizeof(plan->addr_env[1]), "NT_TARGET_ADDR=%s",
		 cfg->lab->target_addr_str);
	/* Filled by the init once the port is known (procs_init.c: port_env()). */
	snprintf(plan->port_env, sizeof(plan->port_env), "NT_TARGET_PORT=");
	set[0] = plan->addr_env[0];
	set[1] = plan->addr_env[1];
	if (plan_preload(&plan->preload_env[PROCS_TARGET], cfg->target_preload, set, &n))
		return nt_err_set(err, -ENOMEM, "prepare the target's environment");
	plan->side[PROCS_TARGET].envp = nt_procs_env_build(environ, set, n);
	n = 2;
	set[n++] = plan->port_env;
	if (plan_preload(&plan->preload_env[PROCS_CLIENT], cfg->client_preload, set, &n))
		return nt_err_set(err, -ENOMEM, "prepare the client's environment");
	plan->side[PROCS_CLIENT].envp = nt_procs_env_build(environ, set, n);
	if (!plan->side[PROCS_TARGET].envp || !plan->side[PROCS_CLIENT].envp)
		return nt_err_set(err, -ENOMEM, "prepare the commands' environments");
	return 0;
}

/*
 * dash (Debian's /bin/sh, 0.5.12) forks even for `sh -c 'one command'`, so
 * the teardown's SIGTERM would kill the shell and report the shell's death
 * instead of the command's own exit (a server's clean shutdown, say). A
 * shell that traps TERM survives it; the programs it starts get the default
 * action back (execve() resets caught signals, unlike ignored ones), so they
 * are terminated as before, and the shell exits with their status. The trap is
 * a line of its own before the user's text, which the user's own traps override.
 */
static int plan_scripts(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
			struct nt_err *err)
{
	if (asprintf(&plan->script[PROCS_TARGET], "trap : TERM\n%s", cfg->target_cmd) < 0 ||
	    asprintf(&plan->script[PROCS_CLIENT], "trap : TERM\n%s", cfg->client_cmd) < 0) {
		plan->script[PROCS_TARGET] = plan->script[PROCS_CLIENT] = NULL;
		return nt_err_set(err, -ENOMEM, "prepare the commands");
	}
	return 0;
}

static void plan_free(struct procs_spawn_plan *plan)
{
	if (!plan)
		return;
	free(plan->script[0]);
	free(plan->script[1]);
	free(plan->side[0].envp);
	free(plan->side[1].envp);
	free(plan->preload_env[0]);
	free(plan->preload_env[1]);
	free(plan->hosts_text);
	free(plan->nsswitch_text);
	free(plan);
}

/* ---- the target's listening sockets ------------------------------------------------------ */

/* The whole text of a /proc/net file, from offset 0, in p->procnet_buf. */
static int read_procnet(struct nt_procs *p, int fd)
{
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (len + 1 >= p->procnet_bytes) {
			size_t grown = p->procnet_bytes ? p->procnet_bytes * 2
							: PROCNET_INITIAL_BYTES;
			char *buf;

			if (grown > PROCNET_MAX_BYTES)
				break;
			buf = realloc(p->procnet_buf, grown);
			if (!buf)
				return -ENOMEM;
			p->procnet_buf = buf;
			p->procnet_bytes = grown;
		}
		n = read(fd, p->procnet_buf + len, p->procnet_bytes - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	p->procnet_buf[len] = '\0';
	return 0;
}

/* Remember the listeners that exist before the target starts: they are not its. */
static int note_known_listeners(struct nt_procs *p, int fd)
{
	int ret = read_procnet(p, fd);

	if (ret)
		return ret;
	for (const char *line = p->procnet_buf; line && *line;) {
		struct nt_procnet_tcp t;

		if (nt_procnet_parse_tcp_line(line, &t) == 0 && t.state == TCP_LISTEN_STATE) {
			unsigned long *known =
				realloc(p->known_inodes, (p->n_known + 1) * sizeof(*known));

			if (!known)
				return -ENOMEM;
			known[p->n_known++] = t.inode;
			p->known_inodes = known;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

static int open_listen_watch(struct nt_procs *p, struct nt_err *err)
{
	static const char *const files[2] = { "/proc/thread-self/net/tcp",
					      "/proc/thread-self/net/tcp6" };
	int home, ret, saved = 0;

	ret = nt_netns_current(&home, err);
	if (ret)
		return ret;
	ret = nt_netns_enter(p->cfg.lab->target_ns, err);
	if (ret)
		goto close_home;
	for (int i = 0; i < 2; i++) {
		p->tcp_fd[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		/* No tcp6 without IPv6 in the kernel: then only IPv4 listeners count. */
		if (p->tcp_fd[i] < 0 && !(i == 1 && errno == ENOENT) && !saved)
			saved = -errno;
	}
	ret = nt_netns_enter(home, err);
	if (!ret && saved)
		ret = nt_err_set(err, saved, "open %s of the target namespace", files[0]);
	for (int i = 0; i < 2 && !ret; i++)
		if (p->tcp_fd[i] >= 0 && (ret = note_known_listeners(p, p->tcp_fd[i])) < 0)
			nt_err_set(err, ret, "read %s of the target namespace", files[i]);
close_home:
	close(home);
	return ret;
}

/* Whether the target listens now; fills the result's listener. */
static int check_listening(struct nt_procs *p, struct nt_err *err)
{
	struct nt_procs_listen_query q = {
		.port = p->cfg.wait_port,
		.family = p->cfg.lab->family,
		.target_addr = p->cfg.lab->target_addr,
		.known = p->known_inodes,
		.n_known = p->n_known,
	};

	for (int i = 0; i < 2; i++) {
		int ret;

		if (p->tcp_fd[i] < 0)
			continue;
		ret = read_procnet(p, p->tcp_fd[i]);
		if (ret)
			return nt_err_set(err, ret, "read the target namespace's /proc/net/tcp%s",
					  i ? "6" : "");
		if (nt_procs_find_listener(p->procnet_buf, &q, &p->res.listener,
					   &p->res.unreachable)) {
			p->res.listener.t_mono_ns = nt_now_mono_ns();
			return 1;
		}
	}
	if (p->res.unreachable.seen && !p->res.unreachable.t_mono_ns)
		p->res.unreachable.t_mono_ns = nt_now_mono_ns();
	return 0;
}

/* ---- start ------------------------------------------------------------------------------- */

static int make_pipe(int fds[2], struct nt_err *err)
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return nt_err_set(err, -errno, "create a pipe for the commands' output");
	/* Our end only: the commands' ends stay blocking, as a terminal would be. */
	if (fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0)
		return nt_err_set(err, -errno, "make the output pipe non-blocking");
	return 0;
}

static void plan_sides(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
		       int target_w, int client_err_w)
{
	struct procs_side_plan *t = &plan->side[PROCS_TARGET], *c = &plan->side[PROCS_CLIENT];

	t->argv[0] = c->argv[0] = "sh";
	t->argv[1] = c->argv[1] = "-c";
	t->argv[2] = plan->script[PROCS_TARGET];
	c->argv[2] = plan->script[PROCS_CLIENT];
	t->netns_fd = cfg->lab->target_ns;
	t->stdin_fd = -1;
	t->stdout_fd = t->stderr_fd = target_w;
	c->netns_fd = cfg->lab->client_ns;
	c->stdin_fd = cfg->client_stdin_fd;
	c->stdout_fd = cfg->client_stdout_fd;
	c->stderr_fd = client_err_w;
}

/* The init: clone, and in the child become it. Closes the init's ends on our side. */
static int clone_init(struct nt_procs *p, int sock[2], int target_pipe[2], int err_pipe[2],
		      struct nt_err *err)
{
	struct procs_spawn_plan *plan = p->plan;
	pid_t pid;

	plan->ctl_fd = sock[1];
	plan->parent_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	plan_sides(plan, &p->cfg, target_pipe[1], err_pipe[1]);
	pid = procs_raw_clone(CLONE_NEWPID | CLONE_NEWNS);
	if (pid == 0)
		procs_init_main(plan);
	if (pid < 0)
		nt_err_set(err, -errno, "create the run's PID and mount namespaces");
	if (plan->parent_pidfd >= 0)
		close(plan->parent_pidfd);
	close(sock[1]);
	close(target_pipe[1]);
	close(err_pipe[1]);
	p->ctl_fd = sock[0];
	p->target_log_fd = target_pipe[0];
	p->client_err_fd = err_pipe[0];
	if (pid < 0)
		return -errno;
	p->init_pid = pid;
	return 0;
}

static int start_init(struct nt_procs *p, struct nt_err *err)
{
	int sock[2], target_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
	int ret;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0)
		return nt_err_set(err, -errno, "create the socket to the run's init");
	ret = make_pipe(target_pipe, err);
	if (!ret)
		ret = make_pipe(err_pipe, err);
	if (ret) {
		int fds[6] = { sock[0],	       sock[1],	    target_pipe[0],
			       target_pipe[1], err_pipe[0], err_pipe[1] };

		for (int i = 0; i < 6; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return ret;
	}
	if (fcntl(sock[0], F_SETFL, O_NONBLOCK) < 0)
		nt_err_set(err, -errno, "make the init's socket non-blocking");
	return clone_init(p, sock, target_pipe, err_pipe, err);
}

int nt_procs_start(struct nt_procs *p, const struct nt_procs_config *cfg, struct nt_err *err)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->init_pid = -1;
	p->ctl_fd = p->target_log_fd = p->client_err_fd = -1;
	p->tcp_fd[0] = p->tcp_fd[1] = -1;
	p->res.listen_wait_ns = p->res.client_run_ns = -1;
	p->res.start_mono_ns = nt_now_mono_ns();
	p->run_deadline_mono_ns = p->res.start_mono_ns + cfg->run_timeout_ns;
	p->phase = NT_PROCS_STARTING;
	nt_procs_linebuf_init(&p->target_lines, cfg->target_log_fd, cfg->target_log_prefix);

	if (!cfg->target_cmd || !cfg->client_cmd || !cfg->lab)
		return nt_err_set(err, -EINVAL, "a run needs a target and a client command");
	p->plan = calloc(1, sizeof(*p->plan));
	if (!p->plan)
		return nt_err_set(err, -ENOMEM, "plan the run");
	p->plan->grace_ns = cfg->term_grace_ns;
	ret = plan_etc(p->plan, cfg->lab, err);
	if (!ret)
		ret = plan_scripts(p->plan, cfg, err);
	if (!ret)
		ret = plan_env(p->plan, cfg, err);
	if (!ret)
		ret = open_listen_watch(p, err);
	if (!ret)
		ret = start_init(p, err);
	if (ret)
		p->res.end = NT_PROCS_END_FAILED;
	return ret;
}

/* ---- the loop ---------------------------------------------------------------------------- */

int nt_procs_pollfds(const struct nt_procs *p, struct pollfd *pfd)
{
	const int fds[3] = { p->ctl_fd, p->target_log_fd, p->client_err_fd };
	int n = 0;

	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			pfd[n++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	return n;
}

static int64_t earliest(int64_t a, int64_t b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}

int64_t nt_procs_timeout_ns(const struct nt_procs *p)
{
	int64_t now = nt_now_mono_ns(), due = -1;

	switch (p->phase) {
	case NT_PROCS_WAIT_LISTEN:
		due = earliest(p->next_check_mono_ns, p->listen_deadline_mono_ns);
		/* fall through */
	case NT_PROCS_STARTING:
	case NT_PROCS_CLIENT_RUNNING:
		due = earliest(due, p->run_deadline_mono_ns);
		break;
	case NT_PROCS_STOPPING:
		due = p->stop_mono_ns + p->cfg.term_grace_ns + INIT_EXIT_SLACK_NS;
		break;
	case NT_PROCS_DONE:
		return -1;
	}
	return due < now ? 0 : due - now;
}

static void send_ctl(struct nt_procs *p, enum procs_msg_kind kind, unsigned port)
{
	struct procs_msg m = { .kind = kind, .port = port };

	/* A gone init shows as EOF on the next read; nothing to do about it here. */
	if (p->ctl_fd >= 0)
		(void)send(p->ctl_fd, &m, sizeof(m), MSG_NOSIGNAL);
}

static void begin_stop(struct nt_procs *p, enum nt_procs_end end)
{
	if (p->phase >= NT_PROCS_STOPPING)
		return;
	if (p->res.end == NT_PROCS_END_NONE)
		p->res.end = end;
	send_ctl(p, PROCS_MSG_TERMINATE, 0);
	p->phase = NT_PROCS_STOPPING;
	p->stop_mono_ns = nt_now_mono_ns();
}

void nt_procs_stop(struct nt_procs *p)
{
	begin_stop(p, NT_PROCS_END_STOPPED);
}

static void on_exited(struct nt_procs *p, const struct procs_msg *m)
{
	struct nt_procs_exit *x = m->who == PROCS_CLIENT ? &p->res.client : &p->res.target;

	x->exited = true;
	x->wait_status = m->status;
	x->exit_mono_ns = m->t_mono_ns;
}

static int on_message(struct nt_procs *p, const struct procs_msg *m, struct nt_err *err)
{
	struct nt_procs_exit *x = m->who == PROCS_CLIENT ? &p->res.client : &p->res.target;

	switch (m->kind) {
	case PROCS_MSG_STARTED:
		x->started = true;
		x->start_mono_ns = m->t_mono_ns;
		if (m->who == PROCS_TARGET && p->phase == NT_PROCS_STARTING) {
			p->phase = NT_PROCS_WAIT_LISTEN;
			p->listen_deadline_mono_ns = m->t_mono_ns + p->cfg.listen_timeout_ns;
			p->next_check_mono_ns = m->t_mono_ns;
		}
		return 0;
	case PROCS_MSG_EXITED:
		on_exited(p, m);
		return 0;
	case PROCS_MSG_TERM_SENT:
	case PROCS_MSG_KILL_SENT:
		for (int who = 0; who < 2; who++) {
			struct nt_procs_exit *e = who == PROCS_CLIENT ? &p->res.client
								      : &p->res.target;

			if (m->status & (1 << who)) {
				e->terminated = true;
				e->killed |= m->kind == PROCS_MSG_KILL_SENT;
			}
		}
		return 0;
	case PROCS_MSG_NOTE:
		if (!p->res.notes[0])
			snprintf(p->res.notes, sizeof(p->res.notes), "%.200s: %s", m->text,
				 strerror(-m->status));
		return 0;
	case PROCS_MSG_FAILED:
		p->res.end = NT_PROCS_END_FAILED;
		return nt_err_set(err, m->status, "%s", m->text);
	default:
		return 0;
	}
}

/* Every message queued; sets *@gone on EOF (the init has exited). */
static int read_messages(struct nt_procs *p, bool *gone, struct nt_err *err)
{
	while (p->ctl_fd >= 0) {
		struct procs_msg m;
		ssize_t n = recv(p->ctl_fd, &m, sizeof(m), MSG_DONTWAIT);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			close(p->ctl_fd);
			p->ctl_fd = -1;
			*gone = true;
			return 0;
		}
		if (n != (ssize_t)sizeof(m))
			continue;
		m.text[sizeof(m.text) - 1] = '\0';
		ret = on_message(p, &m, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* Reads what is queued on a pipe into @sink; closes it at EOF. Returns bytes read. */
static size_t drain_pipe(struct nt_procs *p, int *fd, bool is_client)
{
	char buf[16384];
	size_t total = 0;

	while (*fd >= 0 && total < PIPE_READ_BUDGET) {
		ssize_t n = read(*fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			/* EOF (every writer gone) or an error: either way nothing more comes. */
			close(*fd);
			*fd = -1;
			break;
		}
		total += (size_t)n;
		if (is_client) {
			nt_procs_tail_add(&p->client_tail, buf, (size_t)n);
			(void)nt_procs_write_all(p->cfg.client_stderr_fd, buf, (size_t)n);
		} else {
			nt_procs_linebuf_feed(&p->target_lines, buf, (size_t)n);
		}
	}
	return total;
}

static void finish(struct nt_procs *p)
{
	struct nt_procs_result *r = &p->res;

	/* The init is reaped: every writer of the pipes is gone, so they read to EOF. */
	while (p->target_log_fd >= 0 && drain_pipe(p, &p->target_log_fd, false) > 0)
		;
	while (p->client_err_fd >= 0 && drain_pipe(p, &p->client_err_fd, true) > 0)
		;
	nt_procs_linebuf_flush(&p->target_lines);
	nt_procs_tail_lines(&p->client_tail, NT_PROCS_TAIL_LINES, r->client_stderr_tail,
			    sizeof(r->client_stderr_tail));
	if (r->listener.seen && r->target.started)
		r->listen_wait_ns = r->listener.t_mono_ns - r->target.start_mono_ns;
	if (r->client.started && r->client.exited)
		r->client_run_ns = r->client.exit_mono_ns - r->client.start_mono_ns;
	p->phase = NT_PROCS_DONE;
}

/* The init has exited: reap it (it is reapable once its namespace is empty). */
static int reap_init(struct nt_procs *p, struct nt_err *err)
{
	int status = 0;
	pid_t pid;

	do
		pid = waitpid(p->init_pid, &status, 0);
	while (pid < 0 && errno == EINTR);
	if (pid < 0)
		return nt_err_set(err, -errno, "reap the run's init");
	p->init_pid = -1;
	if (p->phase != NT_PROCS_STOPPING && p->res.end != NT_PROCS_END_FAILED) {
		char how[64];

		p->res.end = NT_PROCS_END_FAILED;
		nt_procs_describe_status(status, how, sizeof(how));
		return nt_err_set(err, -ECHILD, "the run's init ended unexpectedly (%s)", how);
	}
	return 0;
}

static int advance_phase(struct nt_procs *p, bool output, struct nt_err *err)
{
	int64_t now = nt_now_mono_ns();
	int ret;

	if (p->phase == NT_PROCS_WAIT_LISTEN) {
		if (p->res.target.exited) {
			begin_stop(p, NT_PROCS_END_TARGET_EXITED);
			return 0;
		}
		if (now >= p->next_check_mono_ns || output) {
			ret = check_listening(p, err);
			if (ret < 0)
				return ret;
			p->next_check_mono_ns = now + LISTEN_POLL_NS;
			if (ret == 1) {
				send_ctl(p, PROCS_MSG_START_CLIENT, p->res.listener.port);
				p->phase = NT_PROCS_CLIENT_RUNNING;
			} else if (now >= p->listen_deadline_mono_ns) {
				begin_stop(p, NT_PROCS_END_LISTEN_TIMEOUT);
			}
		}
	}
	if (p->phase == NT_PROCS_CLIENT_RUNNING && p->res.client.exited)
		begin_stop(p, NT_PROCS_END_CLIENT_EXITED);
	if (p->phase < NT_PROCS_STOPPING && now >= p->run_deadline_mono_ns)
		begin_stop(p, NT_PROCS_END_RUN_TIMEOUT);
	/* The init owns the grace time; this only covers an init that cannot exit. */
	if (p->phase == NT_PROCS_STOPPING && p->init_pid > 0 &&
	    now >= p->stop_mono_ns + p->cfg.term_grace_ns + INIT_EXIT_SLACK_NS)
		(void)kill(p->init_pid, SIGKILL);
	return 0;
}

int nt_procs_advance(struct nt_procs *p, struct nt_err *err)
{
	bool gone = false, output;
	int ret;

	if (p->phase == NT_PROCS_DONE)
		return 1;
	ret = read_messages(p, &gone, err);
	if (ret)
		return ret;
	output = drain_pipe(p, &p->target_log_fd, false) > 0;
	drain_pipe(p, &p->client_err_fd, true);
	if (p->cfg.stop && *p->cfg.stop)
		begin_stop(p, NT_PROCS_END_STOPPED);
	ret = advance_phase(p, output, err);
	if (ret)
		return ret;
	if (gone) {
		ret = reap_init(p, err);
		if (ret)
			return ret;
		finish(p);
		return 1;
	}
	return 0;
}

enum nt_procs_phase nt_procs_phase(const struct nt_procs *p)
{
	return p->phase;
}

const struct nt_procs_result *nt_procs_result(const struct nt_procs *p)
{
	return &p->res;
}

void nt_procs_close(struct nt_procs *p)
{
	int *fds[5] = { &p->ctl_fd, &p->target_log_fd, &p->client_err_fd, &p->tcp_fd[0],
			&p->tcp_fd[1] };

	if (p->init_pid > 0) {
		/* From outside the namespace SIGKILL reaches its pid 1 (sig_task_ignored()). */
		(void)kill(p->init_pid, SIGKILL);
		while (waitpid(p->init_pid, NULL, 0) < 0 && errno == EINTR)
			;
		p->init_pid = -1;
	}
	if (p->phase != NT_PROCS_DONE)
		nt_procs_linebuf_flush(&p->target_lines);
	for (int i = 0; i < 5; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	free(p->known_inodes);
	p->known_inodes = NULL;
	free(p->procnet_buf);
	p->procnet_buf = NULL;
	plan_free(p->plan);
	p->plan = NULL;
}
