// SPDX-License-Identifier: MIT
/*
 * trace_knobs.c - a live run's configuration as the model's knobs (see
 * nt/live/trace.h): what the exchange does, what the lab sets, what the
 * kernel is.
 */
#include "nt/live/trace.h"

void nt_trace_knobs(const struct nt_trace_config *opt, const struct nt_kernel_facts *kf,
		    struct nt_predict_knobs *k)
{
	nt_predict_knobs_default(k);
	nt_kernel_knobs(kf, k);
	k->header_bytes = opt->shape.header_bytes;
	k->body_bytes = opt->shape.body_bytes;
	k->reply_bytes = opt->shape.reply_bytes;
	k->rounds = opt->shape.rounds;
	k->pause_ns = opt->pause_ns;
	k->write_gap_ns = opt->write_gap_ns;
	k->handler_ns = opt->handler_ns;
	k->threshold_ns = opt->threshold_ns;
	k->ipv6 = opt->ipv6;
	k->rtt_ns = opt->rtt_ns;
	k->pingpong_thresh = opt->pingpong_thresh > 0 ? (unsigned)opt->pingpong_thresh : 0;
	nt_variant_knobs(opt->variant, k);
}
