// SPDX-License-Identifier: MIT
/*
 * html.c - one self-contained page for a classroom or an incident: the
 * lesson (nt/render/lesson.h: each variant's rounds stepped through on the
 * ladder, a strip of every round), then the summary table, the why and the
 * fix, the text timelines in <pre>, and a legend of the verdicts.
 *
 * Self-contained means no external anything: no script, stylesheet, font or
 * image is referenced; the style is inline in one <style> element and the
 * lesson's script inline, so the file can be mailed, attached or opened
 * offline.
 *
 * Memory stays flat: the figures of each variant's first
 * NT_LESSON_ROUNDS_MAX rounds, the strip's cells and the text timelines go
 * to spool files as the rounds come; only the picked round (struct nt_pick)
 * is kept, and drawn too when it is past the cap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nt/model/predict_words.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/html_page.h"
#include "nt/render/labels.h"
#include "nt/render/lesson.h"
#include "nt/render/pick.h"
#include "nt/render/render.h"
#include "nt/render/spool.h"
#include "nt/render/svg.h"
#include "nt/render/why.h"

static void summary_table(FILE *out, const struct nt_record *runs, unsigned n_runs)
{
	fputs("<table>\n<tr><th>variant</th><th>rounds</th><th>verdicts</th><th>p50 RTT</th>"
	      "<th>p90 RTT</th><th>p99 RTT</th><th>max RTT</th><th>expectation</th></tr>\n",
	      out);
	for (unsigned i = 0; i < n_runs; i++) {
		const struct nt_record *run = &runs[i];
		const struct nt_summary *s = &run->summary;
		char v[128], p50[32], p90[32], p99[32], max[32];
		char reason[NT_LABEL_EXPECTATION_LEN];

		fputs("<tr><td><code>", out);
		nt_escape_xml(out, run->cfg.variant);
		fprintf(out, "</code></td><td class=\"num\">%u</td><td%s>", s->rounds,
			s->verdicts[NT_VERDICT_STALLED] ? " class=\"stalled\"" : "");
		nt_escape_xml(out, nt_label_verdicts(s, v, sizeof(v)));
		fprintf(out,
			"</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td><td class=\"num\">%s</td>",
			nt_fmt_ms(s->rtt_p50_ns, p50, sizeof(p50)),
			nt_fmt_ms(s->rtt_p90_ns, p90, sizeof(p90)),
			nt_fmt_ms(s->rtt_p99_ns, p99, sizeof(p99)),
			nt_fmt_ms(s->rtt_max_ns, max, sizeof(max)));
		fprintf(out, "<td%s>%s: %s", run->expectation_met ? "" : " class=\"notmet\"",
			nt_expect_name(run->cfg.expect), run->expectation_met ? "met" : "NOT met");
		if (!run->expectation_met) {
			fputs(" (", out);
			nt_escape_xml(out, nt_label_expectation(&run->expectation_why, reason,
								sizeof(reason)));
			fputc(')', out);
		}
		fprintf(out, "%s</td></tr>\n", run->interrupted ? ", interrupted" : "");
	}
	fputs("</table>\n", out);
}

/* The model's legend line (docs/model.md): how it fared, and this variant's why. */
static void model_legend(FILE *out, const struct nt_record *run)
{
	struct nt_predict_words words;
	char line[256];

	if (!run->predicting)
		return;
	fputs("<p class=\"nt-model\"><strong>Model:</strong> ", out);
	nt_escape_xml(out, nt_why_model_line(run, line, sizeof(line)));
	fputs(".</p>\n<p class=\"nt-model\"><strong>This variant:</strong> ", out);
	nt_escape_xml(out, nt_predict_words(&run->fix, &words));
	fputs(" (<code>", out);
	nt_escape_xml(out, nt_predict_rule_name(run->fix.rule));
	fputs("</code>).</p>\n", out);
}

static void explanations(FILE *out, const struct nt_record *runs, unsigned n_runs)
{
	bool any = false;

	for (unsigned i = 0; i < n_runs; i++) {
		const char *why, *delayed, *fix;
		char line[512];

		nt_render_explain(&runs[i], &why, &delayed, &fix);
		if (!why && !runs[i].predicting)
			continue;
		if (!any)
			fputs("<h2>Why, and the fix</h2>\n", out);
		any = true;
		if (n_runs > 1) {
			fputs("<h3><code>", out);
			nt_escape_xml(out, runs[i].cfg.variant);
			fputs("</code></h3>\n", out);
		}
		if (why) {
			const struct nt_summary *s = &runs[i].summary;

			fputs("<p><strong>Why:</strong> ", out);
			nt_escape_xml(out, why);
			fputs(", and ", out);
			nt_escape_xml(out, delayed);
			if (s->verdicts[NT_VERDICT_STALLED] &&
			    nt_label_stall_cost(&runs[i].cfg, s->stall_min_ns, s->stall_max_ns,
						line, sizeof(line))[0]) {
				fputs(".</p>\n<p><strong>Stall cost:</strong> ", out);
				nt_escape_xml(out, line);
			}
			fputs(".</p>\n<p><strong>Fix:</strong> ", out);
			nt_escape_xml(out, fix);
			fputs(".</p>\n", out);
		}
		model_legend(out, &runs[i]);
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
	FILE *figs;
	long *figs_from;
	long *figs_to;
	FILE *cells;
	struct nt_lesson_strip *strips;
};

static const struct nt_render_opts plain_text = { .color = false, .summary_only = false };

static int timelines(FILE *out, const struct nt_record *runs, unsigned n_runs,
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
	d->figs_from = calloc(r->n_runs, sizeof(*d->figs_from));
	d->figs_to = calloc(r->n_runs, sizeof(*d->figs_to));
	d->strips = calloc(r->n_runs, sizeof(*d->strips));
	if (!d->picks || !d->text_from || !d->text_to || !d->figs_from || !d->figs_to || !d->strips)
		return -ENOMEM;
	d->text = nt_spool_new();
	if (d->text)
		d->figs = nt_spool_new();
	if (d->figs)
		d->cells = nt_spool_new();
	return d->cells ? 0 : -errno;
}

static void html_close(struct nt_renderer *r)
{
	struct html_doc *d = r->state;

	if (!d)
		return;
	nt_picks_free(d->picks, r->n_runs);
	free(d->text_from);
	free(d->text_to);
	free(d->figs_from);
	free(d->figs_to);
	free(d->strips);
	if (d->text)
		fclose(d->text);
	if (d->figs)
		fclose(d->figs);
	if (d->cells)
		fclose(d->cells);
	free(d);
}

static int html_begin(struct nt_renderer *r, const struct nt_record *run,
		      const struct nt_round_view *hs)
{
	struct html_doc *d = r->state;

	if (r->run >= r->n_runs)
		return -EINVAL;
	d->text_from[r->run] = ftell(d->text);
	d->figs_from[r->run] = ftell(d->figs);
	nt_lesson_strip_start(&d->strips[r->run], d->cells, run->cfg.shape.rounds);
	nt_text_begin(d->text, run, hs, &plain_text);
	return nt_spool_error(d->text);
}

/*
 * A step that failed on a spool: the spool's own error (EFBIG past `ulimit
 * -f`), not the -EIO the writers return for any stream with its error flag.
 */
static int spools_error(const struct html_doc *d, int ret)
{
	FILE *const spools[] = { d->text, d->figs, d->cells };

	for (size_t i = 0; i < sizeof(spools) / sizeof(spools[0]); i++)
		if (spools[i] && ferror(spools[i]))
			return nt_spool_error(spools[i]);
	return ret;
}

static int html_round(struct nt_renderer *r, const struct nt_record *run,
		      const struct nt_round_view *rv)
{
	struct html_doc *d = r->state;

	bool ladder = rv->round->index <= NT_LESSON_ROUNDS_MAX;
	int ret;

	nt_text_round(d->text, run, rv, &plain_text);
	if (ferror(d->text))
		return nt_spool_error(d->text);
	ret = nt_lesson_strip_add(&d->strips[r->run], rv->round->index, rv->round->verdict,
				  rv->round->rtt_ns, ladder);
	if (ret == 0 && ladder)
		ret = nt_lesson_live_round(d->figs, run, rv);
	if (ret < 0)
		return spools_error(d, ret);
	return nt_picks_offer(d->picks, r->n_runs, r->run, rv);
}

static int html_end(struct nt_renderer *r, const struct nt_record *run,
		    const struct nt_round_view *td)
{
	struct html_doc *d = r->state;

	nt_text_end(d->text, run, td, &plain_text);
	d->text_to[r->run] = ftell(d->text);
	d->figs_to[r->run] = ftell(d->figs);
	return nt_spool_error(d->text);
}

/* One variant's track: its figures, the picked round's when past the cap, its strip. */
static int track(FILE *out, const struct nt_record *run, struct html_doc *d, unsigned i)
{
	struct nt_round_view rv;
	bool extra = nt_pick_get(&d->picks[i], &rv) && rv.round->index > NT_LESSON_ROUNDS_MAX;
	char noladder[160], label[160], v[128];
	int ret;

	snprintf(noladder, sizeof(noladder),
		 "No ladder for this round: the page keeps rounds 1-%u%s; the strip shows every "
		 "round.",
		 NT_LESSON_ROUNDS_MAX, extra ? " and the one the summary shows" : "");
	snprintf(label, sizeof(label), "%s (%s; %.2f packets a request)", run->cfg.variant,
		 nt_label_verdicts(&run->summary, v, sizeof(v)),
		 nt_summary_segments_per_request(&run->summary));
	nt_lesson_track_begin(out, run->cfg.variant, label, run->summary.rounds, "round", noladder);
	ret = nt_spool_copy(d->figs, d->figs_from[i], d->figs_to[i], out, false);
	if (ret == 0 && extra)
		ret = nt_lesson_live_round(out, run, &rv);
	if (ret == 0)
		ret = nt_lesson_strip_write(
			out, &d->strips[i],
			"Every round: bar height is the round trip (log scale), "
			"colour the verdict; a click opens the round.");
	nt_lesson_track_end(out);
	return ret;
}

static int lesson(FILE *out, const struct nt_record *runs, unsigned n_runs, struct html_doc *d,
		  bool compare)
{
	static const char *const verdicts[] = { "coalesced", "unheld", "held", "stalled", NULL };
	const char *names[64] = { 0 }, *labels[64] = { 0 };
	int ret = 0;

	for (unsigned i = 0; i < n_runs && i < 64; i++)
		names[i] = labels[i] = runs[i].cfg.variant;
	nt_lesson_bar(out, names, labels, n_runs < 64 ? n_runs : 64, "variant");
	/* --compare: the first two variants stepped together, round for round (lesson.js). */
	if (compare && n_runs >= 2) {
		fputs("<div id=\"nt-compare\" hidden data-a=\"", out);
		nt_escape_xml(out, runs[0].cfg.variant);
		fputs("\" data-b=\"", out);
		nt_escape_xml(out, runs[1].cfg.variant);
		fputs("\"></div>\n", out);
	}
	nt_lesson_stage_begin(out);
	for (unsigned i = 0; i < n_runs && !ret; i++)
		ret = track(out, &runs[i], d, i);
	nt_lesson_stage_end(out, verdicts);
	return ret;
}

/* The what-if panel, from each variant's knobs as run (runs the model did not take are left out). */
static int model_panel(FILE *out, const struct nt_record *runs, unsigned n_runs)
{
	struct nt_lesson_model_run m[64];
	unsigned n = 0;

	for (unsigned i = 0; i < n_runs && n < 64; i++) {
		if (!runs[i].predicting)
			continue;
		m[n].variant = runs[i].cfg.variant;
		m[n].label = runs[i].cfg.variant;
		m[n].knobs = &runs[i].predict.knobs;
		m[n].measured = true;
		n++;
	}
	return nt_lesson_model(out, m, n);
}

static void intro(FILE *out, const struct nt_record *first)
{
	fputs("<p class=\"nt-intro\">Linux ", out);
	nt_escape_xml(out, first->cfg.kernel);
	fprintf(out,
		", write-write-read: header %u B + body %u B, reply %u B, %u rounds per "
		"variant; client ",
		first->cfg.shape.header_bytes, first->cfg.shape.body_bytes,
		first->cfg.shape.reply_bytes, first->cfg.shape.rounds);
	nt_escape_xml(out, first->cfg.client_addr);
	fputs(", target ", out);
	nt_escape_xml(out, first->cfg.target_addr);
	if (first->cfg.rtt_ns > 0) {
		char path[128];

		fputs("; ", out);
		nt_escape_xml(out, nt_label_path(&first->cfg, path, sizeof(path)));
	} else {
		fputs(", captured at the client", out);
	}
	fputs(". Step through a round on its ladder; time flows down, "
	      "gaps of 1 ms or more are drawn as marked breaks.</p>\n",
	      out);
}

static int html_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs)
{
	struct html_doc *d = r->state;
	FILE *out = r->out;
	unsigned pick;
	struct nt_round_view rv;
	char title[96];
	int ret;

	if (!n_runs)
		return 0;
	pick = nt_pick_first_stalling(runs, n_runs);
	snprintf(title, sizeof(title), "nagle-trace: %s",
		 n_runs == 1 ? runs[0].cfg.variant : "variants compared");
	nt_html_begin(out, title, "nagle-trace", runs[pick].cfg.variant,
		      nt_pick_get(&d->picks[pick], &rv) ? rv.round->index : 1);
	intro(out, &runs[0]);
	ret = lesson(out, runs, n_runs, d, r->opts.compare);
	if (ret == 0)
		ret = model_panel(out, runs, n_runs);
	if (ret < 0)
		return ret;
	fputs("<div class=\"nt-rest\">\n<h2>Summary</h2>\n<div class=\"nt-wide\">\n", out);
	summary_table(out, runs, n_runs);
	fputs("</div>\n", out);
	if (r->opts.compare) {
		fputs("<h2>Side by side</h2>\n<p>The round each variant shows, on one time axis "
		      "(the lesson above steps the first two together, round for round: "
		      "<em>Side by side</em>, key s).</p>\n<div class=\"nt-sbs\">\n",
		      out);
		ret = nt_svg_write(out, runs, d->picks, n_runs, true, false);
		if (ret < 0)
			return ret;
		fputs("</div>\n", out);
	}
	explanations(out, runs, n_runs);
	ret = timelines(out, runs, n_runs, d);
	if (ret < 0)
		return ret;
	legend(out);
	fputs("</div>\n", out);
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
