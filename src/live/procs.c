// SPDX-License-Identifier: MIT
/*
 * procs.c - nagle-trace's side of a run of the user's commands (see
 * nt/live/procs.h); the init's side is procs_init.c.
 *
 * One thread, one poll loop, the caller's: the init reports over a
 * SOCK_SEQPACKET pair (one datagram per message, so no framing, and EOF when
 * the init is gone), the commands' output arrives on two pipes, and the
 * target's readiness is read from its namespace's /proc/net/tcp{,6}
 * (procs_listen.c) every LISTEN_POLL_NS and whenever the target writes. The
 * plan the init carries out is made in procs_prepare.c.
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
#include "nt/live/procs.h"
#include "procs_int.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* How often the target's sockets are read while waiting for it to listen. */
#define LISTEN_POLL_NS (2 * NT_NS_PER_MS)
/* After the grace time, how long the init may take to report and exit before we kill it. */
#define INIT_EXIT_SLACK_NS (2 * NT_NS_PER_SEC)
/* Bytes read from one pipe per nt_procs_advance(), so a chatty command cannot starve the loop. */
#define PIPE_READ_BUDGET ((size_t)256 * 1024)

static const char *const end_names[] = {
	[NT_PROCS_END_NONE] = "still running",
	[NT_PROCS_END_CLIENT_EXITED] = "client exited",
	[NT_PROCS_END_TARGET_EXITED] = "target exited before it listened",
	[NT_PROCS_END_LISTEN_TIMEOUT] = "target did not listen in time",
	[NT_PROCS_END_NOT_READY] = "target was not ready in time",
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

void nt_procs_job_init(struct nt_procs_job *job)
{
	*job = (struct nt_procs_job){ .listen_timeout_ns = NT_PROCS_LISTEN_TIMEOUT_NS,
				      .run_timeout_ns = NT_PROCS_RUN_TIMEOUT_NS,
				      .term_grace_ns = NT_PROCS_TERM_GRACE_NS };
}

void nt_procs_config_init(struct nt_procs_config *cfg, const struct nt_lab *lab,
			  const struct nt_procs_job *job)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->lab = lab;
	cfg->job = *job;
	cfg->target_log_fd = STDERR_FILENO;
	cfg->target_log_prefix = NT_PROCS_TARGET_PREFIX;
	cfg->client_stdin_fd = STDIN_FILENO;
	cfg->client_stdout_fd = STDOUT_FILENO;
	cfg->client_stderr_fd = STDERR_FILENO;
}

uint64_t nt_procs_uids_mapped(void)
{
	char buf[4096];
	uint64_t total = 0;
	int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *at, *end;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Lines of "inside outside count" (user_namespaces(7)); the counts add up. */
	for (at = buf; *at; at = end) {
		char *p = at;

		for (int field = 0; field < 3; field++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (field == 2)
				total += v;
			p = end;
		}
		end = strchr(at, '\n');
		end = end ? end + 1 : at + strlen(at);
	}
	return total;
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

static int clone_init(struct nt_procs *p, int sock[2], int target_pipe[2], int err_pipe[2],
		      struct nt_err *err)
{
	struct procs_spawn_plan *plan = p->plan;
	pid_t pid;

	plan->ctl_fd = sock[1];
	plan->parent_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	procs_plan_sides(plan, &p->cfg, target_pipe[1], err_pipe[1]);
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
	p->res.listen_wait_ns = p->res.client_run_ns = p->res.ready_wait_ns = -1;
	p->res.ready_status = -1;
	p->res.start_mono_ns = nt_now_mono_ns();
	p->run_deadline_mono_ns = p->res.start_mono_ns + cfg->job.run_timeout_ns;
	p->phase = NT_PROCS_STARTING;
	nt_procs_linebuf_init(&p->target_lines, cfg->target_log_fd, cfg->target_log_prefix);

	if (!cfg->job.target_cmd || !cfg->job.client_cmd || !cfg->lab)
		return nt_err_set(err, -EINVAL, "a run needs a target and a client command");
	if (cfg->job.ready_log) {
		if (regcomp(&p->ready_re, cfg->job.ready_log, REG_EXTENDED | REG_NOSUB) != 0)
			return nt_err_set(err, -EINVAL,
					  "--ready-log: \"%s\" is not a regular expression",
					  cfg->job.ready_log);
		p->have_re = true;
		p->target_lines.match = &p->ready_re;
	}
	p->plan = calloc(1, sizeof(*p->plan));
	if (!p->plan)
		return nt_err_set(err, -ENOMEM, "plan the run");
	ret = procs_plan_make(p->plan, cfg, err);
	if (!ret)
		ret = procs_listen_open(p, err);
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
		due = earliest(p->listening ? -1 : p->next_check_mono_ns,
			       p->listen_deadline_mono_ns);
		if (p->listening && p->cfg.job.ready_cmd && !p->ready_running)
			due = earliest(due, p->next_ready_mono_ns);
		/* fall through */
	case NT_PROCS_STARTING:
	case NT_PROCS_CLIENT_RUNNING:
		due = earliest(due, p->run_deadline_mono_ns);
		break;
	case NT_PROCS_STOPPING:
		due = p->stop_mono_ns + p->cfg.job.term_grace_ns + INIT_EXIT_SLACK_NS;
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
	p->target_lines.quiet_terminated = true;
	p->phase = NT_PROCS_STOPPING;
	p->stop_mono_ns = nt_now_mono_ns();
}

static void on_exited(struct nt_procs *p, const struct procs_msg *m)
{
	struct nt_procs_exit *x = m->who == PROCS_CLIENT ? &p->res.client : &p->res.target;

	if (m->who == PROCS_READY) {
		p->ready_running = false;
		p->res.ready_status = m->status;
		p->ready_ok = WIFEXITED(m->status) && WEXITSTATUS(m->status) == 0;
		p->next_ready_mono_ns = m->t_mono_ns + NT_PROCS_READY_RETRY_NS;
		return;
	}
	if (m->who == PROCS_TARGET) {
		p->others_alive = m->port != 0;
		/* Exited 0 on its own, its processes going on: a daemon, at any phase. */
		if (p->phase < NT_PROCS_STOPPING && p->others_alive && WIFEXITED(m->status) &&
		    WEXITSTATUS(m->status) == 0)
			p->res.daemonized = true;
	}
	x->exited = true;
	x->wait_status = m->status;
	x->exit_mono_ns = m->t_mono_ns;
}

static int on_message(struct nt_procs *p, const struct procs_msg *m, struct nt_err *err)
{
	struct nt_procs_exit *x = m->who == PROCS_CLIENT ? &p->res.client : &p->res.target;

	switch (m->kind) {
	case PROCS_MSG_STARTED:
		if (m->who == PROCS_READY)
			return 0;
		x->started = true;
		x->start_mono_ns = m->t_mono_ns;
		if (m->who == PROCS_TARGET && p->phase == NT_PROCS_STARTING) {
			p->phase = NT_PROCS_WAIT_LISTEN;
			p->listen_deadline_mono_ns = m->t_mono_ns + p->cfg.job.listen_timeout_ns;
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
	r->log_matched = p->target_lines.matched;
	r->target_log_error = p->target_lines.error;
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

/*
 * --ready-log and --ready, once the target listens: whether the client may
 * start now. The probe is started again NT_PROCS_READY_RETRY_NS after each
 * try that did not exit 0.
 */
static bool is_ready(struct nt_procs *p, int64_t now)
{
	if (p->have_re && !p->target_lines.matched)
		return false;
	if (!p->cfg.job.ready_cmd || p->ready_ok)
		return true;
	if (!p->ready_running && now >= p->next_ready_mono_ns) {
		send_ctl(p, PROCS_MSG_START_READY, p->res.listener.port);
		p->ready_running = true;
		p->res.ready_tries++;
	}
	return false;
}

/*
 * The target's command exited before it listened. A server that forks into
 * the background (`redis-server --daemonize yes`, nginx's default) exits 0
 * while its child, orphaned to our init, goes on: that is followed, not a
 * failure. Return: true when the run is over.
 */
static bool target_gone(struct nt_procs *p)
{
	if (!p->res.target.exited || p->res.daemonized)
		return false;
	begin_stop(p, NT_PROCS_END_TARGET_EXITED);
	return true;
}

static int wait_listen(struct nt_procs *p, int64_t now, bool output, struct nt_err *err)
{
	int ret;

	if (target_gone(p))
		return 0;
	if (!p->listening && (now >= p->next_check_mono_ns || output)) {
		ret = procs_listen_check(p, err);
		if (ret < 0)
			return ret;
		p->next_check_mono_ns = now + LISTEN_POLL_NS;
		p->listening = ret == 1;
	}
	if (p->listening && is_ready(p, now)) {
		send_ctl(p, PROCS_MSG_START_CLIENT, p->res.listener.port);
		p->phase = NT_PROCS_CLIENT_RUNNING;
		if (p->res.target.started)
			p->res.ready_wait_ns = (now > p->res.listener.t_mono_ns
							? now
							: p->res.listener.t_mono_ns) -
					       p->res.target.start_mono_ns;
	} else if (now >= p->listen_deadline_mono_ns) {
		begin_stop(p, p->listening ? NT_PROCS_END_NOT_READY : NT_PROCS_END_LISTEN_TIMEOUT);
	}
	return 0;
}

static int advance_phase(struct nt_procs *p, bool output, struct nt_err *err)
{
	int64_t now = nt_now_mono_ns();
	int ret;

	if (p->phase == NT_PROCS_WAIT_LISTEN) {
		ret = wait_listen(p, now, output, err);
		if (ret < 0)
			return ret;
	}
	if (p->phase == NT_PROCS_CLIENT_RUNNING && p->res.client.exited)
		begin_stop(p, NT_PROCS_END_CLIENT_EXITED);
	if (p->phase < NT_PROCS_STOPPING && now >= p->run_deadline_mono_ns)
		begin_stop(p, NT_PROCS_END_RUN_TIMEOUT);
	/* The init owns the grace time; this only covers an init that cannot exit. */
	if (p->phase == NT_PROCS_STOPPING && p->init_pid > 0 &&
	    now >= p->stop_mono_ns + p->cfg.job.term_grace_ns + INIT_EXIT_SLACK_NS)
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
	if (p->have_re)
		regfree(&p->ready_re);
	p->have_re = false;
	p->target_lines.match = NULL;
	procs_plan_free(p->plan);
	p->plan = NULL;
}
