/* SPDX-License-Identifier: MIT */
/*
 * procs.h - the user's own target and client inside the lab (`nagle-trace run`).
 *
 * nt_procs_start() makes one process of ours, the run's init: pid 1 of a
 * fresh PID namespace, in a private mount namespace whose /etc/hosts names
 * `client` and `target`. The init starts the target (`/bin/sh -c CMD`) in the
 * lab's target network namespace at once and the client in the client
 * namespace when told to; it reaps everything and reports exit statuses over
 * a socket. Nothing of the run can outlive nagle-trace: the init has
 * PR_SET_PDEATHSIG(SIGKILL), and when a PID namespace's pid 1 dies the kernel
 * kills every other process in it (zap_pid_ns_processes()).
 *
 * The caller owns the poll loop, as for nt/live/exchange.h: it adds
 * nt_procs_pollfds() to its own descriptors, sleeps at most
 * nt_procs_timeout_ns(), and calls nt_procs_advance() after every wake-up.
 * nt_procs_advance() notices the target's new listening socket (by reading
 * the target namespace's /proc/net/tcp{,6}), starts the client, forwards the
 * target's output line by line with a prefix, passes the client's stderr
 * through while keeping its last lines, and tears the run down when the client
 * exits, a timeout hits or *stop is set. One thread, no signals of its own:
 * the caller's SIGINT/SIGTERM handler sets *stop.
 */
#ifndef NT_LIVE_PROCS_H
#define NT_LIVE_PROCS_H

#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/lab/lab.h"
#include "nt/live/procs_log.h"

#define NT_PROCS_LISTEN_TIMEOUT_NS (10LL * 1000000000LL) /* --listen-timeout default */
#define NT_PROCS_RUN_TIMEOUT_NS	   (60LL * 1000000000LL) /* --timeout default */
#define NT_PROCS_TERM_GRACE_NS	   (2LL * 1000000000LL)	 /* SIGTERM -> SIGKILL */
#define NT_PROCS_READY_RETRY_NS	   (50LL * 1000000LL)	 /* --ready: between two tries */
#define NT_PROCS_POLLFDS_MAX	   4
#define NT_PROCS_TARGET_PREFIX	   "target: "
/* The LD_PRELOAD library of --fix nodelay, found by nt_procs_preload_path(). */
#define NT_PROCS_NODELAY_LIB "nt_nodelay.so"

/**
 * struct nt_procs_job - the user's two commands and the time each step may
 * take: what `run --target --client --wait-port --listen-timeout --timeout`
 * say, carried as one from the options (struct nt_run_opts) through each
 * run (struct nt_userrun_config) to the processes (struct nt_procs_config)
 * @target_cmd: run by `/bin/sh -c` in the target namespace
 * @client_cmd: run by `/bin/sh -c` in the client namespace once the target listens
 * @wait_port: the target's port to wait for; 0 for its first new listener
 *             that the client can reach (IPv4 or IPv6)
 * @listen_timeout_ns: how long the target may take to listen
 * @run_timeout_ns: the whole run, from nt_procs_start() to the client's exit
 * @term_grace_ns: between SIGTERM and SIGKILL at teardown
 * @ready_cmd: --ready CMD, run by `/bin/sh -c` in the client namespace once
 *             the target listens, again every NT_PROCS_READY_RETRY_NS until
 *             it exits 0 (then the client starts); NULL for none
 * @ready_log: --ready-log REGEX, a POSIX extended regular expression a line
 *             of the target's output must match before the client starts;
 *             NULL for none
 *
 * nt_procs_job_init() fills the defaults. The listen timeout bounds the
 * whole wait: listener, log line and probe.
 */
struct nt_procs_job {
	const char *target_cmd;
	const char *client_cmd;
	const char *ready_cmd;
	const char *ready_log;
	uint16_t wait_port;
	int64_t listen_timeout_ns;
	int64_t run_timeout_ns;
	int64_t term_grace_ns;
};

/**
 * nt_procs_uids_mapped() - how many user ids our user namespace maps
 *
 * Plain `unshare -Urn` maps one (root inside is the caller outside), and a
 * server that switches to its own user or sets supplementary groups fails
 * there with EINVAL (the id has no mapping: make_kuid(), setgroups(2)).
 * Real root's namespace maps 4294967295, `unshare --map-auto` a range from
 * /etc/subuid.
 *
 * Return: the sum of /proc/self/uid_map's counts, 0 when unreadable.
 */
uint64_t nt_procs_uids_mapped(void);

/**
 * nt_procs_job_init() - no commands yet, no port, the timeouts of
 * `nagle-trace run`
 * @job: filled
 */
void nt_procs_job_init(struct nt_procs_job *job);

/**
 * struct nt_procs_config - what to run and where its output goes
 * @lab: a lab that is up: its namespaces and addresses
 * @job: the commands, the port and the timeouts
 * @target_log_fd: where the target's stdout and stderr go (merged)
 * @target_log_prefix: put before every line of the target's output (lines
 *                     are then written whole); NULL writes the bytes as they come
 * @client_stdin_fd: the client's standard input
 * @client_stdout_fd: the client's standard output, handed over as it is
 * @client_stderr_fd: where the client's stderr is passed through; its last
 *                    lines are kept for the result either way
 * @client_preload: a shared library put first in the client's LD_PRELOAD
 *                  (an existing LD_PRELOAD is kept after it), or NULL
 * @target_preload: the same for the target (a server that writes a reply
 *                  in two parts stalls the same way), or NULL
 * @stop: set by the caller's signal handler; the run is torn down when it
 *        becomes nonzero. May be NULL
 *
 * nt_procs_config_init() fills the defaults.
 */
struct nt_procs_config {
	const struct nt_lab *lab;
	struct nt_procs_job job;
	int target_log_fd;
	const char *target_log_prefix;
	int client_stdin_fd;
	int client_stdout_fd;
	int client_stderr_fd;
	const char *client_preload;
	const char *target_preload;
	const volatile sig_atomic_t *stop;
};

/* Where the run is. */
enum nt_procs_phase {
	NT_PROCS_STARTING,	 /* the init is setting up; the target is not running yet */
	NT_PROCS_WAIT_LISTEN,	 /* the target runs; waiting for its listening socket */
	NT_PROCS_CLIENT_RUNNING, /* the client runs */
	NT_PROCS_STOPPING,	 /* everything left is being terminated */
	NT_PROCS_DONE,		 /* the init is reaped: no process of the run is left */
};

/* Why the run ended; the first reason wins. */
enum nt_procs_end {
	NT_PROCS_END_NONE = 0,
	NT_PROCS_END_CLIENT_EXITED,  /* the client exited (with any status) */
	NT_PROCS_END_TARGET_EXITED,  /* the target exited before it listened */
	NT_PROCS_END_LISTEN_TIMEOUT, /* the target did not listen within the listen timeout */
	NT_PROCS_END_NOT_READY,	  /* it listened, but --ready / --ready-log did not hold in time */
	NT_PROCS_END_RUN_TIMEOUT, /* the run timeout hit while the client ran */
	NT_PROCS_END_STOPPED,	  /* *stop was set */
	NT_PROCS_END_FAILED,	  /* a step of ours failed (see the error message) */
};

/**
 * struct nt_procs_exit - one command's life
 * @started: the command was started
 * @exited: it ended and @wait_status is known
 * @wait_status: the status as waitpid() returns it (WIFEXITED() ...)
 * @terminated: it was still running when the teardown sent SIGTERM
 * @killed: it was still running when the grace time ran out (SIGKILL)
 * @start_mono_ns: when it was started (CLOCK_MONOTONIC)
 * @exit_mono_ns: when it was reaped (CLOCK_MONOTONIC)
 *
 * The command is `/bin/sh -c CMD`: dash runs a simple command in place of
 * the shell, so its status is the command's; a compound command reports what
 * the shell reports (a child killed by SIGTERM shows as exit status 143).
 */
struct nt_procs_exit {
	bool started;
	bool exited;
	int wait_status;
	bool terminated;
	bool killed;
	int64_t start_mono_ns;
	int64_t exit_mono_ns;
};

/**
 * struct nt_procs_listener - a listening socket of the target
 * @seen: one was found
 * @family: AF_INET or AF_INET6
 * @addr: its local address (4 or 16 bytes)
 * @port: its port
 * @addr_str: "192.0.2.2", "0.0.0.0", "::", "127.0.0.1"
 * @t_mono_ns: when it was first seen
 */
struct nt_procs_listener {
	bool seen;
	int family;
	struct in6_addr addr;
	uint16_t port;
	char addr_str[INET6_ADDRSTRLEN];
	int64_t t_mono_ns;
};

/**
 * struct nt_procs_result - everything the command layer needs to decide and say
 * @end: why the run ended
 * @target: the target's life
 * @client: the client's life
 * @listener: the listening socket that started the client
 * @unreachable: a new listener the client could not reach (loopback only, or
 *               the other address family), for the message when @listener is
 *               never seen
 * @start_mono_ns: nt_procs_start() (CLOCK_MONOTONIC)
 * @listen_wait_ns: target start -> listener seen, -1 when never
 * @client_run_ns: client start -> client reaped, -1 when it never ended
 * @client_stderr_tail: the client's last stderr lines (at most
 *                      NT_PROCS_TAIL_LINES, NT_PROCS_TAIL_BYTES), control
 *                      characters but tab and newline shown as '?'
 * @notes: what the init could not set up but ran without, "" when all went
 *         well (e.g. "/proc of the run's PID namespace not mounted: ...")
 * @daemonized: the target's command exited 0 before it listened while other
 *              processes of the run's PID namespace lived on (a server that
 *              forks into the background): they were followed, and stopped
 *              at the end as the target would have been
 * @log_matched: a line of the target's output matched --ready-log
 * @ready_tries: times the --ready probe was started
 * @ready_status: the wait status of its last try, -1 before any ended
 * @ready_wait_ns: target start -> the client could start, -1 when never
 * @target_log_error: the first failed write of the target's output (negative
 *                    errno), 0 when every byte was written
 */
struct nt_procs_result {
	enum nt_procs_end end;
	struct nt_procs_exit target;
	struct nt_procs_exit client;
	struct nt_procs_listener listener;
	struct nt_procs_listener unreachable;
	int64_t start_mono_ns;
	int64_t listen_wait_ns;
	int64_t client_run_ns;
	char client_stderr_tail[NT_PROCS_TAIL_BYTES + 1];
	char notes[256];
	bool daemonized;
	bool log_matched;
	unsigned ready_tries;
	int ready_status;
	int64_t ready_wait_ns;
	int target_log_error;
};

/**
 * struct nt_procs - a run of the user's commands (treat as opaque)
 */
struct nt_procs {
	struct nt_procs_config cfg;
	enum nt_procs_phase phase;
	struct nt_procs_result res;
	pid_t init_pid;
	int ctl_fd;
	int target_log_fd;
	int client_err_fd;
	int tcp_fd[2];
	unsigned long *known_inodes;
	size_t n_known;
	char *procnet_buf;
	size_t procnet_bytes;
	int64_t next_check_mono_ns;
	int64_t listen_deadline_mono_ns;
	int64_t run_deadline_mono_ns;
	int64_t stop_mono_ns;
	int64_t next_ready_mono_ns;
	bool ready_running;
	bool ready_ok;
	bool listening;
	bool others_alive;
	bool have_re;
	regex_t ready_re;
	struct nt_procs_linebuf target_lines;
	struct nt_procs_tail client_tail;
	struct procs_spawn_plan *plan;
};

/**
 * nt_procs_config_init() - the defaults: fds 0/1/2, the target's output to
 * stderr prefixed "target: "
 * @cfg: filled
 * @lab: the lab
 * @job: the commands, the port and the timeouts (copied)
 */
void nt_procs_config_init(struct nt_procs_config *cfg, const struct nt_lab *lab,
			  const struct nt_procs_job *job);

/**
 * nt_procs_start() - make the run's init and start the target
 * @p: the run, initialised here
 * @cfg: what to run (copied; the strings and @cfg->lab must outlive @p)
 * @err: filled on failure
 *
 * Call from the thread that will live as long as the run (PR_SET_PDEATHSIG
 * follows the thread that created the init), in any network namespace.
 * Nothing else in the process may wait for children with waitpid(-1).
 *
 * Return: 0 or a negative errno (-EPERM: no privileges for PID and mount
 * namespaces). On failure nt_procs_close() is still to be called.
 */
int nt_procs_start(struct nt_procs *p, const struct nt_procs_config *cfg, struct nt_err *err);

/**
 * nt_procs_pollfds() - the descriptors the run waits on
 * @p: the run
 * @pfd: at least NT_PROCS_POLLFDS_MAX entries
 *
 * Return: how many entries were filled.
 */
int nt_procs_pollfds(const struct nt_procs *p, struct pollfd *pfd);

/**
 * nt_procs_timeout_ns() - how long the loop may sleep before the run's next timer
 * @p: the run
 *
 * Return: nanoseconds (0: due now), or -1 when no timer is pending.
 */
int64_t nt_procs_timeout_ns(const struct nt_procs *p);

/**
 * nt_procs_advance() - do everything that is due, without blocking
 * @p: the run
 * @err: filled on failure
 *
 * Return: 1 when the run is over (phase NT_PROCS_DONE: every process of the
 * run is gone and the output is flushed), 0 to be called again, or a negative
 * errno (the caller then calls nt_procs_close(), which kills what is left).
 */
int nt_procs_advance(struct nt_procs *p, struct nt_err *err);

/**
 * nt_procs_phase() - where the run is
 * @p: the run
 *
 * Return: the phase.
 */
enum nt_procs_phase nt_procs_phase(const struct nt_procs *p);

/**
 * nt_procs_result() - what happened so far; complete once the phase is NT_PROCS_DONE
 * @p: the run
 *
 * Return: the result, owned by @p.
 */
const struct nt_procs_result *nt_procs_result(const struct nt_procs *p);

/**
 * nt_procs_close() - kill whatever of the run is left, reap the init and free;
 * idempotent, safe after a failed nt_procs_start()
 * @p: the run
 *
 * Returns once the PID namespace is empty: the init is reapable only after
 * the kernel has killed and reaped everything else in it.
 */
void nt_procs_close(struct nt_procs *p);

/**
 * nt_procs_end_name() - a short text for an end reason ("client exited", ...)
 * @end: the reason
 *
 * Return: a static string.
 */
const char *nt_procs_end_name(enum nt_procs_end end);

/**
 * nt_procs_describe_status() - a wait status in words
 * @wait_status: as waitpid() returns it
 * @buf: filled with "exit status 0", "exit status 3", "killed by signal 9 (SIGKILL)"
 * @len: size of @buf
 */
void nt_procs_describe_status(int wait_status, char *buf, size_t len);

/**
 * nt_procs_preload_path() - the absolute path of a preload library of ours
 * @name: its file name, NT_PROCS_NODELAY_LIB
 * @buf: filled with the path
 * @len: size of @buf
 * @err: filled when the library is found nowhere, naming the places tried
 *
 * Looked for beside the running executable (the build tree) and in the
 * install tree's library directory relative to it
 * (`${CMAKE_INSTALL_LIBDIR}/nagle-trace/`, the relative path fixed at build
 * time), so a moved install prefix still works.
 *
 * Return: 0, or -ENOENT.
 */
int nt_procs_preload_path(const char *name, char *buf, size_t len, struct nt_err *err);

#endif
