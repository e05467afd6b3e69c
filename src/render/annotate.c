// SPDX-License-Identifier: MIT
/*
 * annotate.c - the words of an annotated capture (see nt/render/annotate.h).
 *
 * A packet comment names frames by their number in the annotated file, the
 * number Wireshark shows, so a reader can jump from the released segment
 * to the ACK that released it. Durations are milliseconds with microsecond
 * digits, as in the text report.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nt/render/annotate.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"

/* Appends to @buf (of @len, @used filled so far); a full buffer keeps what fits. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t len, size_t *used,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

const char *nt_annot_stall_text(const struct nt_annot_stall *s, enum nt_annot_role role,
				uint64_t frame_base, char *buf, size_t len)
{
	unsigned long long h = frame_base + s->frame[NT_ANNOT_HELD];
	unsigned long long a = frame_base + s->frame[NT_ANNOT_ACK];
	unsigned long long r = frame_base + s->frame[NT_ANNOT_RELEASE];
	char delay[NT_FMT_MS_LEN], gap[NT_FMT_MS_LEN], lost[NT_FMT_MS_LEN];

	nt_fmt_ms_trunc(s->ack_delay_ns, delay, sizeof(delay));
	nt_fmt_ms_trunc(s->release_gap_ns, gap, sizeof(gap));
	nt_fmt_ms_trunc(s->stall_ns, lost, sizeof(lost));
	switch (role) {
	case NT_ANNOT_HELD:
		snprintf(buf, len,
			 "stall %u: held segment H, %u bytes and then nothing more from this "
			 "side; its ACK (frame %llu) came %s ms later and Nagle held the next "
			 "data (frame %llu) until then",
			 s->number, s->held_len, a, delay, r);
		break;
	case NT_ANNOT_ACK:
		snprintf(buf, len,
			 "stall %u: late ACK of frame %llu, %s ms after it (delayed-ACK timer: "
			 "%s); it releases the held data (frame %llu)",
			 s->number, h, delay, nt_delack_name(s->delack), r);
		break;
	default:
		snprintf(buf, len,
			 "stall %u: held by Nagle %s ms, released by the delayed ACK of frame "
			 "%llu (%s ms after it)",
			 s->number, lost, a, gap);
		break;
	}
	return buf;
}

/* A file name as ASCII: the comment must be valid UTF-8, and a name need not be. */
static const char *ascii(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

static void summary_inputs(const struct nt_analysis *an, const uint64_t *frame_base, char *buf,
			   size_t len, size_t *used)
{
	for (size_t i = 0; i < an->n_files; i++) {
		const struct nt_analysis_file *f = &an->files[i];
		char name[256];

		ascii(f->path, name, sizeof(name));
		if (!f->packets)
			add(buf, len, used, "\ninput %zu, %s: no frames%s%s", i + 1, name,
			    f->error ? ": " : "", f->error ? f->error : "");
		else
			add(buf, len, used,
			    "\ninput %zu, %s: frames %" PRIu64 "-%" PRIu64 ", %" PRIu64 " stalls%s",
			    i + 1, name, frame_base[i] + 1, frame_base[i] + f->packets, f->stalls,
			    f->error ? " (damaged: read up to the damage)" : "");
	}
}

const char *nt_annot_analysis_summary(const struct nt_analysis *an, const struct nt_annot_list *l,
				      const uint64_t *frame_base, char *buf, size_t len)
{
	const struct nt_analysis_summary *s = &an->sum;
	char lost[NT_FMT_MS_LEN], thr[NT_FMT_MS_LEN], rel[NT_FMT_MS_LEN];
	size_t used = 0;

	buf[0] = '\0';
	add(buf, len, &used,
	    "nagle-trace analyze: %" PRIu64 " stalls in %" PRIu64 " of %" PRIu64
	    " TCP flows, %s ms lost: Nagle held data until a delayed ACK released it",
	    s->stalls, s->flows_with_stalls, s->flows,
	    nt_fmt_ms_trunc(s->total_stall_ns, lost, sizeof(lost)));
	add(buf, len, &used,
	    "\ndelayed-ACK timers: delack_min %" PRIu64 ", delack_max %" PRIu64 ", other %" PRIu64
	    "; think time (late ACK, data much later): %" PRIu64,
	    s->by_delack[NT_DELACK_MIN], s->by_delack[NT_DELACK_MAX], s->by_delack[NT_DELACK_OTHER],
	    s->think_time);
	add(buf, len, &used,
	    "\nrule: a pure ACK of a held sub-MSS segment at least %s ms late, the next data "
	    "within %s ms of it plus the round trip to its sender (docs/analyze.md)",
	    nt_fmt_ms_trunc(an->params.stall.threshold_ns, thr, sizeof(thr)),
	    nt_fmt_ms_trunc(an->params.stall.release_ns, rel, sizeof(rel)));
	add(buf, len, &used,
	    "\npacket comments: each stall's held segment H, its late ACK and the released "
	    "segment R");
	if (l->dropped)
		add(buf, len, &used, "; only the first %zu stalls, %" PRIu64 " more were found",
		    l->n_stalls, l->dropped);
	if (an->oom)
		add(buf, len, &used, "\nout of memory: the analysis is incomplete");
	summary_inputs(an, frame_base, buf, len, &used);
	return buf;
}

const char *nt_annot_round_text(const struct nt_annot_round_mark *m, char *buf, size_t len)
{
	static const char *const what[NT_ANNOT_ROLE_COUNT] = {
		[NT_ANNOT_HELD] = "H, the header's last segment",
		[NT_ANNOT_ACK] = "A, the target's first acknowledgment of the header",
		[NT_ANNOT_RELEASE] = "B, the body's first segment",
	};
	char gap[NT_FMT_MS_LEN], rel[NT_FMT_MS_LEN], when[64] = "";
	const char *why = "";

	if (m->role == NT_ANNOT_ACK && m->gap_ns >= 0)
		snprintf(when, sizeof(when), ", %s ms after H",
			 nt_fmt_ms_trunc(m->gap_ns, gap, sizeof(gap)));
	else if (m->role == NT_ANNOT_RELEASE && m->release_ns >= 0)
		snprintf(when, sizeof(when), ", %s ms after A",
			 nt_fmt_ms_trunc(m->release_ns, rel, sizeof(rel)));
	if (m->verdict == NT_VERDICT_STALLED)
		why = ": Nagle held the body until the delayed ACK";
	else if (m->verdict == NT_VERDICT_HELD)
		why = ": Nagle held the body until a prompt ACK";
	else if (m->verdict == NT_VERDICT_UNHELD)
		why = ": the body left before the ACK, nothing held it";
	else if (m->verdict == NT_VERDICT_COALESCED)
		why = ": header and body left in one segment";
	char bytes[32] = "";

	if (m->payload_bytes)
		snprintf(bytes, sizeof(bytes), " (%u bytes)", m->payload_bytes);
	snprintf(buf, len, "round %u: %s%s%s; verdict %s%s", m->round,
		 what[m->role < NT_ANNOT_ROLE_COUNT ? m->role : NT_ANNOT_HELD], bytes, when,
		 nt_verdict_name(m->verdict), why);
	return buf;
}

const char *nt_annot_run_summary(const struct nt_record *run, char *buf, size_t len)
{
	const struct nt_record_config *c = &run->cfg;
	const struct nt_summary *s = &run->summary;
	char verdicts[160], lo[NT_FMT_MS_LEN], hi[NT_FMT_MS_LEN];
	char reason[NT_LABEL_EXPECTATION_LEN];
	size_t used = 0;

	buf[0] = '\0';
	add(buf, len, &used,
	    "nagle-trace trace, variant %s: %u rounds of write(%u) write(%u) read(%u), %s -> %s "
	    "port %u, kernel %s",
	    c->variant, s->rounds, c->shape.header_bytes, c->shape.body_bytes, c->shape.reply_bytes,
	    c->client_addr, c->target_addr, c->target_port, c->kernel);
	add(buf, len, &used, "\nverdicts: %s", nt_label_verdicts(s, verdicts, sizeof(verdicts)));
	if (s->verdicts[NT_VERDICT_STALLED])
		add(buf, len, &used, "; stalls %s-%s ms",
		    nt_fmt_ms_trunc(s->stall_min_ns, lo, sizeof(lo)),
		    nt_fmt_ms_trunc(s->stall_max_ns, hi, sizeof(hi)));
	add(buf, len, &used, "\nexpectation %s: %s%s%s", nt_expect_name(c->expect),
	    run->expectation_met ? "met" : "not met", run->expectation_met ? "" : ": ",
	    run->expectation_met
		    ? ""
		    : nt_label_expectation(&run->expectation_why, reason, sizeof(reason)));
	if (run->interrupted)
		add(buf, len, &used, "\ninterrupted: the capture ends early");
	add(buf, len, &used,
	    "\npacket comments: each round's H (the header's last segment), A (the target's "
	    "first ACK of it) and B (the body's first segment), with the round's verdict");
	return buf;
}
