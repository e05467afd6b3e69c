// SPDX-License-Identifier: MIT
/*
 * text.c - the timeline people read in a terminal.
 *
 * Per round: every segment and system call, time relative to the round's
 * first write (microsecond resolution), the stall marked where it happens.
 * Handshake and teardown are shown apart. ASCII only, so logs and CI output
 * stay readable; colour only when asked (and never on a pipe by default).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/predict_words.h"
#include "nt/model/tcp.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/render.h"
#include "nt/render/why.h"
#include "nt/unknown.h"

struct style {
	const char *bold, *red, *green, *yellow, *dim, *reset;
};

static const struct style plain = { "", "", "", "", "", "" };
static const struct style ansi = { "\033[1m",  "\033[31m", "\033[32m",
				   "\033[33m", "\033[2m",  "\033[0m" };

static const char *verdict_color(const struct style *st, enum nt_verdict v)
{
	switch (v) {
	case NT_VERDICT_STALLED:
		return st->red;
	case NT_VERDICT_INCOMPLETE:
		return st->yellow;
	default:
		return st->green;
	}
}

static void print_segment(FILE *out, const struct nt_event *e, int64_t t0, const struct style *st)
{
	const struct nt_segment *s = &e->seg;
	char flags[12], seq[32], t[NT_FMT_MS_LEN];

	nt_tcp_flags_str(s->flags, flags);
	if (s->payload_bytes)
		snprintf(seq, sizeof(seq), "%" PRIu32 ":%" PRIu64, s->seq_rel,
			 (uint64_t)s->seq_rel + s->payload_bytes);
	else if (s->flags & (NT_TCP_SYN | NT_TCP_FIN | NT_TCP_RST))
		snprintf(seq, sizeof(seq), "%" PRIu32, s->seq_rel);
	else
		seq[0] = '\0'; /* a pure ACK: its sequence number says nothing (as tcpdump) */
	fprintf(out, "  %10s ms  %s  [%s]%*s %s %-13s",
		nt_fmt_ms_signed(e->t_ns - t0, t, sizeof(t)),
		s->dir == NT_DIR_C2T ? "c->t" : "t->c", flags, (int)(4 - strlen(flags)), "",
		seq[0] ? "seq" : "   ", seq);
	if (s->flags & NT_TCP_ACK)
		fprintf(out, " ack %-8" PRIu32, s->ack_rel);
	else
		fprintf(out, " %-12s", "");
	fprintf(out, " len %-5" PRIu32 " %s%s%s\n", s->payload_bytes,
		s->role == NT_ROLE_PURE_ACK ? st->bold : "", nt_role_name(s->role), st->reset);
}

static const char *call_text(enum nt_call call)
{
	switch (call) {
	case NT_CALL_WRITE_HEADER:
		return "client  write(header)";
	case NT_CALL_WRITE_BODY:
		return "client  write(body)";
	case NT_CALL_WRITE_REQUEST:
		return "client  write(header+body)";
	case NT_CALL_READ_REPLY:
		return "client  read(reply)";
	case NT_CALL_READ_REQUEST:
		return "target  read(request)";
	case NT_CALL_WRITE_REPLY:
		return "target  write(reply)";
	}
	return "?";
}

static void print_syscall(FILE *out, const struct nt_event *e, int64_t t0, const struct style *st)
{
	char t[NT_FMT_MS_LEN];

	fprintf(out, "  %10s ms  %s%s returned %" PRId64 "%s\n",
		nt_fmt_ms_signed(e->t_ns - t0, t, sizeof(t)), st->dim, call_text(e->sys.call),
		e->sys.bytes, st->reset);
}

static void print_event(FILE *out, const struct nt_event *e, int64_t t0, const struct style *st)
{
	if (e->kind == NT_EVENT_SEGMENT)
		print_segment(out, e, t0, st);
	else
		print_syscall(out, e, t0, st);
}

/* Why the variant's fix works or fails, or why the model could not say. */
static const char *fix_words(const struct nt_record *run, struct nt_predict_words *words)
{
	if (run->predicting)
		return nt_predict_words(&run->fix, words);
	/* Bounded: the message is longer than a sentence (-Wformat-truncation). */
	snprintf(words->s, sizeof(words->s), "no prediction: %.*s",
		 (int)(sizeof(words->s) - sizeof("no prediction: ")), run->no_prediction);
	return words->s;
}

/* Under an event: the model's decisions that explain it (--explain). */
static void print_event_why(FILE *out, const struct nt_round_view *rv, size_t i)
{
	const struct nt_predict_why *why[NT_WHY_MAX];
	unsigned n = nt_why_event(rv, i, why);
	struct nt_predict_words words;

	for (unsigned k = 0; k < n; k++)
		fprintf(out, "  %13s  why: %s [%s]\n", "", nt_predict_words(why[k], &words),
			nt_predict_rule_name(why[k]->rule));
}

/*
 * Under the round's line: what the model predicted where the kernel did
 * otherwise (always), or, with --explain, why the verdict follows; and where
 * the kernel's sampled state differs from the model's.
 */
static void print_prediction(FILE *out, const struct nt_round_view *rv, bool explain,
			     const struct style *st)
{
	const struct nt_predict_round *p = rv->predicted;
	const struct nt_round *r = rv->round;
	struct nt_predict_words words;
	char verdicts[64];

	if (!p)
		return;
	if (p->disturbed)
		fprintf(out, "  %sdisturbed: %s%s\n", st->yellow, p->disturbed_text, st->reset);
	if (r->verdict != NT_VERDICT_INCOMPLETE && !nt_predict_accepts(p, r->verdict))
		fprintf(out, "  %sthe model predicted %s, the kernel did %s%s: %s [%s]\n",
			st->yellow, nt_why_verdicts(p, verdicts, sizeof(verdicts)),
			nt_verdict_name(r->verdict), st->reset,
			nt_predict_words(&p->verdict_why, &words),
			nt_predict_rule_name(p->verdict_why.rule));
	else if (explain)
		fprintf(out, "  model: %s [%s]\n", nt_predict_words(&p->verdict_why, &words),
			nt_predict_rule_name(p->verdict_why.rule));
	if (explain && p->uncertain.rule != NT_RULE_NONE)
		fprintf(out, "  the model accepts %s: %s [%s]\n",
			nt_why_verdicts(p, verdicts, sizeof(verdicts)),
			nt_predict_words(&p->uncertain, &words),
			nt_predict_rule_name(p->uncertain.rule));
	if (rv->evidence_diff && rv->evidence_diff->n)
		fprintf(out, "  %sthe kernel's state differs from the model's: %s%s\n", st->yellow,
			nt_predict_evidence_words(rv->evidence_diff, &words), st->reset);
}

static void print_round(FILE *out, const struct nt_round_view *rv, bool explain,
			const struct style *st)
{
	const struct nt_round *r = rv->round;
	int64_t t0 = nt_round_view_origin(rv);
	char ms[NT_FMT_MS_LEN];

	fprintf(out, "%sround %u%s  %s%s%s", st->bold, r->index, st->reset,
		verdict_color(st, r->verdict), nt_verdict_name(r->verdict), st->reset);
	if (r->rtt_ns >= 0)
		fprintf(out, "  round trip %s", nt_fmt_ms(r->rtt_ns, ms, sizeof(ms)));
	if (r->gap_ns >= 0 && r->verdict != NT_VERDICT_COALESCED && r->verdict != NT_VERDICT_UNHELD)
		fprintf(out, "  header->ACK %s", nt_fmt_ms(r->gap_ns, ms, sizeof(ms)));
	fputc('\n', out);
	print_prediction(out, rv, explain, st);

	for (size_t i = 0; i < rv->n; i++) {
		const struct nt_event *e = &rv->ev[i];

		if (r->verdict == NT_VERDICT_STALLED && (long)i == r->marks.a)
			fprintf(out,
				"  %s%13s  ... %s stall: body held by Nagle, ACK held by "
				"the delayed-ACK timer ...%s\n",
				st->red, "", nt_fmt_ms(r->gap_ns, ms, sizeof(ms)), st->reset);
		print_event(out, e, t0, st);
		if (explain)
			print_event_why(out, rv, i);
		if ((long)i != r->marks.a)
			continue;
		if (r->body_written_after_ack)
			fprintf(out,
				"  %13s  (this ACK arrived before write(body) returned: Nagle had "
				"nothing to hold)\n",
				"");
		else if (r->release_ns >= 0 &&
			 (r->verdict == NT_VERDICT_STALLED || r->verdict == NT_VERDICT_HELD))
			fprintf(out, "  %13s  (the ACK releases the body: it leaves %s later)\n",
				"", nt_fmt_ms(r->release_ns, ms, sizeof(ms)));
	}
}

/* ---- the kernel's evidence (src/live/evidence.c) ------------------------------------------ */

/* What the round's last request write was called on the timeline. */
static const char *request_write_text(const struct nt_round_view *rv)
{
	for (size_t k = 0; k < rv->n; k++) {
		const struct nt_event *e = &rv->ev[k];

		if (e->kind == NT_EVENT_SYSCALL && e->sys.call == NT_CALL_WRITE_REQUEST)
			return "write(header+body)";
	}
	return "write(body)";
}

/* The sender's side as the kernel saw it, one line without its indentation or newline. */
static void print_client_evidence(FILE *out, const struct nt_round_view *rv,
				  const struct nt_round_evidence *re, int64_t t0)
{
	char t[NT_FMT_MS_LEN], held[NT_FMT_MS_LEN];

	fprintf(out, "evidence: %s returned at %s ms", request_write_text(rv),
		nt_fmt_ms_signed(re->body_write_ns - t0, t, sizeof(t)));
	if (re->client_unsent_bytes >= 0)
		fprintf(out, " with %" PRId64 " B still unsent", re->client_unsent_bytes);
	if (re->client_unacked >= 0)
		fprintf(out, " (%" PRId64 " segment%s unacked)", re->client_unacked,
			re->client_unacked == 1 ? "" : "s");
	if (nt_known(re->body_dev_ns) && re->body_hold_ns > 0)
		fprintf(out, "; the kernel handed it to the device at %s ms (held %s)",
			nt_fmt_ms_signed(re->body_dev_ns - t0, t, sizeof(t)),
			nt_fmt_ms(re->body_hold_ns, held, sizeof(held)));
	else if (nt_known(re->body_dev_ns))
		fprintf(out, "; it reached the device during the write (%s ms)",
			nt_fmt_ms_signed(re->body_dev_ns - t0, t, sizeof(t)));
}

/* The receiver's side, the same way. */
static void print_target_evidence(FILE *out, const struct nt_round_evidence *re, int64_t t0)
{
	char t[NT_FMT_MS_LEN];

	fprintf(out, "the target, with %" PRId64 " B of the request queued at %s ms:",
		re->target_queued_bytes, nt_fmt_ms_signed(re->target_sample_ns - t0, t, sizeof(t)));
	if (re->target_pingpong >= 0)
		fputs(re->target_pingpong ? " ping-pong mode" : " not in ping-pong mode", out);
	if (re->target_quickack_mode >= 0)
		fprintf(out, ", quick-ACK %s", re->target_quickack_mode ? "on" : "off");
	if (re->target_quick >= 0)
		fprintf(out, " (budget %" PRId64 ")", re->target_quick);
	if (re->target_ato_us >= 0)
		fprintf(out, ", ato %.0f ms", (double)re->target_ato_us / 1000.0);
	else if (re->target_proc_ato_ms >= 0)
		fprintf(out, ", ato %" PRId64 " ms", re->target_proc_ato_ms);
	if (re->target_rcv_mss >= 0)
		fprintf(out, ", rcv_mss %" PRId64 " B", re->target_rcv_mss);
}

/* The evidence's times are from the round's first write, else from the body's. */
static int64_t evidence_t0(const struct nt_round_view *rv)
{
	int64_t t0 = rv->round->start_ns;

	return nt_known(t0) ? t0 : rv->evidence->body_write_ns;
}

/* One or two lines under a round: the sender's and the receiver's side as the kernel saw them. */
static void print_round_evidence(FILE *out, const struct nt_round_view *rv, const struct style *st)
{
	const struct nt_round_evidence *re = rv->evidence;
	int64_t t0;

	if (!re)
		return;
	t0 = evidence_t0(rv);
	fputs(st->dim, out);
	if (nt_known(re->body_write_ns)) {
		fprintf(out, "  %13s  ", "");
		print_client_evidence(out, rv, re, t0);
		fputc('\n', out);
	}
	if (nt_known(re->target_sample_ns)) {
		fprintf(out, "  %13s  ", "");
		print_target_evidence(out, re, t0);
		fputc('\n', out);
	}
	fputs(st->reset, out);
}

/* One evidence line into a malloc()ed string, without indentation or newline; NULL when not known. */
static char *evidence_line(const struct nt_round_view *rv, bool client)
{
	const struct nt_round_evidence *re = rv->evidence;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	if (!re || !nt_known(client ? re->body_write_ns : re->target_sample_ns))
		return NULL;
	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	if (client)
		print_client_evidence(f, rv, re, evidence_t0(rv));
	else
		print_target_evidence(f, re, evidence_t0(rv));
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void nt_text_evidence(const struct nt_round_view *rv, char **client, char **target)
{
	*client = evidence_line(rv, true);
	*target = evidence_line(rv, false);
}

/* The run's kernel counters, one line. */
static void print_counters(FILE *out, const struct nt_record *run)
{
	const struct nt_record_evidence *e = &run->evidence;

	if (!e->rounds || e->delayed_acks < 0)
		return;
	fprintf(out, "  kernel counters: target DelayedACKs +%" PRId64 " (%u stalled round%s)",
		e->delayed_acks, run->summary.verdicts[NT_VERDICT_STALLED],
		run->summary.verdicts[NT_VERDICT_STALLED] == 1 ? "" : "s");
	if (e->delayed_ack_locked >= 0)
		fprintf(out, ", DelayedACKLocked +%" PRId64, e->delayed_ack_locked);
	if (e->delayed_ack_lost >= 0)
		fprintf(out, ", DelayedACKLost +%" PRId64, e->delayed_ack_lost);
	if (e->tcp_autocorking >= 0)
		fprintf(out, "; client TCPAutoCorking +%" PRId64, e->tcp_autocorking);
	fputc('\n', out);
}

static void print_section(FILE *out, const struct nt_round_view *v, const char *title, int64_t t0,
			  const struct style *st)
{
	if (v->n)
		fprintf(out, "\n%s%s%s\n", st->bold, title, st->reset);
	for (size_t k = 0; k < v->n; k++) {
		const struct nt_event *e = &v->ev[k];

		if (!nt_known(t0))
			t0 = e->t_ns;
		print_event(out, e, t0, st);
	}
}

static void print_header(FILE *out, const struct nt_record *run, const struct style *st)
{
	const struct nt_record_config *c = &run->cfg;
	bool v6 = c->family == AF_INET6;
	char rtt[32];

	fprintf(out, "%snagle-trace%s: write-write-read, variant %s, Linux %s\n", st->bold,
		st->reset, c->variant, c->kernel);
	fprintf(out, "  client %s%s%s:%u -> target %s%s%s:%u over veth, capture %s on %s\n",
		v6 ? "[" : "", c->client_addr, v6 ? "]" : "", c->client_port, v6 ? "[" : "",
		c->target_addr, v6 ? "]" : "", c->target_port, c->capture, c->ifname);
	fprintf(out,
		"  header %" PRIu32 " B + body %" PRIu32 " B, reply %" PRIu32
		" B, %u rounds; MSS client %u B, target %u B\n",
		c->shape.header_bytes, c->shape.body_bytes, c->shape.reply_bytes, c->shape.rounds,
		run->client_mss, run->target_mss);
	if (c->rtt_ns > 0)
		fprintf(out,
			"  path: RTT %s ms, half each way (user-space delay line); captured at "
			"the %s\n",
			nt_label_rtt_ms(c->rtt_ns, rtt, sizeof(rtt)),
			c->capture_at ? c->capture_at : "client");
	fprintf(out, "  times relative to each round's first write; seq/ack relative\n");
}

static void print_verdict_counts(FILE *out, const struct nt_summary *s)
{
	static const enum nt_verdict order[] = { NT_VERDICT_COALESCED, NT_VERDICT_UNHELD,
						 NT_VERDICT_HELD, NT_VERDICT_STALLED,
						 NT_VERDICT_INCOMPLETE };
	const char *sep = "";

	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!s->verdicts[order[i]])
			continue;
		fprintf(out, "%s%u %s", sep, s->verdicts[order[i]], nt_verdict_name(order[i]));
		sep = ", ";
	}
}

/* With a delay line, what a stall costs (the sentence every format states). */
/* Segments the capture saw out of order: told as drops are, a warning when there are any. */
static void print_out_of_order(FILE *out, const struct nt_record *run, const struct style *st)
{
	uint64_t c2t = run->counts.out_of_order[NT_DIR_C2T],
		 t2c = run->counts.out_of_order[NT_DIR_T2C];

	if (!c2t && !t2c)
		return;
	fprintf(out,
		"  %swarning: %" PRIu64 " segment%s out of order at the capture point (client to "
		"target %" PRIu64 ", target to client %" PRIu64 ")%s\n",
		st->yellow, c2t + t2c, nt_plural(c2t + t2c), c2t, t2c, st->reset);
}

static void print_stall_cost(FILE *out, const struct nt_record *run)
{
	const struct nt_summary *s = &run->summary;
	char cost[192];

	if (!s->verdicts[NT_VERDICT_STALLED])
		return;
	nt_label_stall_cost(&run->cfg, s->stall_min_ns, s->stall_max_ns, cost, sizeof(cost));
	if (cost[0])
		fprintf(out, "  stall cost: %s\n", cost);
}

static void print_summary(FILE *out, const struct nt_record *run, const struct style *st)
{
	const struct nt_summary *s = &run->summary;
	char p50[NT_FMT_MS_LEN], p90[NT_FMT_MS_LEN], p99[NT_FMT_MS_LEN], max[NT_FMT_MS_LEN];
	char reason[NT_LABEL_EXPECTATION_LEN];
	const char *why, *delayed, *fix;

	fprintf(out, "\n%ssummary%s\n  %u rounds: ", st->bold, st->reset, s->rounds);
	print_verdict_counts(out, s);
	fputc('\n', out);
	if (s->rtt_p50_ns >= 0)
		fprintf(out, "  round trip p50 %s, p90 %s, p99 %s, max %s\n",
			nt_fmt_ms(s->rtt_p50_ns, p50, sizeof(p50)),
			nt_fmt_ms(s->rtt_p90_ns, p90, sizeof(p90)),
			nt_fmt_ms(s->rtt_p99_ns, p99, sizeof(p99)),
			nt_fmt_ms(s->rtt_max_ns, max, sizeof(max)));
	if (s->verdicts[NT_VERDICT_STALLED]) {
		unsigned listed = 0;

		fprintf(out, "  stalls (header->ACK):");
		for (; listed < s->n_stalls; listed++)
			fprintf(out, "%s round %u %s ms", listed ? "," : "",
				s->stalls[listed].round,
				nt_fmt_ms_digits(s->stalls[listed].gap_ns, 1, p50, sizeof(p50)));
		if (s->verdicts[NT_VERDICT_STALLED] > listed)
			fprintf(out, ", and %u more; all stalls %s to %s ms",
				s->verdicts[NT_VERDICT_STALLED] - listed,
				nt_fmt_ms_digits(s->stall_min_ns, 1, p50, sizeof(p50)),
				nt_fmt_ms_digits(s->stall_max_ns, 1, max, sizeof(max)));
		fputc('\n', out);
	}
	print_stall_cost(out, run);
	fprintf(out, "  capture: %" PRIu64 " frames, %" PRIu64 " dropped by the kernel%s\n",
		run->counts.frames, run->counts.kernel_dropped + run->counts.if_dropped,
		run->uncertain ? " -- VERDICTS UNCERTAIN" : "");
	if (run->cfg.delay_line && strcmp(run->cfg.delay_line, "wire") == 0)
		fprintf(out, "  delay line: %" PRIu64 " frames dropped\n",
			run->counts.wire_dropped);
	print_out_of_order(out, run, st);
	if (!run->teardown_seen && !run->interrupted)
		fprintf(out, "  %swarning: the connection's teardown was not fully captured%s\n",
			st->yellow, st->reset);
	if (run->interrupted)
		fprintf(out, "  %sinterrupted: the run was stopped before it finished%s\n",
			st->yellow, st->reset);

	print_counters(out, run);
	nt_render_explain(run, &why, &delayed, &fix);
	if (why) {
		fprintf(out, "  why: %s,\n     and %s\n", why, delayed);
		fprintf(out, "  fix: %s\n", fix);
	}
	if (run->predicting || run->no_prediction[0]) {
		struct nt_predict_words words;
		char model[160];

		if (run->predicting)
			fprintf(out, "  model: %s\n", nt_why_model_line(run, model, sizeof(model)));
		fprintf(out, "  this variant: %s", fix_words(run, &words));
		if (run->fix.rule != NT_RULE_NONE)
			fprintf(out, " [%s]", nt_predict_rule_name(run->fix.rule));
		fputc('\n', out);
	}
	fprintf(out, "  expectation (%s): %s%s%s%s%s\n", nt_expect_name(run->cfg.expect),
		run->expectation_met ? st->green : st->red,
		run->expectation_met ? "met" : "NOT met", st->reset,
		run->expectation_met ? "" : ": ",
		run->expectation_met
			? ""
			: nt_label_expectation(&run->expectation_why, reason, sizeof(reason)));
}

/* Digits of the largest round number, so the columns hold up to round 1000000. */
static int round_width(const struct nt_record *run)
{
	int w = 1;

	for (unsigned n = run->cfg.shape.rounds; n >= 10; n /= 10)
		w++;
	return w < 4 ? 4 : w;
}

static void print_compact(FILE *out, const struct nt_record *run, const struct nt_round *r,
			  const struct style *st)
{
	char rtt[NT_FMT_MS_LEN];

	fprintf(out, "round %-*u %s%-10s%s rtt %12s", round_width(run), r->index,
		verdict_color(st, r->verdict), nt_verdict_name(r->verdict), st->reset,
		nt_fmt_ms(r->rtt_ns, rtt, sizeof(rtt)));
	if (r->gap_ns >= 0)
		fprintf(out, "  header->ACK %9s ms",
			nt_fmt_ms_digits(r->gap_ns, 3, rtt, sizeof(rtt)));
	fputc('\n', out);
}

static const struct style *style_of(const struct nt_render_opts *opts)
{
	return opts && opts->color ? &ansi : &plain;
}

void nt_text_begin(FILE *out, const struct nt_record *run, const struct nt_round_view *handshake,
		   const struct nt_render_opts *opts)
{
	const struct style *st = style_of(opts);

	print_header(out, run, st);
	if (opts && opts->brief)
		return;
	if (opts && opts->summary_only)
		fputc('\n', out);
	else
		print_section(out, handshake, "handshake (times relative to the SYN)", NT_UNKNOWN,
			      st);
}

void nt_text_round(FILE *out, const struct nt_record *run, const struct nt_round_view *rv,
		   const struct nt_render_opts *opts)
{
	const struct style *st = style_of(opts);

	if (opts && opts->brief)
		return;
	if (opts && opts->summary_only) {
		print_compact(out, run, rv->round, st);
		return;
	}
	fputc('\n', out);
	print_round(out, rv, opts && opts->explain, st);
	print_round_evidence(out, rv, st);
}

void nt_text_end(FILE *out, const struct nt_record *run, const struct nt_round_view *teardown,
		 const struct nt_render_opts *opts)
{
	const struct style *st = style_of(opts);

	if (!(opts && (opts->summary_only || opts->brief)))
		print_section(out, teardown, "teardown (times relative to round 1's first write)",
			      run->first_start_ns, st);
	print_summary(out, run, st);
}

int nt_text_round_block(const struct nt_record *run, const struct nt_round_view *rv, char **out)
{
	size_t size = 0;
	FILE *fp = open_memstream(out, &size);

	(void)run;
	if (!fp)
		return -ENOMEM;
	print_round(fp, rv, false, &plain);
	print_round_evidence(fp, rv, &plain);
	if (fclose(fp) != 0) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	/* The block's last newline belongs to the document around it. */
	if (size && (*out)[size - 1] == '\n')
		(*out)[size - 1] = '\0';
	return 0;
}

static void verdict_counts_str(const struct nt_summary *s, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	if (!f) {
		snprintf(buf, len, "?");
		return;
	}
	print_verdict_counts(f, s);
	fclose(f);
}

/*
 * One row per variant: what each fix costs in latency and in packets, in 80
 * columns (a terminal in a classroom); a row with a stalled round is red
 * when colour is on. Verdicts too long for their column go on a line of
 * their own.
 */
#define TABLE_VERDICTS 22

static void print_table(FILE *out, const struct nt_record *runs, unsigned n, const struct style *st)
{
	const struct nt_record_config *c = &runs[0].cfg;
	struct nt_predict_words words;
	char reason[NT_LABEL_EXPECTATION_LEN];

	fprintf(out, "%snagle-trace%s: %u variants, each in its own lab, Linux %s\n", st->bold,
		st->reset, n, c->kernel);
	fprintf(out,
		"  header %" PRIu32 " B + body %" PRIu32 " B, reply %" PRIu32
		" B, %u rounds per variant; round trips in ms\n\n",
		c->shape.header_bytes, c->shape.body_bytes, c->shape.reply_bytes, c->shape.rounds);
	fprintf(out, "%-15s %-*s %8s %8s %6s %7s  %s\n", "variant", TABLE_VERDICTS, "verdicts",
		"p50", "max", "segs", "delacks", "expect");
	for (unsigned i = 0; i < n; i++) {
		const struct nt_record *r = &runs[i];
		const struct nt_summary *s = &r->summary;
		bool stalled = s->verdicts[NT_VERDICT_STALLED] > 0;
		const char *on = stalled ? st->red : "", *off = stalled ? st->reset : "";
		char verdicts[64];
		char delacks[24], p50[NT_FMT_MS_LEN], max[NT_FMT_MS_LEN];

		verdict_counts_str(s, verdicts, sizeof(verdicts));
		if (r->evidence.delayed_acks >= 0)
			snprintf(delacks, sizeof(delacks), "%" PRId64, r->evidence.delayed_acks);
		else
			snprintf(delacks, sizeof(delacks), "?");
		if (strlen(verdicts) > TABLE_VERDICTS) {
			fprintf(out, "%s%-15s %s%s\n", on, r->cfg.variant, verdicts, off);
			fprintf(out, "%s%-15s %-*s", on, "", TABLE_VERDICTS, "");
		} else {
			fprintf(out, "%s%-15s %-*s", on, r->cfg.variant, TABLE_VERDICTS, verdicts);
		}
		fprintf(out, " %8s %8s %6.2f %7s%s  %s%s%s\n",
			nt_fmt_ms_digits(s->rtt_p50_ns, 3, p50, sizeof(p50)),
			nt_fmt_ms_digits(s->rtt_max_ns, 3, max, sizeof(max)),
			nt_summary_segments_per_request(s), delacks, off,
			r->expectation_met ? st->green : st->red,
			r->expectation_met ? "met" : "NOT met", st->reset);
		if (!r->expectation_met)
			fprintf(out, "%15s   %s\n", "",
				nt_label_expectation(&r->expectation_why, reason, sizeof(reason)));
	}
	fprintf(out, "\n  segs: the client's data segments per request; expect: %s\n",
		nt_expect_name(c->expect));
	fprintf(out, "\nwhy each works or fails, as the model of the kernel's rules says:\n");
	for (unsigned i = 0; i < n; i++)
		if (runs[i].predicting || runs[i].no_prediction[0])
			fprintf(out, "%-15s %s [%s]\n", runs[i].cfg.variant,
				fix_words(&runs[i], &words),
				nt_predict_rule_name(runs[i].fix.rule));
	fprintf(out, "\n  delacks: the target's TcpExtDelayedACKs over the run (delayed-ACK timer "
		     "expiries)\n");
	fprintf(out,
		"  expectation: auto checks every round against the model's prediction "
		"(docs/model.md);\n"
		"  a named verdict is checked on rounds 2..N (round 1 runs in quick-ACK mode)\n");
}

/* A single run is its timeline; several are one comparison table, written at the end. */
static int text_begin(struct nt_renderer *r, const struct nt_record *run,
		      const struct nt_round_view *hs)
{
	if (r->n_runs == 1)
		nt_text_begin(r->out, run, hs, &r->opts);
	return 0;
}

static int text_round(struct nt_renderer *r, const struct nt_record *run,
		      const struct nt_round_view *rv)
{
	if (r->n_runs == 1)
		nt_text_round(r->out, run, rv, &r->opts);
	return 0;
}

static int text_end(struct nt_renderer *r, const struct nt_record *run,
		    const struct nt_round_view *td)
{
	if (r->n_runs == 1)
		nt_text_end(r->out, run, td, &r->opts);
	return 0;
}

static int text_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs)
{
	if (r->n_runs > 1)
		print_table(r->out, runs, n_runs, style_of(&r->opts));
	if (r->n_runs > 1 && r->interrupted)
		fprintf(r->out, "  interrupted: %u of %u variants ran before the signal\n", n_runs,
			r->n_runs);
	return ferror(r->out) ? -EIO : 0;
}

const struct nt_trace_doc nt_text_trace = {
	.begin = text_begin,
	.round = text_round,
	.end = text_end,
	.finish = text_finish,
};
