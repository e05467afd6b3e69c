// SPDX-License-Identifier: MIT
/*
 * evidence.c - the kernel's account of a round (see nt/model/evidence.h).
 */
#include "nt/model/evidence.h"
#include "nt/unknown.h"

void nt_round_evidence_reset(struct nt_round_evidence *re)
{
	*re = (struct nt_round_evidence){
		.body_write_ns = NT_UNKNOWN,
		.client_unsent_bytes = NT_UNKNOWN,
		.client_unacked = NT_UNKNOWN,
		.client_snd_mss = NT_UNKNOWN,
		.body_sched_ns = NT_UNKNOWN,
		.body_dev_ns = NT_UNKNOWN,
		.body_acked_ns = NT_UNKNOWN,
		.body_hold_ns = NT_UNKNOWN,
		.target_sample_ns = NT_UNKNOWN,
		.target_queued_bytes = NT_UNKNOWN,
		.target_ato_us = NT_UNKNOWN,
		.target_proc_ato_ms = NT_UNKNOWN,
		.target_rto_ms = NT_UNKNOWN,
		.target_quick = NT_UNKNOWN,
		.target_pingpong = NT_UNKNOWN,
		.target_quickack_mode = NT_UNKNOWN,
		.target_rcv_mss = NT_UNKNOWN,
	};
}

void nt_round_evidence_complete(struct nt_round_evidence *re)
{
	if (!nt_known(re->body_write_ns) || !nt_known(re->body_dev_ns))
		return;
	/* Bytes that left inside write() were never held: 0, not a negative hold. */
	re->body_hold_ns = re->body_dev_ns > re->body_write_ns ? re->body_dev_ns - re->body_write_ns
							       : 0;
}
