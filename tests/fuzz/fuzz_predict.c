// SPDX-License-Identifier: MIT
/*
 * fuzz_predict.c - libFuzzer target for the model's knobs (issue 25: an
 * uninitialised anchor read made `predict --rtt 2 --body 40000` crash or
 * spin). The input's bytes fill the knobs field by field, each within its
 * type and mostly within what the options allow (a few bytes choose values
 * beyond, for nt_predict_init() to refuse); the model then runs up to
 * ROUNDS_MAX rounds. Each round must come back with a verdict it accepts,
 * verdict bits within the four, hypotheses within NT_PREDICT_HYP_MAX, and
 * ranges that are ordered; the model must end (libFuzzer's -timeout and the
 * replay's ctest TIMEOUT catch a spin).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/predict.h"

#define ROUNDS_MAX 6
#define MS	   1000000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct bytes {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct bytes *b, unsigned len)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < len; i++) {
		v = v << 8 | (b->n ? *b->p : 0);
		if (b->n) {
			b->p++;
			b->n--;
		}
	}
	return v;
}

/* A value in [0, max], from @len bytes. */
static uint64_t upto(struct bytes *b, unsigned len, uint64_t max)
{
	return take(b, len) % (max + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = { data, size };
	struct nt_predict_knobs k;
	struct nt_predict p;
	struct nt_predict_round r;
	struct nt_err err = { "" };
	unsigned n = 0;

	nt_predict_knobs_default(&k);
	k.header_bytes = (uint32_t)upto(&b, 3, 70000);
	k.body_bytes = (uint32_t)upto(&b, 4, 16u << 20);
	k.reply_bytes = (uint32_t)upto(&b, 3, 70000);
	k.rounds = (unsigned)upto(&b, 1, ROUNDS_MAX);
	k.pattern = (enum nt_predict_pattern)upto(&b, 1, NT_PREDICT_PATTERN_COUNT);
	k.pause_ns = (int64_t)upto(&b, 2, 300) * MS / 4;
	k.write_gap_ns = (int64_t)upto(&b, 2, 300) * MS / 4;
	k.handler_ns = (int64_t)upto(&b, 2, 300) * MS / 4;
	k.client_nodelay = take(&b, 1) & 1;
	k.server_nodelay = take(&b, 1) & 1;
	k.server_quickack = (enum nt_predict_quickack)upto(&b, 1, 2);
	k.route_quickack = take(&b, 1) & 1;
	k.client_autocork = take(&b, 1) & 1;
	k.pingpong_thresh = (unsigned)upto(&b, 1, 255);
	k.ipv6 = take(&b, 1) & 1;
	k.mtu = (unsigned)(256 + upto(&b, 2, 65535 - 256));
	/* --rtt 0..200 ms in steps of 10 us, sometimes 0.05 ms */
	k.rtt_ns = (int64_t)upto(&b, 3, 20000) * 10000;
	k.threshold_ns = (int64_t)upto(&b, 2, 1000) * MS / 4;
	k.kernel.major = (unsigned)(2 + upto(&b, 1, 5));
	k.kernel.minor = (unsigned)upto(&b, 1, 20);
	k.hz = (unsigned)(24 + upto(&b, 2, 1000));
	k.route_rto_min_ms = (uint32_t)upto(&b, 2, 1000);
	k.rcvbuf_bytes = (uint32_t)(4096 + upto(&b, 3, 8u << 20));
	k.wake_slack_ns = (int64_t)upto(&b, 2, 10000) * 1000;
	k.wake_latency_ns = (int64_t)upto(&b, 2, 10000) * 1000;

	if (nt_predict_init(&p, &k, &err) < 0) {
		/* A refusal always says why, on one line. */
		if (!err.msg[0] || strchr(err.msg, '\n'))
			__builtin_trap();
		return 0;
	}
	while (nt_predict_round(&p, &r) == 1) {
		n++;
		if (n > k.rounds || r.hypotheses < 1 || r.hypotheses > NT_PREDICT_HYP_MAX ||
		    !nt_predict_accepts(&r, r.verdict) ||
		    (r.verdicts & ~((1u << NT_VERDICT_COUNT) - 1)) || r.gap_min_ns > r.gap_max_ns ||
		    r.ack_delay_min_ns > r.ack_delay_max_ns)
			__builtin_trap();
	}
	if (n != k.rounds)
		__builtin_trap();
	return 0;
}
