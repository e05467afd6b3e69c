// SPDX-License-Identifier: MIT
/*
 * predict_text.c - `nagle-trace predict` as text (see nt/render/predict.h):
 * the header's fate, the target's ACK decision, the body's, the reply's,
 * in the order the model expects them on the wire.
 */
#include <errno.h>
#include <stdio.h>

#include "nt/model/predict_words.h"
#include "nt/render/fmt.h"
#include "nt/render/predict.h"
#include "nt/render/why.h"

static void step(FILE *out, const char *who, const char *what, const struct nt_predict_why *w)
{
	struct nt_predict_words words;

	if (w->rule == NT_RULE_NONE)
		return;
	fprintf(out, "  %-6s %-14s %s [%s]\n", who, what, nt_predict_words(w, &words),
		nt_predict_rule_name(w->rule));
}

static void rx_state(FILE *out, const char *when, const struct nt_predict_rx *x)
{
	fprintf(out, "  target %s: %s (count %u), quick-ACK budget %u, ato %u ms%s\n", when,
		x->pingpong ? "ping-pong mode" : "not in ping-pong mode", x->pingpong_cnt, x->quick,
		x->ato_ms, x->certain ? "" : " (the model's states disagree)");
}

/* One round: the segments in the order they will leave, each with the rule behind it. */
static void round_text(FILE *out, const struct nt_predict_round *r)
{
	char verdicts[64], lo[NT_FMT_MS_LEN], hi[NT_FMT_MS_LEN];
	struct nt_predict_words words;

	fprintf(out, "\nround %u  %s  header->ACK %s-%s ms\n", r->index,
		nt_why_verdicts(r, verdicts, sizeof(verdicts)),
		nt_fmt_ms_digits(r->gap_min_ns, 3, lo, sizeof(lo)),
		nt_fmt_ms_digits(r->gap_max_ns, 3, hi, sizeof(hi)));
	rx_state(out, "at the header", &r->at_header);
	step(out, "c->t", r->coalesced ? "header+body" : "header", &r->header);
	if (r->coalesced) {
		step(out, "t->c", "ACK", &r->header_ack);
	} else if (r->header_ack_now || r->body_held) {
		step(out, "t->c", "ACK", &r->header_ack);
		if (!r->header_ack_now)
			step(out, "t->c", "ACK sent by", &r->ack);
		step(out, "c->t", "body", &r->body);
		if (r->body_held)
			step(out, "client", "body released", &r->release);
	} else {
		step(out, "c->t", "body", &r->body);
		step(out, "t->c", "ACK", &r->header_ack);
		step(out, "t->c", "ACK sent by", &r->ack);
	}
	step(out, "t->c", "reply", &r->reply);
	fprintf(out, "  verdict: %s [%s]\n", nt_predict_words(&r->verdict_why, &words),
		nt_predict_rule_name(r->verdict_why.rule));
	if (r->uncertain.rule != NT_RULE_NONE)
		fprintf(out, "  uncertain: %s [%s]\n", nt_predict_words(&r->uncertain, &words),
			nt_predict_rule_name(r->uncertain.rule));
}

static int one(FILE *out, const struct nt_predict_doc *d)
{
	const struct nt_predict_knobs *k = &d->knobs;
	unsigned counts[NT_VERDICT_COUNT] = { 0 };
	struct nt_predict_round r;
	struct nt_predict_words words;
	struct nt_predict_why fix;
	struct nt_predict p;
	struct nt_err err = { "" };
	char thr[NT_FMT_MS_LEN];
	const char *sep = "";

	if (nt_predict_init(&p, k, &err) < 0)
		return -EINVAL;
	fprintf(out,
		"nagle-trace predict: write-write-read, variant %s (%s)\n"
		"  the model of Linux %u.%u (%s) at HZ %u (%s); nothing runs\n"
		"  header %u B + body %u B, reply %u B, %u rounds, %s, MSS %u B, threshold %s "
		"ms\n",
		d->variant, d->summary, k->kernel.major, k->kernel.minor, d->kernel_source, k->hz,
		d->hz_source, k->header_bytes, k->body_bytes, k->reply_bytes, k->rounds,
		k->ipv6 ? "IPv6" : "IPv4", p.kern.mss,
		nt_fmt_ms_digits(k->threshold_ns, 1, thr, sizeof(thr)));
	while (nt_predict_round(&p, &r) == 1) {
		counts[r.verdict]++;
		round_text(out, &r);
		/* Stop at the first failed write, with its reason (errno: EFBIG, ENOSPC, EPIPE). */
		if (ferror(out))
			return errno ? -errno : -EIO;
	}
	nt_predict_fix(k, &fix);
	fprintf(out, "\nsummary\n  %u rounds predicted: ", k->rounds);
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++) {
		if (!counts[v])
			continue;
		fprintf(out, "%s%u %s", sep, counts[v], nt_verdict_name((enum nt_verdict)v));
		sep = ", ";
	}
	fprintf(out, "\n  this variant: %s [%s]\n", nt_predict_words(&fix, &words),
		nt_predict_rule_name(fix.rule));
	fprintf(out, "  check it on this kernel: unshare -Urn nagle-trace with the same options\n");
	return 0;
}

int nt_predict_text(FILE *out, const struct nt_predict_doc *docs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int ret;

		if (i)
			fputc('\n', out);
		ret = one(out, &docs[i]);
		if (ret < 0)
			return ret;
	}
	return ferror(out) ? -EIO : 0;
}
