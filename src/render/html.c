// SPDX-License-Identifier: MIT
/*
 * html.c - one self-contained page for a classroom or an incident: the
 * summary table, the ladder diagram(s) as inline <svg>, the why and the fix,
 * the text timelines in <pre>, and a legend of the verdicts.
 *
 * Self-contained means no external anything: no script, stylesheet, font or
 * image is referenced; styles are inline in one <style> element, so the file
 * can be mailed, attached or opened offline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/html_page.h"
#include "nt/render/labels.h"
#include "nt/render/pick.h"
#include "nt/render/render.h"
#include "nt/render/spool.h"
#include "nt/render/svg.h"

static void summary_table(FILE *out, const struct nt_run *runs, unsigned n_runs)
{
	fputs("<table>\n<tr><th>variant</th><th>rounds</th><th>verdicts</th><th>p50 RTT</th>"
	      "<th>p90 RTT</th><th>max RTT</th><th>expectation</th></tr>\n",
	      out);
	for (unsigned i = 0; i < n_runs; i++) {
		const struct nt_run *run = &runs[i];
		const struct nt_summary *s = &run->summary;
		char v[128], p50[32], p90[32], max[32];

		fputs("<tr><td><code>", out);
		nt_escape_xml(out, run->cfg.variant);
		fprintf(out, "</code></td><td class=\"num\">%u</td><td%s>", s->rounds,
			s->verdicts[NT_VERDICT_STALLED] ? " class=\"stalled\"" : "");
		nt_escape_xml(out, nt_label_verdicts(s, v, sizeof(v)));
		fprintf(out,
			"</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td>",
			nt_fmt_ms(s->rtt_p50_ns, p50, sizeof(p50)),
			nt_fmt_ms(s->rtt_p90_ns, p90, sizeof(p90)),
			nt_fmt_ms(s->rtt_max_ns, max, sizeof(max)));
		fprintf(out, "<td%s>%s: %s", run->expectation_met ? "" : " class=\"notmet\"",
			nt_expect_name(run->cfg.expect), run->expectation_met ? "met" : "NOT met");
		if (!run->expectation_met) {
			fputs(" (", out);
			nt_escape_xml(out, run->expectation_reason);
			fputc(')', out);
		}
		fprintf(out, "%s</td></tr>\n", run->interrupted ? ", interrupted" : "");
	}
	fputs("</table>\n", out);
}

static void explanations(FILE *out, const struct nt_run *runs, unsigned n_runs)
{
	bool any = false;

	for (unsigned i = 0; i < n_runs; i++) {
		const char *why, *fix;
		char line[512];

		nt_render_explain(&runs[i], &why, &fix);
		if (!why)
			continue;
		if (!any)
			fputs("<h2>Why, and the fix</h2>\n", out);
		any = true;
		if (n_runs > 1) {
			fputs("<h3><code>", out);
			nt_escape_xml(out, runs[i].cfg.variant);
			fputs("</code></h3>\n", out);
		}
		fputs("<p><strong>Why:</strong> ", out);
		nt_escape_xml(out, nt_label_oneline(why, line, sizeof(line)));
		fputs(".</p>\n<p><strong>Fix:</strong> ", out);
		nt_escape_xml(out, fix);
		fputs(".</p>\n", out);
	}
	if (!any)
		fputs("<h2>Why</h2>\n<p>No round stalled: nothing held the body until a delayed "
		      "ACK.</p>\n",
		      out);
}

/*
 * The page opens with the summary, known at the end: each run's text
 * timeline goes to a spool file meanwhile (its offsets kept), and the round
 * each diagram shows is kept.
 */
struct html_doc {
	struct nt_pick *picks;
	FILE *text;
	long *text_from;
	long *text_to;
};

static const struct nt_render_opts plain_text = { .color = false, .summary_only = false };

static int timelines(FILE *out, const struct nt_run *runs, unsigned n_runs,
		     const struct html_doc *d)
{
	fputs("<h2>Timelines</h2>\n", out);
	for (unsigned i = 0; i < n_runs; i++) {
		int ret;

		fputs("<details open>\n<summary>variant <code>", out);
		nt_escape_xml(out, runs[i].cfg.variant);
		fputs("</code></summary>\n<pre>", out);
		ret = nt_spool_copy(d->text, d->text_from[i], d->text_to[i], out, true);
		if (ret < 0)
			return ret;
		fputs("</pre>\n</details>\n", out);
	}
	return 0;
}

static void legend(FILE *out)
{
	fputs("<h2>Verdicts</h2>\n<dl>\n"
	      "<dt>coalesced</dt><dd>header and body left in one segment (one write, writev, "
	      "cork).</dd>\n"
	      "<dt>unheld</dt><dd>the body left before the header&#8217;s ACK: nothing held it "
	      "(TCP_NODELAY, a full-MSS body).</dd>\n"
	      "<dt>held</dt><dd>header &#8594; pure ACK &#8594; body, the ACK prompt: Nagle held "
	      "the body, the ACK came at once.</dd>\n"
	      "<dt>stalled</dt><dd>header &#8594; pure ACK &#8594; body with the header&#8594;ACK "
	      "gap at or above the threshold: Nagle held the body until the delayed-ACK timer "
	      "fired.</dd>\n"
	      "<dt>incomplete</dt><dd>the round was not seen in full.</dd>\n</dl>\n",
	      out);
}

static int html_open(struct nt_renderer *r)
{
	struct html_doc *d = calloc(1, sizeof(*d));

	r->state = d;
	if (!d)
		return -ENOMEM;
	d->picks = nt_picks_new(r->n_runs);
	d->text_from = calloc(r->n_runs, sizeof(*d->text_from));
	d->text_to = calloc(r->n_runs, sizeof(*d->text_to));
	if (!d->picks || !d->text_from || !d->text_to)
		return -ENOMEM;
	d->text = nt_spool_new();
	return d->text ? 0 : -errno;
}

static void html_close(struct nt_renderer *r)
{
	struct html_doc *d = r->state;

	if (!d)
		return;
	nt_picks_free(d->picks, r->n_runs);
	free(d->text_from);
	free(d->text_to);
	if (d->text)
		fclose(d->text);
	free(d);
}

static int html_begin(struct nt_renderer *r, const struct nt_run *run,
		      const struct nt_round_view *hs)
{
	struct html_doc *d = r->state;

	if (r->run >= r->n_runs)
		return -EINVAL;
	d->text_from[r->run] = ftell(d->text);
	nt_text_begin(d->text, run, hs, &plain_text);
	return ferror(d->text) ? -EIO : 0;
}

static int html_round(struct nt_renderer *r, const struct nt_run *run,
		      const struct nt_round_view *rv)
{
	struct html_doc *d = r->state;

	nt_text_round(d->text, run, rv, &plain_text);
	if (ferror(d->text))
		return -EIO;
	return nt_picks_offer(d->picks, r->n_runs, r->run, rv);
}

static int html_end(struct nt_renderer *r, const struct nt_run *run, const struct nt_round_view *td)
{
	struct html_doc *d = r->state;

	nt_text_end(d->text, run, td, &plain_text);
	d->text_to[r->run] = ftell(d->text);
	return ferror(d->text) ? -EIO : 0;
}

static int html_finish(struct nt_renderer *r, const struct nt_run *runs, unsigned n_runs)
{
	const struct html_doc *d = r->state;
	FILE *out = r->out;
	const struct nt_run *first;
	int ret;

	if (!n_runs)
		return 0;
	first = &runs[0];
	if (n_runs == 1) {
		char title[96];

		snprintf(title, sizeof(title), "nagle-trace: %s", first->cfg.variant);
		nt_html_begin(out, title, "nagle-trace");
	} else {
		nt_html_begin(out, "nagle-trace", "nagle-trace");
	}
	{
		fputs("<p>Linux ", out);
		nt_escape_xml(out, first->cfg.kernel);
		fprintf(out,
			", write-write-read: header %u B + body %u B, reply %u B, %u rounds per "
			"variant; client ",
			first->cfg.shape.header_bytes, first->cfg.shape.body_bytes,
			first->cfg.shape.reply_bytes, first->cfg.shape.rounds);
		nt_escape_xml(out, first->cfg.client_addr);
		fputs(", target ", out);
		nt_escape_xml(out, first->cfg.target_addr);
		fputs(", captured at the client.</p>\n", out);
	}
	fputs("<h2>Summary</h2>\n", out);
	summary_table(out, runs, n_runs);
	fputs("<h2>Ladder diagram</h2>\n<p>One round per variant: the first stalled round, else "
	      "the last. Time flows down; gaps of 1 ms or more are drawn as marked breaks.</p>\n"
	      "<div class=\"diagram\">\n",
	      out);
	ret = nt_svg_write(out, runs, d->picks, n_runs, r->opts.compare, false);
	if (ret < 0)
		return ret;
	fputs("</div>\n", out);
	explanations(out, runs, n_runs);
	ret = timelines(out, runs, n_runs, d);
	if (ret < 0)
		return ret;
	legend(out);
	return nt_html_end(out);
}

const struct nt_trace_doc nt_html_trace = {
	.open = html_open,
	.begin = html_begin,
	.round = html_round,
	.end = html_end,
	.finish = html_finish,
	.close = html_close,
};
