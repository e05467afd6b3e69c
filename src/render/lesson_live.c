// SPDX-License-Identifier: MIT
/*
 * lesson_live.c - one round of a live run on the lesson page: its ladder
 * with every item a step, what each step is, why where the round's verdict
 * says why, and the notes shown after the last step (the verdict, the
 * explanation and the kernel's evidence).
 *
 * Today a step's why comes from the round as the verdict rule assembled it
 * (struct nt_round's marks): the held header, the late ACK and the body it
 * releases, and the evidence at the writes and reads it belongs to. Every
 * other step says what happened and leaves why empty; step_why() is the one
 * place a per-segment rule would fill it in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/clock.h"
#include "nt/model/predict_words.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/lesson.h"
#include "nt/render/why.h"
#include "nt/render/render.h"
#include "nt/render/svg.h"

/* The step at which the verdict shows: the mark the rule decided on. */
static long reveal_step(const struct nt_round *r)
{
	long mark = -1;

	switch (r->verdict) {
	case NT_VERDICT_STALLED:
	case NT_VERDICT_HELD:
		mark = r->marks.a;
		break;
	case NT_VERDICT_UNHELD:
		mark = r->marks.b;
		break;
	case NT_VERDICT_COALESCED:
		mark = r->marks.h;
		break;
	default:
		break;
	}
	return mark >= 0 ? mark + 1 : 0;
}

static void step_what(const struct nt_event *e, int64_t t0, char *buf, size_t len)
{
	char label[64], rel[NT_FMT_MS_LEN];

	nt_fmt_ms_digits(e->t_ns - t0, 3, rel, sizeof(rel));

	if (e->kind == NT_EVENT_SYSCALL)
		snprintf(buf, len, "%s: %s returned %" PRId64 " (+%s ms)",
			 e->sys.side == NT_SIDE_CLIENT ? "Client" : "Target",
			 nt_label_call(e->sys.call), e->sys.bytes, rel);
	else
		snprintf(buf, len, "%s: %s, seq %" PRIu32 ", ack %" PRIu32 " (+%s ms)",
			 e->seg.dir == NT_DIR_C2T ? "Client \u2192 Target" : "Target \u2192 Client",
			 nt_label_segment(&e->seg, label, sizeof(label)), e->seg.seq_rel,
			 e->seg.ack_rel, rel);
}

/* The kernel detail of a step: the rules the model says decided it (nt/render/why.h). */
static void model_why(const struct nt_round_view *rv, size_t i, char *buf, size_t len)
{
	const struct nt_predict_why *why[NT_WHY_MAX];
	unsigned n = nt_why_event(rv, i, why);
	struct nt_predict_words words;
	size_t used = strlen(buf);

	for (unsigned k = 0; k < n && used + 1 < len; k++) {
		int w = snprintf(buf + used, len - used, "%sKernel rule %s: %s.", used ? " " : "",
				 nt_predict_rule_name(why[k]->rule),
				 nt_predict_words(why[k], &words));

		if (w < 0)
			break;
		used += (size_t)w < len - used ? (size_t)w : len - used - 1;
	}
}

/*
 * One plain sentence for a step the verdict rule says nothing about: what
 * the event means for the round, without kernel names.
 */
static void step_plain(const struct nt_event *e, char *buf, size_t len)
{
	if (e->kind == NT_EVENT_SYSCALL) {
		switch (e->sys.call) {
		case NT_CALL_WRITE_HEADER:
			snprintf(buf, len, "The client hands the header to its kernel.");
			break;
		case NT_CALL_WRITE_BODY:
			snprintf(buf, len,
				 "The client hands the body to its kernel; whether it leaves now "
				 "is the kernel's choice.");
			break;
		case NT_CALL_WRITE_REQUEST:
			snprintf(buf, len, "The client hands header and body over in one call.");
			break;
		case NT_CALL_READ_REQUEST:
			snprintf(buf, len, "The target's program reads the request.");
			break;
		case NT_CALL_WRITE_REPLY:
			snprintf(buf, len, "The target's program hands its reply to its kernel.");
			break;
		case NT_CALL_READ_REPLY:
			snprintf(buf, len, "The client has its reply: the round is over.");
			break;
		default:
			snprintf(buf, len, "A system call returns.");
			break;
		}
	} else if (e->seg.dir == NT_DIR_T2C && e->seg.payload_bytes == 0) {
		snprintf(buf, len, "The target acknowledges what it received.");
	} else if (e->seg.dir == NT_DIR_T2C) {
		snprintf(buf, len, "The target's reply is on the wire.");
	} else if (e->seg.payload_bytes == 0) {
		snprintf(buf, len, "The client acknowledges what it received.");
	} else {
		snprintf(buf, len, "The client sends request bytes.");
	}
}

static void step_why(const struct nt_round_view *rv, size_t i, const char *client_ev,
		     const char *target_ev, char *buf, size_t len, char *plain, size_t plen,
		     char *kernel, size_t klen)
{
	const struct nt_round *r = rv->round;
	const struct nt_event *e = &rv->ev[i];
	bool stalled = r->verdict == NT_VERDICT_STALLED;
	char ms[NT_FMT_MS_LEN];
	long at = (long)i;

	buf[0] = '\0';
	if (at == r->marks.h && r->verdict == NT_VERDICT_COALESCED)
		snprintf(buf, len,
			 "Header and body left in one segment: nothing was left for "
			 "Nagle to hold.");
	else if (at == r->marks.h && (stalled || r->verdict == NT_VERDICT_HELD))
		snprintf(buf, len,
			 "The header leaves at once: nothing of the client's was "
			 "unacknowledged. Until it is acknowledged, Nagle holds any "
			 "further small segment.");
	else if (at == r->marks.a && stalled)
		snprintf(buf, len,
			 "%s ms after the header: the target delayed this ACK, waiting for a "
			 "reply it could not send before the body arrived, until its delayed-ACK "
			 "timer fired. The body was held by Nagle all that time.",
			 nt_fmt_ms_digits(r->gap_ns, 3, ms, sizeof(ms)));
	else if (at == r->marks.a && r->body_written_after_ack)
		snprintf(buf, len,
			 "This ACK arrived before write(body) returned: Nagle had "
			 "nothing to hold.");
	else if (at == r->marks.a && r->verdict == NT_VERDICT_HELD)
		snprintf(buf, len,
			 "The ACK came at once (the target was in quick-ACK mode): "
			 "Nagle held the body only until now.");
	else if (at == r->marks.b && r->body_written_after_ack)
		/* As the ACK's step said: the body was written after the ACK was in. */
		snprintf(buf, len,
			 "The body leaves as soon as it is written: the header's ACK was "
			 "already in, so Nagle had nothing to hold it for.");
	else if (at == r->marks.b && r->release_ns >= 0 &&
		 (stalled || r->verdict == NT_VERDICT_HELD))
		snprintf(buf, len, "The ACK released the body: it leaves %s after it.",
			 nt_fmt_ms(r->release_ns, ms, sizeof(ms)));
	else if (at == r->marks.b && r->verdict == NT_VERDICT_UNHELD)
		snprintf(buf, len, "The body left before the header's ACK: nothing held it.");
	step_plain(e, plain, plen);
	if (!buf[0])
		snprintf(buf, len, "%s", plain);
	kernel[0] = '\0';
	if (e->kind == NT_EVENT_SYSCALL && client_ev &&
	    (e->sys.call == NT_CALL_WRITE_BODY || e->sys.call == NT_CALL_WRITE_REQUEST))
		snprintf(kernel, klen, "The kernel's evidence: %s.",
			 strncmp(client_ev, "evidence: ", 10) ? client_ev : client_ev + 10);
	else if (e->kind == NT_EVENT_SYSCALL && target_ev && e->sys.call == NT_CALL_READ_REQUEST)
		snprintf(kernel, klen, "The kernel's evidence: %s.", target_ev);
	model_why(rv, i, kernel, klen);
}

static void notes(FILE *out, const struct nt_record *run, const struct nt_round *r,
		  const char *client_ev, const char *target_ev)
{
	const char *why, *delayed, *fix;
	char rtt[32], gap[32];

	fprintf(out, "<p><strong>Round %u: %s.</strong> Round trip %s, header&#8594;ACK %s.</p>\n",
		r->index, nt_verdict_name(r->verdict), nt_fmt_ms(r->rtt_ns, rtt, sizeof(rtt)),
		nt_fmt_ms(r->gap_ns, gap, sizeof(gap)));
	nt_render_explain(run, &why, &delayed, &fix);
	if (why && r->verdict == NT_VERDICT_STALLED) {
		fputs("<p><strong>Why:</strong> ", out);
		nt_escape_xml(out, why);
		fputs(", and ", out);
		nt_escape_xml(out, delayed);
		fputs(".</p>\n<p><strong>Fix:</strong> ", out);
		nt_escape_xml(out, fix);
		fputs(".</p>\n", out);
	}
	if (!client_ev && !target_ev)
		return;
	fputs("<ul>\n", out);
	if (client_ev)
		nt_lesson_escape_lines(out, client_ev);
	if (target_ev)
		nt_lesson_escape_lines(out, target_ev);
	fputs("</ul>\n", out);
}

int nt_lesson_live_round(FILE *out, const struct nt_record *run, const struct nt_round_view *rv)
{
	const struct nt_round *r = rv->round;
	int64_t t0 = nt_round_view_origin(rv);
	char *client_ev, *target_ev;
	char what[160], why[400], plain[160], kernel[1200];
	int ret;

	nt_lesson_figure_begin(out, r->index, nt_verdict_name(r->verdict), reveal_step(r), rv->n,
			       r->rtt_ns);
	ret = nt_svg_round(out, run, rv);
	if (ret < 0)
		return ret;
	nt_text_evidence(rv, &client_ev, &target_ev);
	nt_lesson_steps_begin(out);
	for (size_t i = 0; i < rv->n; i++) {
		step_what(&rv->ev[i], t0, what, sizeof(what));
		step_why(rv, i, client_ev, target_ev, why, sizeof(why), plain, sizeof(plain),
			 kernel, sizeof(kernel));
		nt_lesson_step(out, i + 1, rv->ev[i].t_ns - t0, what, why, plain, kernel);
	}
	nt_lesson_notes_begin(out);
	notes(out, run, r, client_ev, target_ev);
	free(client_ev);
	free(target_ev);
	return nt_lesson_figure_end(out);
}
