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
#include <sys/socket.h>

#include "nt/model/tcp.h"
#include "nt/render/analysis.h"
#include "nt/render/chunks.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"

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

static void episode(FILE *out, const char *label, const struct nt_analysis *an,
		    const struct nt_flow_result *r, const struct nt_stall_episode *ep)
{
	const struct nt_analysis_file *f = &an->files[r->file];
	char t[48], rel[32], a[32], g[32], w[32], s[64], src[64], dst[64];

	nt_label_episode_ends(r, ep, src, dst, sizeof(src));
	fprintf(out,
		"  %s stall: %s (+%s ms in file), frame %" PRIu64 "\n"
		"    %s sent %u byte%s, then nothing; %s acked them after %s ms (%s);\n"
		"    the next data followed the ACK by %s ms (window %s ms): %s ms lost",
		label, nt_label_capture_time(an, r, ep->held_t_ns, t, sizeof(t)),
		nt_fmt_ms_trunc(ep->held_t_ns - f->first_t_ns, rel, sizeof(rel)), ep->held_frame,
		src, ep->held_len, nt_plural(ep->held_len), dst,
		nt_fmt_ms_trunc(ep->ack_delay_ns, a, sizeof(a)), nt_delack_name(ep->delack),
		nt_fmt_ms_trunc(ep->release_gap_ns, g, sizeof(g)),
		nt_fmt_ms_trunc(ep->window_ns, w, sizeof(w)),
		nt_label_lost(ep->lost_min_ns, ep->stall_ns, s, sizeof(s)));
	if (ep->lost_min_ns < ep->stall_ns)
		fprintf(out, ": the next data may answer frame %" PRIu64, ep->answer_frame);
	fputc('\n', out);
}

static void timeline(FILE *out, const struct nt_flow_result *r)
{
	char t[32], flags[12];

	fprintf(out, "  around the first stall (ms from the held segment):\n");
	fprintf(out, "    %8s %10s %-4s %-6s %10s %10s %6s\n", "frame", "t_ms", "dir", "flags",
		"seq", "ack", "len");
	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct nt_tl_seg *s = &r->timeline[i];
		const char *mark = "";

		if (s->frame == r->first.held_frame)
			mark = "  <- held (H)";
		else if (s->frame == r->first.ack_frame)
			mark = "  <- late ACK";
		else if (s->frame == r->first.release_frame)
			mark = "  <- released";
		fprintf(out, "    %8" PRIu64 " %10s %-4s %-6s %10u %10u %6u%s\n", s->frame,
			nt_fmt_ms_trunc(s->t_ns - r->first.held_t_ns, t, sizeof(t)),
			nt_dir_name(s->dir), nt_tcp_flags_str(s->flags, flags), s->seq_rel,
			s->ack_rel, s->len, mark);
	}
}

void nt_render_analysis_text_flow(FILE *out, const struct nt_analysis *an,
				  const struct nt_flow_result *r)
{
	char c[64], tg[64], lost[64], tot[32], p50[32], mx[32], rc[32], rt[32], sampled[48] = "";

	fprintf(out, "flow %s -> %s (file %u%s%s)\n",
		nt_fmt_endpoint(r->family, r->client_addr, r->client_port, c, sizeof(c)),
		nt_fmt_endpoint(r->family, r->target_addr, r->target_port, tg, sizeof(tg)),
		r->file + 1, r->syn_seen ? ", handshake seen" : ", mid-stream",
		r->evicted ? ", evicted before the end" : "");
	/* The legend only where a side's MSS is unknown: a flow whose handshake was seen has both. */
	fprintf(out, "  packets %" PRIu64 ", mss %u/%u%s, rtt to client %s ms, to target %s ms\n",
		r->packets, r->mss[NT_DIR_C2T], r->mss[NT_DIR_T2C],
		r->mss[NT_DIR_C2T] && r->mss[NT_DIR_T2C] ? "" : " (0: no SYN)",
		r->rtt_ns[NT_DIR_C2T] >= 0 ? nt_fmt_ms_trunc(r->rtt_ns[NT_DIR_C2T], rc, sizeof(rc))
					   : "?",
		r->rtt_ns[NT_DIR_T2C] >= 0 ? nt_fmt_ms_trunc(r->rtt_ns[NT_DIR_T2C], rt, sizeof(rt))
					   : "?");
	if (r->p50_sampled)
		snprintf(sampled, sizeof(sampled), " (of a uniform sample of %d stalls)",
			 NT_STALL_KEPT);
	fprintf(out,
		"  stalls %u (delack_min %u, delack_max %u, other %u), think time %u\n"
		"  lost %s ms (%s ms summed over %u held segment%s), p50 %s ms%s, max %s ms\n",
		r->stalls, r->by_delack[NT_DELACK_MIN], r->by_delack[NT_DELACK_MAX],
		r->by_delack[NT_DELACK_OTHER], r->think_time,
		nt_label_lost(r->wall_min.total_ns, r->wall.total_ns, lost, sizeof(lost)),
		nt_fmt_ms_trunc(r->total_ns, tot, sizeof(tot)), r->stalls, nt_plural(r->stalls),
		nt_fmt_ms_trunc(r->p50_ns, p50, sizeof(p50)), sampled,
		nt_fmt_ms_trunc(r->max_ns, mx, sizeof(mx)));
	if (r->out_of_order)
		fprintf(out, "  %u segment%s out of order\n", r->out_of_order,
			nt_plural(r->out_of_order));
	episode(out, "first", an, r, &r->first);
	if (r->stalls > 1)
		episode(out, "last", an, r, &r->last);
	timeline(out, r);
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

static const struct nt_chunks_ops flow_ops = { .item = flow_item };

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
