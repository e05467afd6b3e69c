// SPDX-License-Identifier: MIT
/*
 * analysis_text.c - the human report of nagle-trace analyze.
 *
 * Durations in milliseconds with microsecond digits (stalls are tens of ms,
 * releases tens of µs); absolute times in UTC, ISO 8601 with nanoseconds, so
 * the report is the same wherever it is printed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "nt/model/tcp.h"
#include "nt/render/analysis.h"

static const struct nt_analysis_format formats[] = {
	{ .name = "text", .render = nt_render_analysis_text },
	{ .name = "json", .render = nt_render_analysis_json },
	{ .name = "markdown", .render = nt_render_analysis_markdown },
	{ .name = "svg", .render = nt_render_analysis_svg },
	{ .name = "html", .render = nt_render_analysis_html },
};

const struct nt_analysis_format *nt_analysis_format_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

void nt_analysis_episode_ends(const struct nt_flow_result *r, const struct nt_stall_episode *ep,
			      char *a, char *b)
{
	bool c2t = ep->dir == NT_DIR_C2T;

	nt_analysis_endpoint_str(r->family, c2t ? r->client_addr : r->target_addr,
				 c2t ? r->client_port : r->target_port, a);
	nt_analysis_endpoint_str(r->family, c2t ? r->target_addr : r->client_addr,
				 c2t ? r->target_port : r->client_port, b);
}

const char *nt_analysis_format_names(void)
{
	return "text|json|markdown|svg|html";
}

int nt_analysis_worst_flow(const struct nt_analysis *an)
{
	int worst = -1;

	for (size_t i = 0; i < an->n_flows; i++)
		if (worst < 0 || an->flows[i]->total_ns > an->flows[worst]->total_ns)
			worst = (int)i;
	return worst;
}

/*
 * Not the live run's sentence (nt_render_explain()): a capture of unknown
 * programs shows neither which write was a header nor which side waited for
 * a reply, only that a small segment waited for a delayed ACK.
 */
void nt_analysis_explain(const struct nt_analysis *an, const char **why, const char **fix)
{
	*why = NULL;
	*fix = NULL;
	if (!an->sum.stalls)
		return;
	*why = "a small write was held by Nagle's algorithm (tcp_nagle_check) until the peer's "
	       "delayed ACK fired";
	*fix = "send each message in one write (or writev), or set TCP_NODELAY on the sender";
}

char *nt_analysis_endpoint_str(int family, const uint8_t *addr, uint16_t port, char *buf)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, addr, a, sizeof(a));
	if (family == AF_INET6)
		snprintf(buf, 64, "[%s]:%u", a, port);
	else
		snprintf(buf, 64, "%s:%u", a, port);
	return buf;
}

static char *ms(int64_t ns, char *buf)
{
	if (ns < 0)
		snprintf(buf, 32, "-%" PRId64 ".%03" PRId64, -ns / 1000000, (-ns / 1000) % 1000);
	else
		snprintf(buf, 32, "%" PRId64 ".%03" PRId64, ns / 1000000, (ns / 1000) % 1000);
	return buf;
}

static char *utc(int64_t t_ns, char *buf)
{
	time_t s = (time_t)(t_ns >= 0 ? t_ns / 1000000000 : (t_ns - 999999999) / 1000000000);
	int64_t frac = t_ns - (int64_t)s * 1000000000;
	struct tm tm;

	if (!gmtime_r(&s, &tm)) {
		snprintf(buf, 48, "%" PRId64 " ns", t_ns);
		return buf;
	}
	size_t n = strftime(buf, 48, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 48 - n, ".%09" PRId64 "Z", frac);
	return buf;
}

char *nt_analysis_ms_str(int64_t ns, char *buf)
{
	return ms(ns, buf);
}

char *nt_analysis_utc_str(int64_t t_ns, char *buf)
{
	return utc(t_ns, buf);
}

char *nt_analysis_occurrence_str(const struct nt_analysis *an, const struct nt_flow_result *r,
				 const struct nt_stall_episode *ep, char *buf)
{
	char file[24] = "", t[48];

	if (an->n_files > 1)
		snprintf(file, sizeof(file), "file %u, ", r->file + 1);
	snprintf(buf, 96, "%sframe %" PRIu64 ", %s", file, ep->held_frame, utc(ep->held_t_ns, t));
	return buf;
}

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
	char t[48], rel[32], a[32], g[32], w[32], s[32], src[64], dst[64];

	nt_analysis_episode_ends(r, ep, src, dst);
	fprintf(out,
		"  %s stall: %s (+%s ms in file), frame %" PRIu64 "\n"
		"    %s sent %u bytes, then nothing; %s acked them after %s ms (%s);\n"
		"    the next data followed the ACK by %s ms (window %s ms): %s ms lost\n",
		label, utc(ep->held_t_ns, t), ms(ep->held_t_ns - f->first_t_ns, rel),
		ep->held_frame, src, ep->held_len, dst, ms(ep->ack_delay_ns, a),
		nt_delack_name(ep->delack), ms(ep->release_gap_ns, g), ms(ep->window_ns, w),
		ms(ep->stall_ns, s));
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
			ms(s->t_ns - r->first.held_t_ns, t), nt_dir_name(s->dir),
			nt_tcp_flags_str(s->flags, flags), s->seq_rel, s->ack_rel, s->len, mark);
	}
}

void nt_render_analysis_text_flow(FILE *out, const struct nt_analysis *an,
				  const struct nt_flow_result *r)
{
	char c[64], tg[64], tot[32], p50[32], mx[32], rc[32], rt[32];

	fprintf(out, "flow %s -> %s (file %u%s%s)\n",
		nt_analysis_endpoint_str(r->family, r->client_addr, r->client_port, c),
		nt_analysis_endpoint_str(r->family, r->target_addr, r->target_port, tg),
		r->file + 1, r->syn_seen ? ", handshake seen" : ", mid-stream",
		r->evicted ? ", evicted before the end" : "");
	fprintf(out,
		"  packets %" PRIu64
		", mss %u/%u (0: no SYN), rtt to client %s ms, to target %s ms\n",
		r->packets, r->mss[NT_DIR_C2T], r->mss[NT_DIR_T2C],
		r->rtt_ns[NT_DIR_C2T] >= 0 ? ms(r->rtt_ns[NT_DIR_C2T], rc) : "?",
		r->rtt_ns[NT_DIR_T2C] >= 0 ? ms(r->rtt_ns[NT_DIR_T2C], rt) : "?");
	fprintf(out,
		"  stalls %u (delack_min %u, delack_max %u, other %u), think time %u\n"
		"  stalled: total %s ms, p50 %s ms, max %s ms\n",
		r->stalls, r->by_delack[NT_DELACK_MIN], r->by_delack[NT_DELACK_MAX],
		r->by_delack[NT_DELACK_OTHER], r->think_time, ms(r->total_ns, tot),
		ms(r->p50_ns, p50), ms(r->max_ns, mx));
	episode(out, "first", an, r, &r->first);
	if (r->stalls > 1)
		episode(out, "last", an, r, &r->last);
	timeline(out, r);
}

int nt_render_analysis_text(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v)
{
	const struct nt_analysis_summary *s = &an->sum;
	const char *why, *fix;
	char tot[32];

	for (size_t i = 0; i < an->n_files; i++) {
		const struct nt_analysis_file *f = &an->files[i];

		fprintf(out,
			"file %zu: %s: link type %d, %" PRIu64 " packets, %" PRIu64 " TCP, %" PRIu64
			" flows, %" PRIu64 " stalls%s\n",
			i + 1, f->path, f->linktype, f->packets, f->tcp_packets, f->flows,
			f->stalls, f->error ? " (incomplete)" : "");
		if (f->error)
			fprintf(out, "  read stopped: %s\n", f->error);
	}
	if (v->filter)
		fprintf(out, "filter: %s\n", v->filter);
	fputc('\n', out);
	for (size_t i = 0; i < an->n_flows; i++) {
		nt_render_analysis_text_flow(out, an, an->flows[i]);
		fputc('\n', out);
	}

	fprintf(out, "summary: %" PRIu64 " packets, %" PRIu64 " TCP, not decoded: ", s->packets,
		s->tcp_packets);
	not_decoded(out, s->not_decoded);
	fprintf(out,
		"\n  %" PRIu64 " TCP flows (evicted: %" PRIu64 " idle, %" PRIu64
		" table full), %" PRIu64 " with stalls\n",
		s->flows, s->evicted_idle, s->evicted_full, s->flows_with_stalls);
	fprintf(out,
		"  %" PRIu64 " stalls (delack_min %" PRIu64 ", delack_max %" PRIu64
		", other %" PRIu64 "), %s ms lost; %" PRIu64 " think-time episodes\n",
		s->stalls, s->by_delack[NT_DELACK_MIN], s->by_delack[NT_DELACK_MAX],
		s->by_delack[NT_DELACK_OTHER], ms(s->total_stall_ns, tot), s->think_time);
	nt_analysis_explain(an, &why, &fix);
	if (why)
		fprintf(out, "  why: %s;\n  fix: %s\n", why, fix);
	if (an->oom)
		fputs("  warning: out of memory, results are incomplete\n", out);
	return ferror(out) ? -EIO : 0;
}
