// SPDX-License-Identifier: MIT
/*
 * signals.c - the stop flag (see nt/cmd/cmd.h).
 */
#include <signal.h>

#include "nt/cmd/cmd.h"
#include "nt/exitcode.h"
#include "nt/output.h"

volatile sig_atomic_t nt_cmd_stop;

static void on_stop(int sig)
{
	nt_cmd_stop = sig;
}

/* A signal that ends the process: named temporary files go first (nt/output.h). */
static void on_fatal(int sig)
{
	nt_output_unlink_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

void nt_cmd_signals_install(void)
{
	static const int fatal[] = { SIGHUP,  SIGQUIT,	 SIGUSR1, SIGUSR2,
				     SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU };
	struct sigaction sa = { .sa_handler = on_stop };
	struct sigaction fa = { .sa_handler = on_fatal };

	/* No SA_RESTART: ppoll() returns EINTR and the loop sees the flag at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* `nagle-trace | head` ends quietly: writes fail with EPIPE instead of killing us. */
	signal(SIGPIPE, SIG_IGN);
	/* Past `ulimit -f` a write fails with EFBIG, reported, instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&fa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &fa, NULL);
}

/*
 * For the commands that have no loop to stop (analyze, predict): SIGINT and
 * SIGTERM end them at once, at any moment, like the other fatal signals,
 * with their named temporary files removed first; the shell sees 130 and
 * 143 (death by the signal). SIGPIPE and SIGXFSZ are ignored as for trace.
 */
void nt_cmd_signals_install_fatal(void)
{
	static const int fatal[] = { SIGINT,  SIGTERM, SIGHUP,	  SIGQUIT, SIGUSR1,
				     SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU };
	struct sigaction fa = { .sa_handler = on_fatal };

	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&fa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &fa, NULL);
}

void nt_cmd_signals_block(sigset_t *saved, sigset_t *waitmask)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	if (saved)
		*saved = *waitmask;
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
}

int nt_cmd_stop_status(void)
{
	if (!nt_cmd_stop)
		return 0;
	return nt_cmd_stop == SIGTERM ? NT_EXIT_SIGTERM : NT_EXIT_SIGINT;
}
