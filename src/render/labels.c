// SPDX-License-Identifier: MIT
/*
 * labels.c - words for what the documents show (see nt/render/labels.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nt/model/tcp.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"

const char *nt_label_segment(const struct nt_segment *seg, char *buf, size_t len)
{
	switch (seg->role) {
	case NT_ROLE_SYN:
		snprintf(buf, len, "SYN");
		break;
	case NT_ROLE_SYN_ACK:
		snprintf(buf, len, "SYN-ACK");
		break;
	case NT_ROLE_PURE_ACK:
	case NT_ROLE_HANDSHAKE_ACK:
		snprintf(buf, len, "pure ACK");
		break;
	case NT_ROLE_FIN:
		snprintf(buf, len, "FIN");
		break;
	case NT_ROLE_RST:
		snprintf(buf, len, "RST");
		break;
	default:
		snprintf(buf, len, "%s %" PRIu32 " B", nt_role_name(seg->role), seg->payload_bytes);
		break;
	}
	return buf;
}

const char *nt_label_tcp(uint8_t flags, uint32_t payload_bytes, char *buf, size_t len)
{
	if ((flags & (NT_TCP_SYN | NT_TCP_ACK)) == (NT_TCP_SYN | NT_TCP_ACK))
		snprintf(buf, len, "SYN-ACK");
	else if (flags & NT_TCP_SYN)
		snprintf(buf, len, "SYN");
	else if (flags & NT_TCP_RST)
		snprintf(buf, len, "RST");
	else if ((flags & NT_TCP_FIN) && payload_bytes)
		snprintf(buf, len, "FIN %" PRIu32 " B", payload_bytes);
	else if (flags & NT_TCP_FIN)
		snprintf(buf, len, "FIN");
	else if (payload_bytes)
		snprintf(buf, len, "data %" PRIu32 " B", payload_bytes);
	else
		snprintf(buf, len, "pure ACK");
	return buf;
}

const char *nt_label_call(enum nt_call call)
{
	switch (call) {
	case NT_CALL_WRITE_HEADER:
		return "write(header)";
	case NT_CALL_WRITE_BODY:
		return "write(body)";
	case NT_CALL_WRITE_REQUEST:
		return "write(header+body)";
	case NT_CALL_READ_REPLY:
		return "read(reply)";
	case NT_CALL_READ_REQUEST:
		return "read(request)";
	case NT_CALL_WRITE_REPLY:
		return "write(reply)";
	}
	return "?";
}

const char *nt_label_verdicts(const struct nt_summary *s, char *buf, size_t len)
{
	static const enum nt_verdict order[] = { NT_VERDICT_COALESCED, NT_VERDICT_UNHELD,
						 NT_VERDICT_HELD, NT_VERDICT_STALLED,
						 NT_VERDICT_INCOMPLETE };
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]) && used < len; i++) {
		if (!s->verdicts[order[i]])
			continue;
		int n = snprintf(buf + used, len - used, "%s%u %s", used ? ", " : "",
				 s->verdicts[order[i]], nt_verdict_name(order[i]));
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, len, "no rounds");
	return buf;
}

const char *nt_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

const char *nt_label_lost(int64_t min_ns, int64_t max_ns, char *buf, size_t len)
{
	char lo[NT_FMT_MS_LEN], hi[NT_FMT_MS_LEN];

	/* The common case without snprintf(): analyze's text prints three a flow. */
	if (min_ns >= max_ns)
		return nt_fmt_ms_trunc(max_ns, buf, len);
	snprintf(buf, len, "%s-%s", nt_fmt_ms_trunc(min_ns, lo, sizeof(lo)),
		 nt_fmt_ms_trunc(max_ns, hi, sizeof(hi)));
	return buf;
}

const char *nt_label_p50(const struct nt_flow_result *r, char *buf, size_t len)
{
	char ms[NT_FMT_MS_LEN];

	snprintf(buf, len, "%s%s", r->p50_sampled ? "~" : "",
		 nt_fmt_ms_trunc(r->p50_ns, ms, sizeof(ms)));
	return buf;
}

const char *nt_label_lost_sum(int64_t min_ns, int64_t wall_ns, int64_t sum_ns, uint64_t n,
			      char *buf, size_t len)
{
	char lost[2 * NT_FMT_MS_LEN], sum[NT_FMT_MS_LEN];

	snprintf(buf, len, "%s ms lost (%s ms summed over %" PRIu64 " held segment%s)",
		 nt_label_lost(min_ns, wall_ns, lost, sizeof(lost)),
		 nt_fmt_ms_trunc(sum_ns, sum, sizeof(sum)), n, nt_plural(n));
	return buf;
}

void nt_label_episode_ends(const struct nt_flow_result *r, const struct nt_stall_episode *ep,
			   char *a, char *b, size_t len)
{
	bool c2t = ep->dir == NT_DIR_C2T;

	nt_fmt_endpoint(r->family, c2t ? r->client_addr : r->target_addr,
			c2t ? r->client_port : r->target_port, a, len);
	nt_fmt_endpoint(r->family, c2t ? r->target_addr : r->client_addr,
			c2t ? r->target_port : r->client_port, b, len);
}

const char *nt_label_capture_time(const struct nt_analysis *an, const struct nt_flow_result *r,
				  int64_t t_ns, char *buf, size_t len)
{
	bool sub_us = r->file < an->n_files ? an->files[r->file].sub_us : true;

	return nt_fmt_utc_digits(t_ns, sub_us ? 9 : 6, buf, len);
}

/* @n bytes of @s ending at @end; returns where they start. */
static char *text_back(const char *s, size_t n, char *end)
{
	return memcpy(end - n, s, n);
}

#define LITERAL_BACK(lit, end) text_back(lit, sizeof(lit) - 1, end)

const char *nt_label_occurrence(const struct nt_analysis *an, const struct nt_flow_result *r,
				const struct nt_stall_episode *ep, char *buf, size_t len)
{
	/*
	 * Put together backwards from the end, without snprintf(): the
	 * markdown and HTML tables show two a flow, and parsing the format was
	 * a tenth of markdown's rendering at 100,000 flows (docs/performance.md).
	 */
	char t[NT_FMT_UTC_LEN], text[NT_LABEL_OCCURRENCE_LEN + NT_FMT_UTC_LEN];
	char *end = text + sizeof(text), *p = end;

	nt_label_capture_time(an, r, ep->held_t_ns, t, sizeof(t));
	p = text_back(t, strlen(t), p);
	p = LITERAL_BACK(", ", p);
	p = nt_fmt_u64_back(ep->held_frame, p);
	p = LITERAL_BACK("frame ", p);
	if (an->n_files > 1) {
		p = LITERAL_BACK(", ", p);
		p = nt_fmt_u64_back((uint64_t)r->file + 1, p);
		p = LITERAL_BACK("file ", p);
	}
	return nt_fmt_cut(buf, len, p, (size_t)(end - p));
}

const char *nt_label_rtt_ms(int64_t rtt_ns, char *buf, size_t len)
{
	char ms[NT_FMT_MS_LEN];
	size_t n = strlen(nt_fmt_ms_digits(rtt_ns, 3, ms, sizeof(ms)));

	while (n > 1 && ms[n - 1] == '0')
		ms[--n] = '\0';
	if (n > 1 && ms[n - 1] == '.')
		ms[n - 1] = '\0';
	snprintf(buf, len, "%s", ms);
	return buf;
}

const char *nt_label_path(const struct nt_record_config *c, char *buf, size_t len)
{
	bool wire = !c->delay_line || strcmp(c->delay_line, "wire") == 0;
	char rtt[32];

	if (c->rtt_ns <= 0) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	snprintf(buf, len, "RTT %s ms (%s), captured at the %s",
		 nt_label_rtt_ms(c->rtt_ns, rtt, sizeof(rtt)),
		 wire ? "user-space delay line" : c->delay_line,
		 c->capture_at ? c->capture_at : "client");
	return buf;
}

/* "80.1" or "80.1 to 82.0" (ms). */
static const char *ms_range(int64_t lo_ns, int64_t hi_ns, char *buf, size_t len)
{
	char lo[24], hi[24];

	nt_fmt_ms_digits(lo_ns, 1, lo, sizeof(lo));
	nt_fmt_ms_digits(hi_ns, 1, hi, sizeof(hi));
	if (strcmp(lo, hi) == 0)
		snprintf(buf, len, "%s", lo);
	else
		snprintf(buf, len, "%s to %s", lo, hi);
	return buf;
}

/*
 * At the client, header->ACK is the target's delayed ACK plus one RTT (the
 * header's flight and the ACK's); at the target it is the delay alone, and
 * the client waits one RTT more.
 */
const char *nt_label_stall_cost(const struct nt_record_config *c, int64_t lo_ns, int64_t hi_ns,
				char *buf, size_t len)
{
	bool at_target = c->capture_at && strcmp(c->capture_at, "target") == 0;
	char rtt[32], seen[64], other[64];

	if (c->rtt_ns <= 0 || lo_ns < 0) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	if (hi_ns < lo_ns)
		hi_ns = lo_ns;
	nt_label_rtt_ms(c->rtt_ns, rtt, sizeof(rtt));
	ms_range(lo_ns, hi_ns, seen, sizeof(seen));
	if (at_target) {
		ms_range(lo_ns + c->rtt_ns, hi_ns + c->rtt_ns, other, sizeof(other));
		snprintf(buf, len,
			 "the target's ACK delay %s ms (seen here) + RTT %s ms = %s ms at the "
			 "client",
			 seen, rtt, other);
	} else {
		ms_range(lo_ns - c->rtt_ns, hi_ns - c->rtt_ns, other, sizeof(other));
		snprintf(buf, len,
			 "header->ACK %s ms = the target's ACK delay %s ms (delayed-ACK timer) + "
			 "RTT %s ms",
			 seen, other, rtt);
	}
	return buf;
}

const char *nt_label_table_full(const struct nt_analysis *an, char *buf, size_t len)
{
	snprintf(buf, len,
		 "the flow table was full (--max-flows %" PRIu32 "): %" PRIu64
		 " active flow%s evicted, stalls on them may be missed",
		 an->params.max_flows, an->sum.evicted_full,
		 an->sum.evicted_full == 1 ? " was" : "s were");
	return buf;
}

const char *nt_label_expectation(const struct nt_expect_why *why, char *buf, size_t len)
{
	const char *measured = nt_verdict_name(why->measured);
	const char *wanted = nt_verdict_name(why->wanted);

	switch (why->miss) {
	case NT_EXPECT_MISS_NONE:
		snprintf(buf, len, "%s", "");
		break;
	case NT_EXPECT_MISS_UNPREDICTED:
		snprintf(buf, len, "round %u has no prediction to check", why->round);
		break;
	case NT_EXPECT_MISS_PREDICTED:
		snprintf(buf, len, "round %u was %s, the model predicted %s (%s)", why->round,
			 measured, wanted, nt_predict_rule_name(why->rule));
		break;
	case NT_EXPECT_MISS_FIRST:
		snprintf(buf, len, "round 1 was %s, expected a fast first round (not stalled)",
			 measured);
		break;
	case NT_EXPECT_MISS_VERDICT:
		snprintf(buf, len, "round %u was %s, expected %s", why->round, measured, wanted);
		break;
	case NT_EXPECT_MISS_CAPTURE_DROPS:
	case NT_EXPECT_MISS_WIRE_DROPS:
		snprintf(buf, len, "the %s dropped %" PRIu64 " frame%s: verdicts are uncertain",
			 why->miss == NT_EXPECT_MISS_CAPTURE_DROPS ? "capture" : "delay line",
			 why->frames, why->frames == 1 ? "" : "s");
		break;
	case NT_EXPECT_MISS_INTERRUPTED:
		snprintf(buf, len, "the run was interrupted");
		break;
	}
	return buf;
}
