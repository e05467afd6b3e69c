// SPDX-License-Identifier: MIT
/*
 * analysis_html.c - the analyze report as one self-contained page: the
 * summary, the lesson (nt/render/lesson.h) with one track per flow that
 * stalled (the worst first open), each stepping through its first stall on
 * the ladder with a strip of all its stalls, then the table of flows, the
 * why and the fix, and the whole text report in <pre>.
 *
 * The page's shape is the live page's: tracks of rounds, rounds of steps.
 * Here a track is a flow and a "round" a stall episode; the model keeps the
 * segments of a flow's first stall only, so that one has a ladder.
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
#include <sys/types.h>

#include "nt/render/analysis.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/html_page.h"
#include "nt/render/run.h"
#include "nt/render/labels.h"
#include "nt/render/lesson.h"
#include "nt/render/pick.h"
#include "nt/render/spool.h"
#include "analysis_rows.h"
#include "out_buf.h"

/* Flows a page gives a track of their own; the table lists every one. */
#define LESSON_FLOWS_MAX 16
#define ESCAPE_BUF_BYTES ((size_t)64 * 1024)

static void summary(FILE *out, const struct nt_analysis *an, const struct nt_analysis_view *v)
{
	const struct nt_analysis_summary *s = &an->sum;
	char tot[128], full[160];

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
	if (s->evicted_full)
		fprintf(out,
			"<p><span class=\"notmet\">Incomplete: %s (raise <code>--max-flows</code>)."
			"</span></p>\n",
			nt_label_table_full(an, full, sizeof(full)));
}

/* Flow @r's row: the time it lost in red when it is the worst. */
static void row(struct out_buf *b, const struct nt_flow_result *r, const struct flow_cells *cell,
		bool worst)
{
	out_buf_str(b, "<tr><td><code>");
	out_buf_xml(b, cell->client);
	out_buf_str(b, " &#8594; ");
	out_buf_xml(b, cell->target);
	out_buf_str_u64(b, "</code></td><td class=\"num\">", r->stalls);
	out_buf_str(b, worst ? "</td><td class=\"num stalled\">" : "</td><td class=\"num\">");
	out_buf_str(b, cell->lost);
	out_buf_str(b, " ms</td><td class=\"num\">");
	out_buf_str(b, cell->p50);
	out_buf_str(b, " ms</td><td class=\"num\">");
	out_buf_str(b, cell->max);
	out_buf_str_u64(b, " ms</td><td class=\"num\">", r->by_delack[NT_DELACK_MIN]);
	out_buf_str_u64(b, "</td><td class=\"num\">", r->by_delack[NT_DELACK_MAX]);
	out_buf_str_u64(b, "</td><td class=\"num\">", r->by_delack[NT_DELACK_OTHER]);
	out_buf_str(b, "</td><td>");
	out_buf_xml(b, cell->first);
	out_buf_str(b, "</td><td>");
	out_buf_xml(b, cell->last);
	out_buf_str(b, "</td></tr>\n");
}

static int flows_table(FILE *out, const struct nt_analysis *an, int worst, unsigned workers)
{
	int ret;

	fputs("<div class=\"nt-wide\">\n<table>\n<tr><th>flow (client &#8594; "
	      "target)</th><th>stalls</th><th>lost</th>"
	      "<th>p50</th><th>max</th><th>delack_min</th><th>delack_max</th><th>other</th>"
	      "<th>first stall</th><th>last stall</th></tr>\n",
	      out);
	ret = analysis_rows_write(out, an, worst, workers, row);
	if (ret < 0)
		return ret;
	fputs("</table>\n</div>\n<p>In red: the worst flow, the one that lost the most time; "
	      "the lesson opens on its first stall.</p>\n",
	      out);
	return 0;
}

/* The escaping stream's write: @size bytes of text to the page, escaped. */
static ssize_t escape_write(void *cookie, const char *buf, size_t size)
{
	FILE *out = cookie;

	nt_escape_xml_n(out, buf, size);
	return ferror(out) ? 0 : (ssize_t)size;
}

/*
 * The text report in <pre>, written through a stream that escapes it on its
 * way to the page: at 10,000 flows the report is 15 MB, which a memory
 * stream grew in new pages, zeroed and copied (a fifth of the run). A
 * failure leaves part of the page written: the caller drops the document.
 */
static int report(FILE *out, const struct nt_analysis *an, const struct nt_analysis_view *v)
{
	static const cookie_io_functions_t io = { .write = escape_write };
	/* Pieces of 64 KiB to escape, not stdio's 4 KiB: glibc takes the size only with a buffer. */
	char *buf = malloc(ESCAPE_BUF_BYTES);
	FILE *fp = buf ? fopencookie(out, "w", io) : NULL;
	int ret;

	if (!fp) {
		free(buf);
		return -ENOMEM;
	}
	setvbuf(fp, buf, _IOFBF, ESCAPE_BUF_BYTES);
	fputs("<h2>Report</h2>\n<pre>", out);
	ret = nt_render_analysis_text(fp, an, v);
	if (fclose(fp) != 0 && !ret)
		ret = -EIO;
	free(buf);
	fputs("</pre>\n", out);
	return ret < 0 ? ret : 0;
}

static void step_why(const struct nt_stall_episode *ep, const struct nt_tl_seg *sg, char *buf,
		     size_t len)
{
	char d[NT_FMT_MS_LEN];

	buf[0] = '\0';
	if (sg->frame == ep->held_frame)
		snprintf(buf, len,
			 "A sent %u B, then nothing: its next small segment waits for this "
			 "one's ACK (Nagle, tcp_nagle_check).",
			 ep->held_len);
	else if (sg->frame == ep->ack_frame)
		snprintf(buf, len,
			 "B's pure ACK came %s ms after the held segment (%s): B delayed it.",
			 nt_fmt_ms_trunc(ep->ack_delay_ns, d, sizeof(d)),
			 nt_delack_name(ep->delack));
	else if (sg->frame == ep->release_frame)
		snprintf(buf, len, "The ACK released A's next data: it followed %s ms later.",
			 nt_fmt_ms_trunc(ep->release_gap_ns, d, sizeof(d)));
}

static long ack_step(const struct nt_flow_result *r)
{
	for (unsigned i = 0; i < r->n_timeline; i++)
		if (r->timeline[i].frame == r->first.ack_frame)
			return (long)i + 1;
	return 0;
}

int nt_lesson_analysis_flow(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r)
{
	const struct nt_stall_episode *ep = &r->first;
	const char *why, *fix;
	char what[160], because[300], flags[48], rel[NT_FMT_MS_LEN];
	int ret;

	nt_lesson_figure_begin(out, 1, "stalled", ack_step(r), r->n_timeline, -1);
	ret = nt_analysis_svg_flow(out, an, r, false, true);
	if (ret < 0)
		return ret;
	nt_lesson_steps_begin(out);
	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct nt_tl_seg *sg = &r->timeline[i];
		int64_t dt = sg->t_ns - ep->held_t_ns;

		snprintf(what, sizeof(what),
			 "%s: %s, seq %" PRIu32 ", ack %" PRIu32 " (%s%s ms, frame %" PRIu64 ")",
			 sg->dir == ep->dir ? "A \u2192 B" : "B \u2192 A",
			 nt_label_tcp(sg->flags, sg->len, flags, sizeof(flags)), sg->seq_rel,
			 sg->ack_rel, dt < 0 ? "" : "+", nt_fmt_ms_trunc(dt, rel, sizeof(rel)),
			 sg->frame);
		step_why(ep, sg, because, sizeof(because));
		nt_lesson_step(out, i + 1, sg->t_ns - r->timeline[0].t_ns, what, because, NULL,
			       NULL);
	}
	nt_lesson_notes_begin(out);
	nt_analysis_explain(an, &why, &fix);
	fprintf(out, "<p><strong>%s ms lost</strong> in this stall.</p>\n",
		nt_fmt_ms_trunc(ep->stall_ns, rel, sizeof(rel)));
	if (why) {
		fputs("<p><strong>Why:</strong> ", out);
		nt_escape_xml(out, why);
		fputs(".</p>\n<p><strong>Fix:</strong> ", out);
		nt_escape_xml(out, fix);
		fputs(".</p>\n", out);
	}
	return nt_lesson_figure_end(out);
}

/* The durations of a flow's stalls, in order: the batches on the heap, then the recent ones. */
static int64_t stall_at(const struct nt_flow_result *r, uint32_t i)
{
	uint32_t batched = r->stalls - r->stalls % NT_STALL_BATCH;

	return i < batched ? r->stall_ns[i] : r->recent_ns[i - batched];
}

static int flow_track(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r,
		      unsigned k, FILE *cells)
{
	struct nt_lesson_strip strip;
	char name[16], label[160], c[64], t[64];
	int ret = 0;

	snprintf(name, sizeof(name), "flow%u", k + 1);
	snprintf(label, sizeof(label), "flow %u: %s \u2192 %s", k + 1,
		 nt_fmt_endpoint(r->family, r->client_addr, r->client_port, c, sizeof(c)),
		 nt_fmt_endpoint(r->family, r->target_addr, r->target_port, t, sizeof(t)));
	nt_lesson_track_begin(out, name, label, r->stalls, "stall",
			      "No ladder for this stall: analyze keeps the segments of each "
			      "flow's first stall only.");
	ret = nt_lesson_analysis_flow(out, an, r);
	nt_lesson_strip_start(&strip, cells, r->stalls);
	for (uint32_t i = 0; i < r->stalls && !ret; i++)
		ret = nt_lesson_strip_add(&strip, i + 1, NT_VERDICT_STALLED, stall_at(r, i), !i);
	if (!ret)
		ret = nt_lesson_strip_write(out, &strip,
					    "Every stall of this flow: bar height is the time "
					    "lost (log scale).");
	nt_lesson_track_end(out);
	return ret;
}

/* The lesson: the worst flow first (the page opens on it), then the others in order. */
static int lesson(FILE *out, const struct nt_analysis *an, int worst)
{
	static const char *const verdicts[] = { "stalled", "held", NULL };
	const char *names[LESSON_FLOWS_MAX] = { 0 }, *labels[LESSON_FLOWS_MAX] = { 0 };
	char buf[LESSON_FLOWS_MAX][16];
	unsigned n = an->n_flows < LESSON_FLOWS_MAX ? (unsigned)an->n_flows : LESSON_FLOWS_MAX;
	FILE *cells = nt_spool_new();
	int ret = 0;

	if (!cells)
		return -errno;
	for (unsigned k = 0; k < n; k++) {
		snprintf(buf[k], sizeof(buf[k]), "flow%u", k + 1);
		names[k] = labels[k] = buf[k];
	}
	nt_lesson_bar(out, names, labels, n, "flow");
	nt_lesson_stage_begin(out);
	for (unsigned k = 0; k < n && !ret; k++)
		ret = flow_track(out, an, an->flows[k], k, cells);
	nt_lesson_stage_end(out, verdicts);
	fclose(cells);
	if (an->n_flows > n)
		fprintf(out,
			"<p class=\"nt-after\">The lesson holds the first %u flows with stalls; "
			"the table lists "
			"all %zu.</p>\n",
			n, an->n_flows);
	(void)worst;
	return ret;
}

int nt_render_analysis_html(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v)
{
	int worst = nt_pick_worst_flow(an);
	const char *why, *fix;
	char th[32], first[16], title[64];
	int ret;

	snprintf(first, sizeof(first), "flow%d", worst + 1);
	snprintf(title, sizeof(title), "%s: %s", nt_analysis_command(v),
		 worst < 0 ? "no stalls found" : "stalls found");
	nt_html_begin(out, title, nt_analysis_command(v), worst < 0 ? "" : first, 1);
	fputs("<div class=\"nt-intro\">", out);
	if (v->run)
		nt_run_html_header(out, v->run);
	summary(out, an, v);
	fputs("</div>\n", out);
	if (worst < 0) {
		fprintf(out,
			"<h2>No stalls found</h2>\n<p>No small write waited for a delayed ACK: no "
			"sub-MSS segment was acknowledged by a pure ACK %s ms or more later with "
			"the sender&#8217;s next data right behind that ACK.</p>\n",
			nt_fmt_ms_trunc(an->params.stall.threshold_ns, th, sizeof(th)));
	} else {
		ret = lesson(out, an, worst);
		if (ret < 0)
			return ret;
		fputs("<div class=\"nt-rest\">\n<h2>Flows with stalls</h2>\n", out);
		ret = flows_table(out, an, worst, v->workers);
		if (ret < 0)
			return ret;
		nt_analysis_explain(an, &why, &fix);
		fputs("<h2>Why, and the fix</h2>\n<p><strong>Why:</strong> ", out);
		nt_escape_xml(out, why);
		fputs(".</p>\n<p><strong>Fix:</strong> ", out);
		nt_escape_xml(out, fix);
		fputs(".</p>\n</div>\n", out);
	}
	fputs("<div class=\"nt-rest\">\n", out);
	ret = report(out, an, v);
	if (ret < 0)
		return ret;
	fputs("</div>\n", out);
	return nt_html_end(out);
}
