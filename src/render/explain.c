// SPDX-License-Identifier: MIT
/*
 * explain.c - why the stalls happened and the fix, in the words every
 * format prints.
 */
#include "nt/render/analysis.h"
#include "nt/render/render.h"

void nt_render_explain(const struct nt_record *run, const char **held, const char **delayed,
		       const char **fix)
{
	*held = NULL;
	*delayed = NULL;
	*fix = NULL;
	if (!run->summary.verdicts[NT_VERDICT_STALLED])
		return;
	*held = "the client's second small write (the body) was held by Nagle's algorithm while "
		"the header was unacknowledged (tcp_nagle_check)";
	*delayed = "the target delayed that ACK, waiting for a reply it could not send before the "
		   "body arrived (delayed-ACK timer, TCP_DELACK_MIN)";
	*fix = "send header and body in one write (one buffer, writev or sendmsg); otherwise set "
	       "TCP_NODELAY on the client";
}

/*
 * Not the live run's sentence (nt_render_explain()): a capture of unknown
 * programs shows neither which write was a header nor which side waited for
 * a reply, only that a small segment waited for a delayed ACK.
 */
void nt_analysis_explain(const struct nt_analysis *an, const char **why, const char **fix)
{
	*why = NULL;
	*fix = NULL;
	if (!an->sum.stalls)
		return;
	*why = "a small write was held by Nagle's algorithm (tcp_nagle_check) until the peer's "
	       "delayed ACK fired";
	*fix = "send each message in one write (or writev), or set TCP_NODELAY on the sender";
}
