// SPDX-License-Identifier: MIT
/*
 * run_html.c - a run's own facts as an HTML list (see nt/render/run.h).
 */
#include <stdio.h>

#include "nt/render/escape.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"

void nt_run_html_header(FILE *out, const struct nt_runinfo *ri)
{
	char w[128], why[256];

	fputs("<h2>The run</h2>\n<ul>\n<li>target: <code>", out);
	nt_escape_xml(out, ri->target.cmd);
	fprintf(out, "</code> (%s)</li>\n<li>client: <code>",
		nt_run_proc_words(&ri->target, w, sizeof(w)));
	nt_escape_xml(out, ri->client.cmd);
	fprintf(out, "</code> (%s)</li>\n<li>fix: ", nt_run_proc_words(&ri->client, w, sizeof(w)));
	nt_escape_xml(out, ri->fix);
	fputs(" (", out);
	nt_escape_xml(out, ri->fix_about);
	fputs(")</li>\n", out);
	if (nt_run_incomplete(ri, why, sizeof(why))) {
		fputs("<li><strong>incomplete:</strong> ", out);
		nt_escape_xml(out, why);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}
