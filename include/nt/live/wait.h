/* SPDX-License-Identifier: MIT */
/*
 * wait.h - a stop signal that ppoll() did not deliver.
 *
 * The loops keep SIGINT and SIGTERM blocked and open them only inside
 * ppoll()'s mask. But a ppoll() that finds a descriptor ready returns
 * without delivering a pending signal: the kernel puts the old mask back
 * unless the call was interrupted (fs/select.c: poll_select_finish() ->
 * restore_saved_sigmask_unless(ret == -ERESTARTNOHAND)). A loop whose
 * descriptors are always ready (a busy capture, a million rounds) would
 * never see the signal: issue 25's trace that ignored SIGINT and SIGTERM.
 */
#ifndef NT_LIVE_WAIT_H
#define NT_LIVE_WAIT_H

#include <signal.h>
#include <stddef.h>

/**
 * nt_wait_take_signals() - deliver a pending SIGINT or SIGTERM now
 * @waitmask: the mask the loop waits with (the stop signals unblocked); NULL:
 *            nothing to do
 *
 * One sigpending() when none is pending; when one is, the mask is opened
 * and closed again, and the handler runs in between (sets the stop flag).
 */
static inline void nt_wait_take_signals(const sigset_t *waitmask)
{
	sigset_t pending, mask;

	if (!waitmask || sigpending(&pending) < 0)
		return;
	if (sigismember(&pending, SIGINT) != 1 && sigismember(&pending, SIGTERM) != 1)
		return;
	sigprocmask(SIG_SETMASK, waitmask, &mask);
	sigprocmask(SIG_SETMASK, &mask, NULL);
}

#endif
