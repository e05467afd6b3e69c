// SPDX-License-Identifier: MIT
/*
 * incident.c - `nagle-trace run`'s incident report (see nt/render/run.h):
 * what a postmortem needs, in Markdown that pastes into a GitHub issue as it
 * is and in one self-contained HTML page, for one fix or several.
 *
 * The order is the reader's, not the tool's: the summary and the
 * conclusion first; the before/after table; the request -> answer latency
 * distribution of each fix as a picture (a Mermaid bar chart in Markdown, an
 * SVG the size of a slide in HTML); which requests stalled (the first
 * INCIDENT_STALLS_MAX per fix, each with its request's number, start and
 * request -> answer time, and its cost: run_stalled.c); the target's sockets as
 * sampled (ping-pong, ato, quick-ACK budget); the first stall's ladder; and
 * the command that reproduces the run. The HTML page loads nothing: its
 * style is inline and it has no script.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/conclusion.h"
#include "nt/render/analysis.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/ladder.h"
#include "nt/render/pick.h"
#include "nt/render/run.h"
#include "nt/render/table.h"

/* Stalls listed per fix; the JSON has every one of them. */
#define INCIDENT_STALLS_MAX 10
/* Target sockets listed per fix. */
#define INCIDENT_SOCKETS_MAX 8
/* The latency picture: a 16:9 slide. */
#define SLIDE_W 960
#define SLIDE_H 540

/* The latency buckets, in ns: [edge[i], edge[i + 1]); the last is open. */
static const int64_t bucket_edge_ns[] = { 0,	    100000,   1000000,	 10000000,
					  35000000, 50000000, 100000000, 250000000 };
static const char *const bucket_names[] = { "<0.1",  "0.1-1",  "1-10",	  "10-35",
					    "35-50", "50-100", "100-250", ">=250" };
#define BUCKETS (sizeof(bucket_edge_ns) / sizeof(bucket_edge_ns[0]))

static void buckets_of(const struct nt_turns *t, uint64_t counts[BUCKETS], uint64_t *max)
{
	size_t n = t->n < NT_TURNS_KEPT ? (size_t)t->n : NT_TURNS_KEPT;

	memset(counts, 0, BUCKETS * sizeof(counts[0]));
	*max = 0;
	for (size_t i = 0; t->gap_ns && i < n; i++) {
		size_t b = BUCKETS - 1;

		while (b > 0 && t->gap_ns[i] < bucket_edge_ns[b])
			b--;
		counts[b]++;
	}
	for (size_t b = 0; b < BUCKETS; b++)
		*max = counts[b] > *max ? counts[b] : *max;
}

/* The run without a fix (`none`), else the first; its worst flow, or -1. */
static size_t before_of(const struct nt_run_report *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(runs[i].ri->fix, "none") == 0)
			return i;
	return 0;
}

static enum nt_hold_side held_of(const struct nt_run_report *r)
{
	const struct nt_analysis_summary *s = &r->an->sum;
	struct nt_conclusion_row row = { .fix = r->ri->fix,
					 .stalls = s->stalls,
					 .held_client = s->by_dir[0],
					 .held_target = s->by_dir[1] };

	return nt_hold_side_of(&row);
}

/* One sentence: how many stalled, how long, where the data was held. */
static void summary_sentence(FILE *out, const struct nt_run_report *r, const char *code_open,
			     const char *code_close)
{
	const struct nt_runinfo *ri = r->ri;
	const struct nt_analysis_summary *s = &r->an->sum;
	char mean[NT_FMT_MS_LEN], lost[64], p50[NT_FMT_MS_LEN];
	enum nt_hold_side held = held_of(r);

	if (!s->stalls) {
		fprintf(out,
			"no Nagle/delayed-ACK stall in %" PRIu64 " request%s between %s%s%s and "
			"%s%s%s (fix %s%s%s)",
			ri->turns.n, nt_plural(ri->turns.n), code_open, ri->client.cmd, code_close,
			code_open, ri->target.cmd, code_close, code_open, ri->fix, code_close);
		return;
	}
	fprintf(out,
		"%" PRIu64 " stall%s of %s ms on average in %" PRIu64 " request%s (%s ms lost) "
		"between the client %s%s%s and the target %s%s%s: each time %s's small write "
		"waited for the other side's delayed ACK (Nagle's algorithm, tcp_nagle_check(), "
		"against a delayed ACK, __tcp_ack_snd_check()); request -> answer p50 %s ms",
		s->stalls, nt_plural(s->stalls),
		nt_fmt_ms_trunc(s->total_stall_ns / (int64_t)s->stalls, mean, sizeof(mean)),
		ri->turns.n, nt_plural(ri->turns.n),
		nt_label_lost(s->stalled_wall_min_ns, s->stalled_wall_ns, lost, sizeof(lost)),
		code_open, ri->client.cmd, code_close, code_open, ri->target.cmd, code_close,
		held == NT_HOLD_BOTH ? "each side" : nt_hold_side_name(held),
		ri->turns.p50_ns >= 0 ? nt_fmt_ms_trunc(ri->turns.p50_ns, p50, sizeof(p50)) : "-");
}

static const char *ms_or_dash(int64_t ns, char *buf, size_t len)
{
	return ns < 0 ? "-" : nt_fmt_ms_trunc(ns, buf, len);
}

static const char *ppr_text(const struct nt_run_report *r, char *buf, size_t len)
{
	if (!r->ri->turns.n)
		return "-";
	snprintf(buf, len, "%.2f", (double)r->an->sum.packets / (double)r->ri->turns.n);
	return buf;
}

static const char *held_text(const struct nt_run_report *r, char *buf, size_t len)
{
	const struct nt_analysis_summary *s = &r->an->sum;

	if (!s->stalls)
		return "-";
	snprintf(buf, len, "%s (client %" PRIu64 ", target %" PRIu64 ")",
		 nt_hold_side_name(held_of(r)), s->by_dir[0], s->by_dir[1]);
	return buf;
}

/* The before/after table: one row a fix. */
static const struct nt_table_col before_after_cols[] = {
	{ "fix", false },
	{ "stalls", true },
	{ "held at", false },
	{ "request → answer p50", true },
	{ "p90", true },
	{ "p99", true },
	{ "packets per request", true },
	{ "client", false },
};

static void before_after(FILE *out, const struct nt_run_report *runs, size_t n,
			 enum nt_table_kind kind)
{
	struct nt_table t = NT_TABLE_OF(out, kind, before_after_cols);

	nt_table_head(&t);
	for (size_t i = 0; i < n; i++) {
		const struct nt_runinfo *ri = runs[i].ri;
		char a[NT_FMT_MS_LEN], b[NT_FMT_MS_LEN], c[NT_FMT_MS_LEN], h[96], p[32];

		nt_table_code(&t, ri->fix);
		nt_table_cellf(&t, "%" PRIu64, runs[i].an->sum.stalls);
		nt_table_cell(&t, held_text(&runs[i], h, sizeof(h)));
		nt_table_cellf(&t, "%s ms", ms_or_dash(ri->turns.p50_ns, a, sizeof(a)));
		nt_table_cellf(&t, "%s ms", ms_or_dash(ri->turns.p90_ns, b, sizeof(b)));
		nt_table_cellf(&t, "%s ms", ms_or_dash(ri->turns.p99_ns, c, sizeof(c)));
		nt_table_cell(&t, ppr_text(&runs[i], p, sizeof(p)));
		nt_table_cell(&t, nt_run_proc_failed(&ri->client) || !ri->complete
					  ? "failed or cut short"
					  : "exit 0");
	}
	nt_table_end(&t);
}

/* The target's sockets as sampled: the first INCIDENT_SOCKETS_MAX of a fix. */
static const struct nt_table_col sockets_cols[] = {
	{ "connection", false },	   { "readings", true }, { "in ping-pong", true },
	{ "quick-ACK budget left", true }, { "ato ms", false },
};

static void sockets_table(FILE *out, const struct nt_runinfo *ri, enum nt_table_kind kind)
{
	struct nt_table t = NT_TABLE_OF(out, kind, sockets_cols);

	nt_table_head(&t);
	for (size_t i = 0; i < ri->n_socks && i < INCIDENT_SOCKETS_MAX; i++) {
		const struct nt_sock_samples *s = &ri->socks[i];
		char ep[NT_FMT_ENDPOINT_LEN], lo[NT_FMT_MS_LEN], hi[NT_FMT_MS_LEN];

		nt_table_cellf(
			&t, "%s %s port %u",
			nt_fmt_endpoint(s->family, s->client_addr, s->client_port, ep, sizeof(ep)),
			kind == NT_TABLE_HTML ? "→" : "->", s->target_port);
		nt_table_cellf(&t, "%u", s->samples);
		nt_table_cellf(&t, "%u", s->pingpong);
		nt_table_cellf(&t, "%u", s->quick);
		nt_table_cellf(&t, "%s%s%s", nt_fmt_ms_trunc(s->ato_min_ns, lo, sizeof(lo)),
			       s->ato_max_ns != s->ato_min_ns ? ".." : "",
			       s->ato_max_ns != s->ato_min_ns
				       ? nt_fmt_ms_trunc(s->ato_max_ns, hi, sizeof(hi))
				       : "");
	}
	nt_table_end(&t);
}

/* A fix's readings of the target's sockets: how many, how often, the table. */
static void sockets(FILE *out, const struct nt_run_report *r, enum nt_table_kind kind)
{
	const struct nt_runinfo *ri = r->ri;
	bool html = kind == NT_TABLE_HTML;
	char p[NT_FMT_MS_LEN];

	fputs(html ? "<p>" : "\n", out);
	nt_table_code_span(out, kind, ri->fix);
	fprintf(out, ": %" PRIu64 " reading%s, every %s ms while the client ran", ri->sample_reads,
		nt_plural(ri->sample_reads), nt_fmt_ms_trunc(ri->sample_period_ns, p, sizeof(p)));
	if (!ri->n_socks) {
		fputs(html ? "; no established socket was read</p>\n"
			   : "; no established socket was read.\n",
		      out);
		return;
	}
	fputs(html ? "</p>\n" : ".\n\n", out);
	sockets_table(out, ri, kind);
	if (strcmp(ri->fix, "quickack") != 0)
		return;
	fputs(html ? "<p>The route's " : "\nThe route's ", out);
	nt_table_code_span(out, kind, "quickack 1");
	fputs(" overrides ping-pong: tcp_in_quickack_mode() acknowledges at once for such a route "
	      "whatever the socket's mode.",
	      out);
	fputs(html ? "</p>\n" : "\n", out);
}

/* The report's parts that have a heading of their own. */
enum incident_part { PART_TABLE, PART_LATENCY, PART_STALLED, PART_SOCKETS, PART_COUNT };

/*
 * struct incident_format - how one format writes each part; the order of the
 * parts is incident_write()'s alone, so the two reports cannot drift apart.
 */
struct incident_format {
	int (*head)(FILE *out, const struct nt_run_report *runs, size_t n,
		    const struct nt_run_report *before);
	void (*section)(FILE *out, const char *title);
	enum nt_table_kind kind;
	const char *intro[PART_COUNT];
	int (*hidden)(FILE *out, const struct nt_run_report *r);
	void (*latency)(FILE *out, const struct nt_run_report *r);
	int (*first_stall)(FILE *out, const struct nt_run_report *before, int worst);
	void (*tail)(FILE *out, const struct nt_runinfo *ri);
};

/* ---- Markdown -------------------------------------------------------------------------- */

static void md_latency(FILE *out, const struct nt_run_report *r)
{
	uint64_t counts[BUCKETS], max;

	buckets_of(&r->ri->turns, counts, &max);
	fprintf(out, "\n```mermaid\nxychart-beta\n    title \"fix %s: request to answer, ms\"\n",
		r->ri->fix);
	fputs("    x-axis [", out);
	for (size_t b = 0; b < BUCKETS; b++)
		fprintf(out, "%s\"%s\"", b ? ", " : "", bucket_names[b]);
	fprintf(out, "]\n    y-axis \"requests\" 0 --> %" PRIu64 "\n    bar [", max ? max : 1);
	for (size_t b = 0; b < BUCKETS; b++)
		fprintf(out, "%s%" PRIu64, b ? ", " : "", counts[b]);
	fputs("]\n```\n", out);
}

static void md_reproduce(FILE *out, const struct nt_runinfo *ri)
{
	if (!ri->command_line)
		return;
	fputs("\n## Reproduce\n\n```sh\n", out);
	if (ri->uids_mapped == 1)
		fputs("unshare -Urn ", out);
	fprintf(out, "%s\n```\n", ri->command_line);
}

static int md_head(FILE *out, const struct nt_run_report *runs, size_t n,
		   const struct nt_run_report *b)
{
	fprintf(out,
		"# Incident: %" PRIu64 " Nagle/delayed-ACK stall%s in %" PRIu64 " request%s\n\n",
		b->an->sum.stalls, nt_plural(b->an->sum.stalls), b->ri->turns.n,
		nt_plural(b->ri->turns.n));
	fputs("**Summary:** ", out);
	summary_sentence(out, b, "`", "`");
	fprintf(out, "; Linux %s.\n\n", b->ri->kernel);
	if (n > 1) {
		fputs("**Conclusion:** ", out);
		nt_run_conclusion_text(out, runs, n, "`", "`");
		fputs(".\n", out);
	} else if (b->an->sum.stalls) {
		fprintf(out, "**Fix:** %s.\n", nt_hold_fix_advice(held_of(b)));
	}
	return 0;
}

static void md_section(FILE *out, const char *title)
{
	fprintf(out, "\n## %s\n", title);
}

static int md_hidden(FILE *out, const struct nt_run_report *r)
{
	nt_run_hidden_stalls(out, r, "- ", "`", "`");
	return 0;
}

static int md_first_stall(FILE *out, const struct nt_run_report *b, int worst)
{
	fprintf(out, "\n## The first stall, fix `%s`\n", b->ri->fix);
	nt_analysis_md_ladder(out, b->an->flows[worst]);
	return 0;
}

static const struct incident_format markdown_format = {
	.head = md_head,
	.section = md_section,
	.intro = {
		[PART_TABLE] = "\n",
		[PART_LATENCY] = "\nRequests per latency bucket (ms), from a request's first segment "
				 "to the answer's first, on the capture.\n\n",
		[PART_SOCKETS] = "\nFrom the target namespace's `/proc/net/tcp`: ping-pong mode (the "
				 "receiver delays every ACK, `__tcp_ack_snd_check()`), quick-ACK budget "
				 "left (`icsk_ack.quick`), and `ato`.\n",
	},
	.kind = NT_TABLE_MARKDOWN,
	.hidden = md_hidden,
	.latency = md_latency,
	.first_stall = md_first_stall,
	.tail = md_reproduce,
};

/* ---- HTML ------------------------------------------------------------------------------ */

static const char page_css[] =
	"body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:60em;padding:0 1em;"
	"color:#1f2328}\n"
	"h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #d0d7de}\n"
	"table{border-collapse:collapse;margin:.6em 0;display:block;overflow-x:auto;"
	"max-width:100%}\n"
	"th,td{border:1px solid #d0d7de;padding:.25em .5em;text-align:left}\n"
	"td.n{text-align:right;white-space:nowrap}\n"
	"code,pre{font:14px/1.4 ui-monospace,monospace}\n"
	"pre{background:#f6f8fa;padding:.6em;white-space:pre-wrap;overflow-wrap:anywhere}\n"
	"figure{margin:1em 0}svg{max-width:100%;height:auto}\n"
	".summary{background:#fff8c5;padding:.6em;border:1px solid #d4a72c}\n"
	".conclusion{background:#dafbe1;padding:.6em;border:1px solid #4ac26b}\n";

static void html_text(FILE *out, const char *s)
{
	nt_escape_xml(out, s);
}

/* The distribution as bars on a 960 x 540 slide; 35-250 ms (a stall) in red. */
static void html_latency(FILE *out, const struct nt_run_report *r)
{
	const int left = 90, right = 30, top = 110, bottom = 90;
	const int plot_w = SLIDE_W - left - right, plot_h = SLIDE_H - top - bottom;
	const int slot = plot_w / (int)BUCKETS;
	uint64_t counts[BUCKETS], max;

	buckets_of(&r->ri->turns, counts, &max);
	fprintf(out,
		"<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\" class=\"latency\"><title>request to answer "
		"latency, fix ",
		SLIDE_W, SLIDE_H, SLIDE_W, SLIDE_H);
	html_text(out, r->ri->fix);
	fprintf(out, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", SLIDE_W,
		SLIDE_H);
	fputs("<text x=\"480\" y=\"44\" text-anchor=\"middle\" font-size=\"28\" "
	      "font-family=\"sans-serif\">fix ",
	      out);
	html_text(out, r->ri->fix);
	fprintf(out, ": %" PRIu64 " request%s, request to answer</text>\n", r->ri->turns.n,
		nt_plural(r->ri->turns.n));
	fprintf(out,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#57606a\" "
		"stroke-width=\"2\"/>\n",
		left, top + plot_h, left + plot_w, top + plot_h);
	for (size_t b = 0; b < BUCKETS; b++) {
		int h = max ? (int)((double)counts[b] * plot_h / (double)max) : 0;
		int x = left + (int)b * slot + slot / 8;
		bool stall = bucket_edge_ns[b] >= 35000000 && bucket_edge_ns[b] < 250000000;

		fprintf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n"
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"22\" "
			"font-family=\"sans-serif\">%" PRIu64 "</text>\n"
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"20\" "
			"font-family=\"sans-serif\">",
			x, top + plot_h - h, slot * 3 / 4, h, stall ? "#cf222e" : "#0969da",
			x + slot * 3 / 8, top + plot_h - h - 8, counts[b], x + slot * 3 / 8,
			top + plot_h + 30);
		html_text(out, bucket_names[b]);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"20\" "
		"font-family=\"sans-serif\">ms (red: a delayed-ACK stall's range)</text>\n"
		"</svg></figure>\n",
		SLIDE_W / 2, SLIDE_H - 20);
}

/*
 * struct sentence - a sentence the Markdown writes straight to its stream,
 * written to memory first so that the page can escape it
 * @f: the stream to write it to, between sentence_open() and sentence_close()
 * @text: what was written (free() it)
 * @len: its length
 */
struct sentence {
	FILE *f;
	char *text;
	size_t len;
};

static int sentence_open(struct sentence *s)
{
	s->text = NULL;
	s->len = 0;
	s->f = open_memstream(&s->text, &s->len);
	return s->f ? 0 : -ENOMEM;
}

/* Return: 0 with @s->text set, or -ENOMEM (and nothing to free). */
static int sentence_close(struct sentence *s)
{
	if (fclose(s->f) != 0) {
		free(s->text);
		s->text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The hidden-stalls line as a paragraph, escaped. */
static int html_hidden(FILE *out, const struct nt_run_report *r)
{
	struct sentence s;

	if (sentence_open(&s) < 0)
		return -ENOMEM;
	nt_run_hidden_stalls(s.f, r, "", "", "");
	if (sentence_close(&s) < 0)
		return -ENOMEM;
	if (s.len) {
		fputs("<p><strong>", out);
		html_text(out, s.text);
		fputs("</strong></p>\n", out);
	}
	free(s.text);
	return 0;
}

/* The summary paragraph: the sentence's code marks become <code> around escaped text. */
static int html_summary(FILE *out, const struct nt_run_report *b)
{
	struct sentence s;

	if (sentence_open(&s) < 0)
		return -ENOMEM;
	summary_sentence(s.f, b, "\x01", "\x02");
	fprintf(s.f, "; Linux %s", b->ri->kernel);
	if (sentence_close(&s) < 0)
		return -ENOMEM;
	fputs("<p class=\"summary\"><strong>Summary:</strong> ", out);
	for (char *at = s.text; *at;) {
		char *mark = at + strcspn(at, "\x01\x02");
		char c = *mark;

		*mark = '\0';
		html_text(out, at);
		if (!c)
			break;
		fputs(c == '\x01' ? "<code>" : "</code>", out);
		at = mark + 1;
	}
	fputs(".</p>\n", out);
	free(s.text);
	return 0;
}

/* The conclusion of several fixes, or the fix that belongs to the side that held. */
static int html_conclusion(FILE *out, const struct nt_run_report *runs, size_t n,
			   const struct nt_run_report *b)
{
	struct sentence s;

	if (n < 2 && !b->an->sum.stalls)
		return 0;
	if (sentence_open(&s) < 0)
		return -ENOMEM;
	if (n > 1)
		nt_run_conclusion_text(s.f, runs, n, "", "");
	else
		fputs(nt_hold_fix_advice(held_of(b)), s.f);
	if (sentence_close(&s) < 0)
		return -ENOMEM;
	fprintf(out, "<p class=\"conclusion\"><strong>%s</strong> ",
		n > 1 ? "Conclusion:" : "Fix:");
	html_text(out, s.text);
	fputs(".</p>\n", out);
	free(s.text);
	return 0;
}

static int html_head(FILE *out, const struct nt_run_report *runs, size_t n,
		     const struct nt_run_report *b)
{
	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>Incident: %" PRIu64 " Nagle/delayed-ACK stall%s</title>\n<style>\n%s%s"
		"</style>\n</head>\n<body>\n",
		b->an->sum.stalls, nt_plural(b->an->sum.stalls), page_css, nt_ladder_css());
	nt_ladder_svg_defs(out);
	fprintf(out,
		"<h1>Incident: %" PRIu64 " Nagle/delayed-ACK stall%s in %" PRIu64
		" request%s</h1>\n",
		b->an->sum.stalls, nt_plural(b->an->sum.stalls), b->ri->turns.n,
		nt_plural(b->ri->turns.n));
	if (html_summary(out, b) < 0 || html_conclusion(out, runs, n, b) < 0)
		return -ENOMEM;
	return 0;
}

static void html_section(FILE *out, const char *title)
{
	fprintf(out, "<h2>%s</h2>\n", title);
}

static int html_first_stall(FILE *out, const struct nt_run_report *b, int worst)
{
	int ret;

	fputs("<h2>The first stall, fix <code>", out);
	html_text(out, b->ri->fix);
	fputs("</code></h2>\n<figure>\n", out);
	ret = nt_analysis_svg_flow(out, b->an, b->an->flows[worst], false, false);
	fputs("</figure>\n", out);
	return ret;
}

static void html_tail(FILE *out, const struct nt_runinfo *ri)
{
	if (ri->command_line) {
		fputs("<h2>Reproduce</h2>\n<pre><code>", out);
		if (ri->uids_mapped == 1)
			fputs("unshare -Urn ", out);
		html_text(out, ri->command_line);
		fputs("</code></pre>\n", out);
	}
	fputs("</body>\n</html>\n", out);
}

static const struct incident_format html_format = {
	.head = html_head,
	.section = html_section,
	.intro = {
		[PART_LATENCY] = "<p>Requests per latency bucket, from a request's first segment to "
				 "the answer's first, on the capture.</p>\n",
		[PART_SOCKETS] = "<p>From the target namespace's <code>/proc/net/tcp</code>: "
				 "ping-pong mode (the receiver delays every ACK, "
				 "__tcp_ack_snd_check()), quick-ACK budget left, and ato.</p>\n",
	},
	.kind = NT_TABLE_HTML,
	.hidden = html_hidden,
	.latency = html_latency,
	.first_stall = html_first_stall,
	.tail = html_tail,
};

/* ---- The outline, one for both formats --------------------------------------------------- */

static const char *const part_titles[PART_COUNT] = {
	[PART_TABLE] = "Before and after",
	[PART_LATENCY] = "Request → answer latency",
	[PART_STALLED] = "Which requests stalled",
	[PART_SOCKETS] = "The target's sockets, as sampled",
};

static void part(FILE *out, const struct incident_format *f, enum incident_part p)
{
	f->section(out, part_titles[p]);
	if (f->intro[p])
		fputs(f->intro[p], out);
}

/*
 * The report a postmortem wants, in this order: summary and conclusion, the
 * before/after table, the latency per fix, which requests stalled, the
 * sockets as sampled, the first stall's ladder, the command to reproduce.
 */
static int incident_write(FILE *out, const struct nt_run_report *runs, size_t n,
			  const struct incident_format *f)
{
	const struct nt_run_report *b = &runs[before_of(runs, n)];
	int worst = nt_pick_worst_flow(b->an), ret = 0;

	if (f->head(out, runs, n, b) < 0)
		return -ENOMEM;
	part(out, f, PART_TABLE);
	before_after(out, runs, n, f->kind);
	part(out, f, PART_LATENCY);
	for (size_t i = 0; i < n; i++)
		if (f->hidden(out, &runs[i]) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		f->latency(out, &runs[i]);
	part(out, f, PART_STALLED);
	for (size_t i = 0; i < n; i++)
		nt_run_stalled_list(out, runs[i].ri, INCIDENT_STALLS_MAX, f->kind);
	part(out, f, PART_SOCKETS);
	for (size_t i = 0; i < n; i++)
		sockets(out, &runs[i], f->kind);
	if (worst >= 0)
		ret = f->first_stall(out, b, worst);
	f->tail(out, b->ri);
	if (ret < 0)
		return ret;
	return ferror(out) ? -EIO : 0;
}

int nt_render_incident_markdown(FILE *out, const struct nt_run_report *runs, size_t n,
				const struct nt_analysis_view *v)
{
	(void)v;
	return incident_write(out, runs, n, &markdown_format);
}

int nt_render_incident_html(FILE *out, const struct nt_run_report *runs, size_t n,
			    const struct nt_analysis_view *v)
{
	(void)v;
	return incident_write(out, runs, n, &html_format);
}
