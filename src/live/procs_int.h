/* SPDX-License-Identifier: MIT */
/*
 * procs_int.h - inside the procs module: the plan the run's init carries out,
 * and the messages between nagle-trace and its init. Shared by procs.c (our
 * side) and procs_init.c (the init); nothing else includes it.
 */
#ifndef NT_LIVE_PROCS_INT_H
#define NT_LIVE_PROCS_INT_H

#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "nt/live/rundirs.h"

enum procs_who {
	PROCS_TARGET = 0,
	PROCS_CLIENT = 1,
	PROCS_READY = 2, /* --ready CMD: the readiness probe, started again until it exits 0 */
	PROCS_WHO_COUNT,
};

enum procs_msg_kind {
	PROCS_MSG_STARTED = 1, /* init -> us: @who started at @t_mono_ns */
	PROCS_MSG_EXITED,      /* init -> us: @who was reaped with wait status @status; @port is 1
				* when other processes of the namespace are left (a daemon) */
	PROCS_MSG_FAILED,    /* init -> us: setting up failed, -errno in @status, @text says what */
	PROCS_MSG_NOTE,	     /* init -> us: something skipped, in @text; the run goes on */
	PROCS_MSG_TERM_SENT, /* init -> us: SIGTERM sent; @status has bit 1 << who of each alive */
	PROCS_MSG_KILL_SENT, /* init -> us: SIGKILL sent; @status as for TERM_SENT */
	PROCS_MSG_START_CLIENT, /* us -> init: start the client; the target listens on @port */
	PROCS_MSG_TERMINATE,	/* us -> init: SIGTERM to all, SIGKILL after the grace time, exit */
	PROCS_MSG_START_READY,	/* us -> init: start the readiness probe (--ready) once more */
};

/**
 * struct procs_msg - one message on the SOCK_SEQPACKET pair (one datagram each)
 * @kind: enum procs_msg_kind
 * @who: enum procs_who
 * @status: see @kind
 * @port: see @kind
 * @t_mono_ns: CLOCK_MONOTONIC, the same clock in every PID namespace
 * @text: NUL-terminated
 */
struct procs_msg {
	int32_t kind;
	int32_t who;
	int32_t status;
	uint32_t port;
	int64_t t_mono_ns;
	char text[200];
};

/**
 * struct procs_side_plan - how one command is started
 * @argv: "sh", "-c", the command, NULL
 * @envp: its environment
 * @netns_fd: the network namespace to enter
 * @stdin_fd: its standard input, -1 for /dev/null
 * @stdout_fd: its standard output
 * @stderr_fd: its standard error
 */
struct procs_side_plan {
	char *argv[4];
	char **envp;
	int netns_fd;
	int stdin_fd;
	int stdout_fd;
	int stderr_fd;
};

/**
 * struct procs_spawn_plan - everything the init needs, made before the clone
 * @side: target, client and readiness probe (its @argv[0] NULL without --ready)
 * @script: the text each shell runs: a TERM trap, then the user's command
 * @port_env: "NT_TARGET_PORT=<port>", written by the init before it starts
 *            the client (the client's @envp points here)
 * @addr_env: "NT_CLIENT_ADDR=...", "NT_TARGET_ADDR=..."
 * @preload_env: "LD_PRELOAD=..." for target and client, or NULL
 * @hosts_text: the run's /etc/hosts
 * @nsswitch_text: the run's /etc/nsswitch.conf, NULL when the host has none
 * @run_dirs: the directories of the run's private /run, parents first
 * @ctl_fd: the init's end of the message socket
 * @parent_pidfd: a pidfd of nagle-trace, -1 when the kernel has no pidfd_open()
 * @grace_ns: SIGTERM -> SIGKILL
 */
struct procs_spawn_plan {
	struct procs_side_plan side[PROCS_WHO_COUNT];
	char *script[PROCS_WHO_COUNT];
	char port_env[40];
	char addr_env[2][64];
	char *preload_env[2];
	char *hosts_text;
	char *nsswitch_text;
	struct nt_rundirs run_dirs;
	int ctl_fd;
	int parent_pidfd;
	int64_t grace_ns;
};

struct nt_procs;
struct nt_procs_config;
struct nt_err;

/**
 * procs_plan_make() - the /etc files, scripts and environments of a run
 * (procs_prepare.c)
 * @plan: zeroed, filled here
 * @cfg: the run's configuration
 * @err: filled on failure
 *
 * Return: 0 or a negative errno; procs_plan_free() frees what was made.
 */
int procs_plan_make(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
		    struct nt_err *err);

/**
 * procs_plan_sides() - which namespace and descriptors each command gets
 * @plan: the plan
 * @cfg: the run's configuration
 * @target_w: the write end of the target's output pipe
 * @client_err_w: the write end of the client's stderr pipe
 */
void procs_plan_sides(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
		      int target_w, int client_err_w);

/**
 * procs_plan_free() - free a plan; NULL is a no-op
 * @plan: the plan
 */
void procs_plan_free(struct procs_spawn_plan *plan);

/**
 * procs_listen_open() - open the target namespace's /proc/net/tcp{,6} and
 * remember the listeners already there (procs_listen.c)
 * @p: the run; its tcp_fd[] and known_inodes are set
 * @err: filled on failure
 *
 * Return: 0 or a negative errno. The calling thread ends in the namespace it was in.
 */
int procs_listen_open(struct nt_procs *p, struct nt_err *err);

/**
 * procs_listen_check() - whether the target listens now
 * @p: the run; its result's listener (and unreachable) are filled
 * @err: filled on failure
 *
 * Return: 1 when a listener that starts the client was found, 0 when not
 * yet, or a negative errno.
 */
int procs_listen_check(struct nt_procs *p, struct nt_err *err);

/**
 * procs_raw_clone() - fork() with namespace flags, as a raw system call
 * @flags: CLONE_NEW* flags (SIGCHLD is added)
 *
 * Return: as fork(): the child's pid, 0 in the child, or -1 with errno set.
 */
pid_t procs_raw_clone(unsigned long flags);

/**
 * procs_init_main() - the run's init: pid 1 of its PID namespace
 * @plan: what to do
 *
 * Never returns.
 */
noreturn void procs_init_main(struct procs_spawn_plan *plan);

#endif
