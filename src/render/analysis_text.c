// SPDX-License-Identifier: MIT
/*
 * analysis_text.c - the human report of nagle-trace analyze.
 *
 * Durations in milliseconds with microsecond digits (stalls are tens of ms,
 * releases tens of µs); absolute times in UTC, ISO 8601 with nanoseconds, so
 * the report is the same wherever it is printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/tcp.h"
#include "nt/prefetch.h"
#include "nt/render/analysis.h"
#include "nt/render/chunks.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"
#include "out_buf.h"

static void not_decoded(FILE *out, const uint64_t *nd)
{
	bool any = false;

	for (int s = NT_DECODE_NOT_TCP; s < NT_DECODE_STATUS_COUNT; s++) {
		if (!nd[s])
			continue;
		fprintf(out, "%s%s %" PRIu64, any ? ", " : "",
			nt_decode_status_name((enum nt_decode_status)s), nd[s]);
		any = true;
	}
	if (!any)
		fputs("none", out);
}

/*
 * A flow's block is built in an out_buf, not with fprintf(): the report
 * prints some fifty values a flow, and parsing their formats was a third of
 * analyze's CPU time at 100,000 flows (docs/performance.md). The layout is
 * the one fprintf() printed, widths included; the golden tests and
 * unit/test_analysis_text hold it.
 */

/* @ep, with the flow's endpoints @c (client) and @tg (target) as printed */
static void episode(struct out_buf *b, const char *label, const struct nt_analysis *an,
		    const struct nt_flow_result *r, const struct nt_stall_episode *ep,
		    const char *c, const char *tg)
{
	const struct nt_analysis_file *f = &an->files[r->file];
	bool c2t = ep->dir == NT_DIR_C2T;
	char t[NT_FMT_UTC_LEN], lost[2 * NT_FMT_MS_LEN];

	out_buf_str(b, "  ");
	out_buf_str(b, label);
	out_buf_str(b, " stall: ");
	out_buf_str(b, nt_label_capture_time(an, r, ep->held_t_ns, t, sizeof(t)));
	out_buf_str_ms(b, " (+", ep->held_t_ns - f->first_t_ns);
	out_buf_str_u64(b, " ms in file), frame ", ep->held_frame);
	/* nt_label_episode_ends()'s order: the sender of the held segment first */
	out_buf_str(b, "\n    ");
	out_buf_str(b, c2t ? c : tg);
	out_buf_str_u64(b, " sent ", ep->held_len);
	out_buf_str(b, " byte");
	out_buf_str(b, nt_plural(ep->held_len));
	out_buf_str(b, ", then nothing; ");
	out_buf_str(b, c2t ? tg : c);
	out_buf_str_ms(b, " acked them after ", ep->ack_delay_ns);
	out_buf_str(b, " ms (");
	out_buf_str(b, nt_delack_name(ep->delack));
	out_buf_str_ms(b, ");\n    the next data followed the ACK by ", ep->release_gap_ns);
	out_buf_str_ms(b, " ms (window ", ep->window_ns);
	out_buf_str(b, " ms): ");
	out_buf_str(b, nt_label_lost(ep->lost_min_ns, ep->stall_ns, lost, sizeof(lost)));
	out_buf_str(b, " ms lost");
	if (ep->lost_min_ns < ep->stall_ns)
		out_buf_str_u64(b, ": the next data may answer frame ", ep->answer_frame);
	out_buf_str(b, "\n");
}

/* A column: a space, then @s padded to |@width| as printf's "%*s" pads (@width < 0: "%-*s") */
static void put_cell(struct out_buf *b, const char *s, int width)
{
	out_buf_str(b, " ");
	out_buf_pad(b, s, strlen(s), width);
}

/* A column: a space, then @v padded to @width as "%*" PRIu64 pads */
static void put_num_cell(struct out_buf *b, uint64_t v, int width)
{
	out_buf_str(b, " ");
	out_buf_u64(b, v, width);
}

/* The columns: frame %8, t_ms %10, dir %-4, flags %-6, seq %10, ack %10, len %6. */
static void timeline(struct out_buf *b, const struct nt_flow_result *r)
{
	char t[NT_FMT_MS_LEN], flags[12];

	out_buf_str(b, "  around the first stall (ms from the held segment):\n"
		       "       frame       t_ms dir  flags         seq        ack    len\n");
	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct nt_tl_seg *s = &r->timeline[i];

		out_buf_str(b, "   ");
		put_num_cell(b, s->frame, 8);
		put_cell(b, nt_fmt_ms_trunc(s->t_ns - r->first.held_t_ns, t, sizeof(t)), 10);
		put_cell(b, nt_dir_name(s->dir), -4);
		put_cell(b, nt_tcp_flags_str(s->flags, flags), -6);
		put_num_cell(b, s->seq_rel, 10);
		put_num_cell(b, s->ack_rel, 10);
		put_num_cell(b, s->len, 6);
		if (s->frame == r->first.held_frame)
			out_buf_str(b, "  <- held (H)");
		else if (s->frame == r->first.ack_frame)
			out_buf_str(b, "  <- late ACK");
		else if (s->frame == r->first.release_frame)
			out_buf_str(b, "  <- released");
		out_buf_str(b, "\n");
	}
}

void nt_render_analysis_text_flow(FILE *out, const struct nt_analysis *an,
				  const struct nt_flow_result *r)
{
	char c[NT_FMT_ENDPOINT_LEN], tg[NT_FMT_ENDPOINT_LEN], lost[2 * NT_FMT_MS_LEN];
	struct out_buf b;

	out_buf_init(&b, out);
	nt_fmt_endpoint(r->family, r->client_addr, r->client_port, c, sizeof(c));
	nt_fmt_endpoint(r->family, r->target_addr, r->target_port, tg, sizeof(tg));
	out_buf_str(&b, "flow ");
	out_buf_str(&b, c);
	out_buf_str(&b, " -> ");
	out_buf_str(&b, tg);
	out_buf_str_u64(&b, " (file ", (uint64_t)r->file + 1);
	out_buf_str(&b, r->syn_seen ? ", handshake seen" : ", mid-stream");
	out_buf_str(&b, r->evicted ? ", evicted before the end)\n" : ")\n");

	out_buf_str_u64(&b, "  packets ", r->packets);
	out_buf_str_u64(&b, ", mss ", r->mss[NT_DIR_C2T]);
	out_buf_str_u64(&b, "/", r->mss[NT_DIR_T2C]);
	/* The legend only where a side's MSS is unknown: a flow whose handshake was seen has both. */
	if (!r->mss[NT_DIR_C2T] || !r->mss[NT_DIR_T2C])
		out_buf_str(&b, " (0: no SYN)");
	if (r->rtt_ns[NT_DIR_C2T] >= 0)
		out_buf_str_ms(&b, ", rtt to client ", r->rtt_ns[NT_DIR_C2T]);
	else
		out_buf_str(&b, ", rtt to client ?");
	if (r->rtt_ns[NT_DIR_T2C] >= 0)
		out_buf_str_ms(&b, " ms, to target ", r->rtt_ns[NT_DIR_T2C]);
	else
		out_buf_str(&b, " ms, to target ?");
	out_buf_str(&b, " ms\n");

	out_buf_str_u64(&b, "  stalls ", r->stalls);
	out_buf_str_u64(&b, " (delack_min ", r->by_delack[NT_DELACK_MIN]);
	out_buf_str_u64(&b, ", delack_max ", r->by_delack[NT_DELACK_MAX]);
	out_buf_str_u64(&b, ", other ", r->by_delack[NT_DELACK_OTHER]);
	out_buf_str_u64(&b, "), think time ", r->think_time);
	out_buf_str(&b, "\n  lost ");
	out_buf_str(&b, nt_label_lost(r->wall_min.total_ns, r->wall.total_ns, lost, sizeof(lost)));
	out_buf_str_ms(&b, " ms (", r->total_ns);
	out_buf_str_u64(&b, " ms summed over ", r->stalls);
	out_buf_str(&b, " held segment");
	out_buf_str(&b, nt_plural(r->stalls));
	out_buf_str_ms(&b, "), p50 ", r->p50_ns);
	out_buf_str(&b, " ms");
	if (r->p50_sampled) {
		out_buf_str_u64(&b, " (of a uniform sample of ", NT_STALL_KEPT);
		out_buf_str(&b, " stalls)");
	}
	out_buf_str_ms(&b, ", max ", r->max_ns);
	out_buf_str(&b, " ms\n");
	if (r->out_of_order) {
		out_buf_str_u64(&b, "  ", r->out_of_order);
		out_buf_str(&b, " segment");
		out_buf_str(&b, nt_plural(r->out_of_order));
		out_buf_str(&b, " out of order\n");
	}
	episode(&b, "first", an, r, &r->first, c, tg);
	if (r->stalls > 1)
		episode(&b, "last", an, r, &r->last, c, tg);
	timeline(&b, r);
	out_buf_flush(&b);
}

/*
 * Flow @i's block and the blank line after it, on whichever thread renders
 * it. A failed write shows in ferror() of the stream: the report's own
 * below, a chunk's in nt_chunks_write().
 */
static int flow_item(FILE *out, void *state, const void *ctx, size_t i)
{
	const struct nt_analysis *an = ctx;

	(void)state;
	nt_render_analysis_text_flow(out, an, an->flows[i]);
	fputc('\n', out);
	return 0;
}

/* Flow @i's whole report, its timeline's rows included (nt_chunks_ops.ahead). */
static void flow_ahead(const void *ctx, size_t i)
{
	const struct nt_flow_result *r = ((const struct nt_analysis *)ctx)->flows[i];

	nt_prefetch_read(r, r + 1);
}

static const struct nt_chunks_ops flow_ops = { .item = flow_item, .ahead = flow_ahead };

int nt_render_analysis_text(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v)
{
	const struct nt_analysis_summary *s = &an->sum;
	const char *why, *fix;
	char lost[128], full[160];
	int ret;

	if (v->run)
		nt_run_text_header(out, v->run);
	for (size_t i = 0; i < an->n_files; i++) {
		const struct nt_analysis_file *f = &an->files[i];

		fprintf(out,
			"file %zu: %s: %s, %" PRIu64 " packet%s, %" PRIu64 " TCP, %" PRIu64
			" flow%s, %" PRIu64 " stall%s%s\n",
			i + 1, f->path, f->linktype >= 0 ? f->linktype_name : "not read",
			f->packets, nt_plural(f->packets), f->tcp_packets, f->flows,
			nt_plural(f->flows), f->stalls, nt_plural(f->stalls),
			f->error ? " (incomplete)" : "");
		if (f->late_frames) {
			char ms[NT_FMT_MS_LEN];

			fprintf(out,
				"  delay line late on %" PRIu64 " frame%s by %s in all"
				" (the file's notes): taken off their ACK delays\n",
				f->late_frames, nt_plural(f->late_frames),
				nt_fmt_ms(f->late_ns, ms, sizeof(ms)));
		}
		if (f->error)
			fprintf(out, "  read stopped: %s\n", f->error);
	}
	if (v->filter)
		fprintf(out, "filter: %s\n", v->filter);
	fputc('\n', out);
	ret = v->brief ? 0 : nt_chunks_write(out, an->n_flows, v->workers, &flow_ops, an);
	if (ret < 0)
		return ret;

	fprintf(out, "summary: %" PRIu64 " packet%s, %" PRIu64 " TCP, not decoded: ", s->packets,
		nt_plural(s->packets), s->tcp_packets);
	not_decoded(out, s->not_decoded);
	fprintf(out,
		"\n  %" PRIu64 " TCP flow%s (evicted: %" PRIu64 " idle, %" PRIu64
		" table full), %" PRIu64 " with stalls\n",
		s->flows, nt_plural(s->flows), s->evicted_idle, s->evicted_full,
		s->flows_with_stalls);
	fprintf(out,
		"  %" PRIu64 " stall%s (delack_min %" PRIu64 ", delack_max %" PRIu64
		", other %" PRIu64 "), %s; %" PRIu64 " think-time episode%s\n",
		s->stalls, nt_plural(s->stalls), s->by_delack[NT_DELACK_MIN],
		s->by_delack[NT_DELACK_MAX], s->by_delack[NT_DELACK_OTHER],
		nt_label_lost_sum(s->stalled_wall_min_ns, s->stalled_wall_ns, s->total_stall_ns,
				  s->stalls, lost, sizeof(lost)),
		s->think_time, nt_plural(s->think_time));
	if (s->out_of_order)
		fprintf(out,
			"  warning: %" PRIu64 " segment%s out of order in %" PRIu64
			" flow%s (below the sender's highest sequence, not retransmitted): "
			"the stall rule takes segments in the order captured\n",
			s->out_of_order, nt_plural(s->out_of_order), s->flows_out_of_order,
			nt_plural(s->flows_out_of_order));
	nt_analysis_explain(an, &why, &fix);
	if (why)
		fprintf(out, "  why: %s;\n  fix: %s\n", why, fix);
	if (an->oom)
		fputs("  warning: out of memory, results are incomplete\n", out);
	if (s->evicted_full)
		fprintf(out, "  warning: %s; results are incomplete (raise --max-flows)\n",
			nt_label_table_full(an, full, sizeof(full)));
	return ferror(out) ? -EIO : 0;
}
