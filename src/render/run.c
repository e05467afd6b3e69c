// SPDX-License-Identifier: MIT
/*
 * run.c - the words every format of a run's block shares (see nt/render/run.h):
 * how a command ended, quoted output, why a report is not complete. The
 * block itself is written per format: run_text.c, run_md.c, run_html.c,
 * run_json.c.
 *
 * A report is never presented as complete when it is not: a capture that
 * dropped frames may have lost a held segment or its ACK, so every stall
 * count is then a lower bound, and every format says so.
 */
#include <stdio.h>
#include <string.h>

#include "nt/render/labels.h"
#include "nt/render/run.h"

const char *nt_run_proc_words(const struct nt_run_proc *p, char *buf, size_t len)
{
	size_t n;

	if (!p->started)
		return snprintf(buf, len, "not started"), buf;
	if (!p->exited)
		snprintf(buf, len, "still running at the end");
	else if (p->signal)
		snprintf(buf, len, "killed by signal %d (SIG%s)", p->signal,
			 sigabbrev_np(p->signal) ? sigabbrev_np(p->signal) : "?");
	else
		snprintf(buf, len, "exit status %d", p->exit_status);
	n = strlen(buf);
	if (p->killed)
		snprintf(buf + n, len - n, ", stopped by us (SIGTERM, then SIGKILL)");
	else if (p->terminated)
		snprintf(buf + n, len - n, ", stopped by us (SIGTERM)");
	return buf;
}

void nt_run_quote_lines(FILE *out, const char *text, const char *prefix)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(out, "%s%.*s\n", prefix, (int)n, text);
		text += n;
		if (*text)
			text++;
	}
}

const char *nt_run_incomplete(const struct nt_runinfo *ri, char *buf, size_t len)
{
	uint64_t lost = nt_runinfo_lost(ri);

	if (lost)
		snprintf(buf, len,
			 "the %s dropped %" PRIu64 " frame%s: stalls may be missing, the "
			 "counts are lower bounds",
			 ri->wire_dropped ? "capture and the delay line" : "capture", lost,
			 nt_plural(lost));
	else if (!ri->complete)
		snprintf(buf, len,
			 "the run ended before the client did (%s): the report covers "
			 "what was captured until then",
			 ri->end);
	else
		return NULL;
	return buf;
}
