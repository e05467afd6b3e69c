// SPDX-License-Identifier: MIT
/*
 * analysis_md.c - the analyze report as Markdown, paste-ready for an
 * incident writeup or an issue (GitHub/GitLab flavour).
 *
 * The same shape as the live report (markdown.c): a header line, a table (of
 * the flows with stalls), one stall as the text report prints it in a
 * ```text block and as a ```mermaid sequenceDiagram, then the why and the
 * fix. The stall shown is the first of the worst flow, the one that lost the
 * most time: the diagram a reader wants first. Durations are printed as the
 * text report prints them (truncated to the microsecond), so the numbers in
 * the table, the block and the diagram agree to the digit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nt/model/tcp.h"
#include "nt/render/analysis.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"
#include "nt/render/pick.h"
#include "nt/render/spool.h"
#include "analysis_rows.h"
#include "out_buf.h"

static void files_line(FILE *out, const struct nt_analysis *an, const struct nt_analysis_view *v)
{
	const struct nt_analysis_summary *s = &an->sum;
	char tot[128], full[160];

	for (size_t i = 0; i < an->n_files; i++) {
		const struct nt_analysis_file *f = &an->files[i];

		fprintf(out, "%s`", i ? ", " : "");
		nt_escape_md_cell(out, f->path);
		fputc('`', out);
		if (f->error) {
			fputs(" (incomplete: ", out);
			nt_escape_md_cell(out, f->error);
			fputc(')', out);
		}
	}
	if (v->filter) {
		fputs(", filter `", out);
		nt_escape_md_cell(out, v->filter);
		fputc('`', out);
	}
	fprintf(out,
		": %" PRIu64 " packets (%" PRIu64 " TCP), %" PRIu64 " TCP flows, %" PRIu64
		" with stalls, %" PRIu64 " stalls (delack_min %" PRIu64 ", delack_max %" PRIu64
		", other %" PRIu64 "), %s; %" PRIu64 " think-time episodes%s\n",
		s->packets, s->tcp_packets, s->flows, s->flows_with_stalls, s->stalls,
		s->by_delack[NT_DELACK_MIN], s->by_delack[NT_DELACK_MAX],
		s->by_delack[NT_DELACK_OTHER],
		nt_label_lost_sum(s->stalled_wall_min_ns, s->stalled_wall_ns, s->total_stall_ns,
				  s->stalls, tot, sizeof(tot)),
		s->think_time, an->oom ? " (out of memory: results are incomplete)" : "");
	if (s->evicted_full)
		fprintf(out, "\n**Incomplete:** %s (raise `--max-flows`).\n",
			nt_label_table_full(an, full, sizeof(full)));
}

/* Flow @r's row: the flow and the time it lost in bold when it is the worst. */
static void row(struct out_buf *b, const struct nt_flow_result *r, const struct flow_cells *cell,
		bool worst)
{
	const char *bold = worst ? "**" : "";

	out_buf_str(b, "| ");
	out_buf_str(b, bold);
	out_buf_str(b, "`");
	out_buf_md_cell(b, cell->client);
	out_buf_str(b, " → ");
	out_buf_md_cell(b, cell->target);
	out_buf_str(b, "`");
	out_buf_str(b, bold);
	out_buf_str_u64(b, " | ", r->stalls);
	out_buf_str(b, " | ");
	out_buf_str(b, bold);
	out_buf_str(b, cell->lost);
	out_buf_str(b, " ms");
	out_buf_str(b, bold);
	out_buf_str(b, " | ");
	out_buf_str(b, cell->p50);
	out_buf_str(b, " ms | ");
	out_buf_str(b, cell->max);
	out_buf_str_u64(b, " ms | ", r->by_delack[NT_DELACK_MIN]);
	out_buf_str_u64(b, " | ", r->by_delack[NT_DELACK_MAX]);
	out_buf_str_u64(b, " | ", r->by_delack[NT_DELACK_OTHER]);
	out_buf_str(b, " | ");
	out_buf_md_cell(b, cell->first);
	out_buf_str(b, " | ");
	out_buf_md_cell(b, cell->last);
	out_buf_str(b, " |\n");
}

static int flows_table(FILE *out, const struct nt_analysis *an, int worst, unsigned workers)
{
	int ret;

	fputs("\n| flow (client → target) | stalls | lost | p50 | max | delack_min | delack_max "
	      "| other | first stall | last stall |\n"
	      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
	      out);
	ret = analysis_rows_write(out, an, worst, workers, row);
	if (ret < 0)
		return ret;
	fputs("\nIn bold: the worst flow, the one that lost the most time; its first stall "
	      "follows.\n",
	      out);
	return 0;
}

/* The text report's role marks, as words a sequence diagram can carry. */
static const char *mark(const struct nt_flow_result *r, const struct nt_tl_seg *s)
{
	if (s->frame == r->first.held_frame)
		return ", held (H)";
	if (s->frame == r->first.ack_frame)
		return ", late";
	if (s->frame == r->first.release_frame)
		return ", released";
	return "";
}

/*
 * A is the side whose data was held, on the left as the client is in the
 * live diagram. Mermaid's participant alias runs to the end of the line
 * (sequenceDiagram's grammar stops it at ';' and '#' only, which
 * nt_escape_mermaid() replaces), so it holds an endpoint with ':' and an
 * IPv6 address's brackets. The stall, from the held segment to its late
 * ACK, is a highlighted rect block.
 */
void nt_analysis_md_ladder(FILE *out, const struct nt_flow_result *r)
{
	const struct nt_stall_episode *ep = &r->first;
	char a[64], b[64], label[48], rel[32], st[32];

	nt_label_episode_ends(r, ep, a, b, sizeof(a));
	fputs("\n```mermaid\nsequenceDiagram\n    participant A as A (held data) ", out);
	nt_escape_mermaid(out, a);
	fputs("\n    participant B as B ", out);
	nt_escape_mermaid(out, b);
	fputs("\n", out);
	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct nt_tl_seg *s = &r->timeline[i];
		int64_t d = s->t_ns - ep->held_t_ns;

		if (s->frame == ep->held_frame)
			fprintf(out, "    rect rgb(253, 227, 230)\n");
		fputs(s->dir == ep->dir ? "    A->>B: " : "    B->>A: ", out);
		nt_escape_mermaid(out, nt_label_tcp(s->flags, s->len, label, sizeof(label)));
		nt_escape_mermaid(out, mark(r, s));
		fprintf(out, " (%s%s ms)\n", d < 0 ? "" : "+",
			nt_fmt_ms_trunc(d, rel, sizeof(rel)));
		if (s->frame == ep->held_frame)
			fprintf(out,
				"    Note over A,B: %s ms stall<br/>held by Nagle until<br/>B's "
				"delayed ACK (%s)\n",
				nt_fmt_ms_trunc(ep->stall_ns, st, sizeof(st)),
				nt_delack_name(ep->delack));
		if (s->frame == ep->ack_frame)
			fputs("    end\n", out);
	}
	fputs("```\n", out);
}

static void worst_section(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r)
{
	const struct nt_stall_episode *ep = &r->first;
	char a[64], b[64], c[64], tg[64], t[48], d[32], g[32], st[64];

	nt_label_episode_ends(r, ep, a, b, sizeof(a));
	fprintf(out, "\n### First stall of the worst flow, `%s → %s`\n\n",
		nt_fmt_endpoint(r->family, r->client_addr, r->client_port, c, sizeof(c)),
		nt_fmt_endpoint(r->family, r->target_addr, r->target_port, tg, sizeof(tg)));
	fprintf(out,
		"%s (A) sent %" PRIu32 " bytes at %s (frame %" PRIu64
		"), then nothing; %s (B) acknowledged them %s ms later with a pure ACK "
		"(%s), and A's next data followed that ACK by %s ms: %s ms lost.\n",
		a, ep->held_len, nt_label_capture_time(an, r, ep->held_t_ns, t, sizeof(t)),
		ep->held_frame, b, nt_fmt_ms_trunc(ep->ack_delay_ns, d, sizeof(d)),
		nt_delack_name(ep->delack), nt_fmt_ms_trunc(ep->release_gap_ns, g, sizeof(g)),
		nt_label_lost(ep->lost_min_ns, ep->stall_ns, st, sizeof(st)));
	fputs("\nFrame numbers as Wireshark counts them, times in ms from the held segment, "
	      "seq/ack relative.\n\n```text\n",
	      out);
	nt_render_analysis_text_flow(out, an, r);
	fputs("```\n", out);
	nt_analysis_md_ladder(out, r);
}

int nt_render_analysis_markdown(FILE *out, const struct nt_analysis *an,
				const struct nt_analysis_view *v)
{
	const struct nt_analysis_summary *s = &an->sum;
	int worst = nt_pick_worst_flow(an);
	const char *why, *fix;
	char tot[64];
	int ret;

	if (v->run)
		nt_run_markdown_header(out, v->run);
	if (worst < 0) {
		fprintf(out, "## %s: no stalls found\n\n", nt_analysis_command(v));
		files_line(out, an, v);
		fprintf(out,
			"\nNo stalls found: no small write waited for a delayed ACK (a sub-MSS "
			"segment, a pure ACK of it %s ms or more later, the sender's next data "
			"right behind that ACK) in %" PRIu64 " TCP flow%s.\n",
			nt_fmt_ms_trunc(an->params.stall.threshold_ns, tot, sizeof(tot)), s->flows,
			s->flows == 1 ? "" : "s");
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "## %s: %" PRIu64 " stall%s in %" PRIu64 " flow%s, %s ms lost\n\n",
		nt_analysis_command(v), s->stalls, nt_plural(s->stalls), s->flows_with_stalls,
		nt_plural(s->flows_with_stalls),
		nt_label_lost(s->stalled_wall_min_ns, s->stalled_wall_ns, tot, sizeof(tot)));
	files_line(out, an, v);
	ret = flows_table(out, an, worst, v->workers);
	if (ret < 0)
		return ret;
	worst_section(out, an, an->flows[worst]);
	nt_analysis_explain(an, &why, &fix);
	fprintf(out, "\n**Why:** %s.\n\n**Fix:** %s.\n", why, fix);
	return ferror(out) ? -EIO : 0;
}
