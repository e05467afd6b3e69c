// SPDX-License-Identifier: MIT
/*
 * run_md.c - a run's own facts as a Markdown list (see nt/render/run.h).
 */
#include <stdio.h>
#include <string.h>

#include "nt/render/labels.h"
#include "nt/render/run.h"

/* A command as a Markdown code span, whatever backticks it holds. */
static void md_code(FILE *out, const char *s)
{
	fputs(strchr(s, '`') ? "`` " : "`", out);
	fputs(s, out);
	fputs(strchr(s, '`') ? " ``" : "`", out);
}

void nt_run_markdown_header(FILE *out, const struct nt_runinfo *ri)
{
	char w[128], why[256];

	fprintf(out, "## nagle-trace run: fix `%s`\n\n", ri->fix);
	fputs("- target: ", out);
	md_code(out, ri->target.cmd);
	fprintf(out, " (%s)\n- client: ", nt_run_proc_words(&ri->target, w, sizeof(w)));
	md_code(out, ri->client.cmd);
	fprintf(out, " (%s)\n", nt_run_proc_words(&ri->client, w, sizeof(w)));
	fprintf(out, "- fix: %s; Linux %s\n", ri->fix_about, ri->kernel);
	if (ri->ns[NT_RUN_NS_TARGET].known[NT_RUN_DELAYED_ACKS])
		fprintf(out, "- the target's delayed-ACK timer fired %" PRIu64 " time%s\n",
			ri->ns[NT_RUN_NS_TARGET].delta[NT_RUN_DELAYED_ACKS],
			nt_plural(ri->ns[NT_RUN_NS_TARGET].delta[NT_RUN_DELAYED_ACKS]));
	if (nt_run_incomplete(ri, why, sizeof(why)))
		fprintf(out, "- **incomplete:** %s\n", why);
	fputc('\n', out);
}
