// SPDX-License-Identifier: MIT
/*
 * signals.c - the stop flag (see nt/cmd/cmd.h).
 */
#include <signal.h>

#include "nt/cmd/cmd.h"
#include "nt/exitcode.h"

volatile sig_atomic_t nt_cmd_stop;

static void on_stop(int sig)
{
	nt_cmd_stop = sig;
}

void nt_cmd_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	/* No SA_RESTART: ppoll() returns EINTR and the loop sees the flag at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* `nagle-trace | head` ends quietly: writes fail with EPIPE instead of killing us. */
	signal(SIGPIPE, SIG_IGN);
}

int nt_cmd_stop_status(void)
{
	if (!nt_cmd_stop)
		return 0;
	return nt_cmd_stop == SIGTERM ? NT_EXIT_SIGTERM : NT_EXIT_SIGINT;
}
