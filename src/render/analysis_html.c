// SPDX-License-Identifier: MIT
/*
 * analysis_html.c - the analyze report as one self-contained page: the
 * summary, the table of flows with stalls, the ladder diagram of the worst
 * flow's first stall as inline <svg>, the why and the fix, and the whole
 * text report in <pre>.
 *
 * Self-contained as the live page (html.c) is: no script, stylesheet, font
 * or image is referenced, one inline <style> (the same), so the file can be
 * mailed, attached or opened offline. Every string from the capture (paths,
 * the filter, read errors) is escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "nt/render/analysis.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/html_page.h"
#include "nt/render/run.h"
#include "nt/render/labels.h"
#include "nt/render/pick.h"

static void summary(FILE *out, const struct nt_analysis *an, const struct nt_analysis_view *v)
{
	const struct nt_analysis_summary *s = &an->sum;
	char tot[128];

	fputs("<p>", out);
	for (size_t i = 0; i < an->n_files; i++) {
		const struct nt_analysis_file *f = &an->files[i];

		fputs(i ? ", <code>" : "<code>", out);
		nt_escape_xml(out, f->path);
		fputs("</code>", out);
		if (f->error) {
			fputs(" <span class=\"notmet\">(incomplete: ", out);
			nt_escape_xml(out, f->error);
			fputs(")</span>", out);
		}
	}
	if (v->filter) {
		fputs(", filter <code>", out);
		nt_escape_xml(out, v->filter);
		fputs("</code>", out);
	}
	fprintf(out,
		": %" PRIu64 " packets (%" PRIu64 " TCP), %" PRIu64 " TCP flows, %" PRIu64
		" with stalls, %s%" PRIu64 " stalls%s (delack_min %" PRIu64 ", delack_max %" PRIu64
		", other %" PRIu64 "), %s; %" PRIu64 " think-time episodes.%s</p>\n",
		s->packets, s->tcp_packets, s->flows, s->flows_with_stalls,
		s->stalls ? "<span class=\"stalled\">" : "", s->stalls, s->stalls ? "</span>" : "",
		s->by_delack[NT_DELACK_MIN], s->by_delack[NT_DELACK_MAX],
		s->by_delack[NT_DELACK_OTHER],
		nt_label_lost_sum(s->stalled_wall_min_ns, s->stalled_wall_ns, s->total_stall_ns,
				  s->stalls, tot, sizeof(tot)),
		s->think_time,
		an->oom ? " <span class=\"notmet\">Out of memory: results are incomplete.</span>"
			: "");
}

static void occurrence(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r,
		       const struct nt_stall_episode *ep)
{
	char where[96];

	fputs("<td>", out);
	nt_escape_xml(out, nt_label_occurrence(an, r, ep, where, sizeof(where)));
	fputs("</td>", out);
}

static void flows_table(FILE *out, const struct nt_analysis *an, int worst)
{
	fputs("<table>\n<tr><th>flow (client &#8594; target)</th><th>stalls</th><th>lost</th>"
	      "<th>p50</th><th>max</th><th>delack_min</th><th>delack_max</th><th>other</th>"
	      "<th>first stall</th><th>last stall</th></tr>\n",
	      out);
	for (size_t i = 0; i < an->n_flows; i++) {
		const struct nt_flow_result *r = an->flows[i];
		char c[64], tg[64], tot[64], p50[32], mx[32];

		fputs("<tr><td><code>", out);
		nt_escape_xml(out, nt_fmt_endpoint(r->family, r->client_addr, r->client_port, c,
						   sizeof(c)));
		fputs(" &#8594; ", out);
		nt_escape_xml(out, nt_fmt_endpoint(r->family, r->target_addr, r->target_port, tg,
						   sizeof(tg)));
		fprintf(out,
			"</code></td><td class=\"num\">%" PRIu32
			"</td><td class=\"num%s\">%s ms</td>"
			"<td class=\"num\">%s ms</td><td class=\"num\">%s ms</td>"
			"<td class=\"num\">%" PRIu32 "</td><td class=\"num\">%" PRIu32 "</td>"
			"<td class=\"num\">%" PRIu32 "</td>",
			r->stalls, (int)i == worst ? " stalled" : "",
			nt_label_lost(r->wall_min.total_ns, r->wall.total_ns, tot, sizeof(tot)),
			nt_fmt_ms_trunc(r->p50_ns, p50, sizeof(p50)),
			nt_fmt_ms_trunc(r->max_ns, mx, sizeof(mx)), r->by_delack[NT_DELACK_MIN],
			r->by_delack[NT_DELACK_MAX], r->by_delack[NT_DELACK_OTHER]);
		occurrence(out, an, r, &r->first);
		occurrence(out, an, r, &r->last);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n<p>In red: the worst flow, the one that lost the most time; the "
	      "diagram shows its first stall.</p>\n",
	      out);
}

static int report(FILE *out, const struct nt_analysis *an, const struct nt_analysis_view *v)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);
	int ret;

	if (!fp)
		return -ENOMEM;
	ret = nt_render_analysis_text(fp, an, v);
	if (fclose(fp) != 0 || ret < 0) {
		free(text);
		return -ENOMEM;
	}
	fputs("<h2>Report</h2>\n<pre>", out);
	nt_escape_xml(out, text);
	fputs("</pre>\n", out);
	free(text);
	return 0;
}

int nt_render_analysis_html(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v)
{
	int worst = nt_pick_worst_flow(an);
	const char *why, *fix;
	char th[32];
	int ret;

	nt_html_begin(out,
		      worst < 0 ? "nagle-trace analyze: no stalls found"
				: "nagle-trace analyze: stalls found",
		      "nagle-trace analyze");
	if (v->run)
		nt_run_html_header(out, v->run);
	summary(out, an, v);
	if (worst < 0) {
		fprintf(out,
			"<h2>No stalls found</h2>\n<p>No small write waited for a delayed ACK: no "
			"sub-MSS segment was acknowledged by a pure ACK %s ms or more later with "
			"the "
			"sender&#8217;s next data right behind that ACK.</p>\n",
			nt_fmt_ms_trunc(an->params.stall.threshold_ns, th, sizeof(th)));
	} else {
		fputs("<h2>Flows with stalls</h2>\n", out);
		flows_table(out, an, worst);
		fputs("<h2>Ladder diagram</h2>\n<p>The first stall of the worst flow. A held the "
		      "data, B delayed its ACK. Time flows down; gaps of 1 ms or more are drawn "
		      "as marked breaks.</p>\n<div class=\"diagram\">\n",
		      out);
		ret = nt_analysis_svg_write(out, an, false);
		if (ret < 0)
			return ret;
		fputs("</div>\n", out);
		nt_analysis_explain(an, &why, &fix);
		fputs("<h2>Why, and the fix</h2>\n<p><strong>Why:</strong> ", out);
		nt_escape_xml(out, why);
		fputs(".</p>\n<p><strong>Fix:</strong> ", out);
		nt_escape_xml(out, fix);
		fputs(".</p>\n", out);
	}
	ret = report(out, an, v);
	if (ret < 0)
		return ret;
	return nt_html_end(out);
}
