// SPDX-License-Identifier: MIT
/*
 * evidence.c - the kernel's account of a round (see nt/model/evidence.h).
 */
#include "nt/model/evidence.h"

void nt_round_evidence_reset(struct nt_round_evidence *re)
{
	*re = (struct nt_round_evidence){
		.client_unsent_bytes = -1,
		.client_unacked = -1,
		.client_snd_mss = -1,
		.body_hold_ns = -1,
		.target_queued_bytes = -1,
		.target_ato_us = -1,
		.target_proc_ato_ms = -1,
		.target_rto_ms = -1,
		.target_quick = -1,
		.target_pingpong = -1,
		.target_quickack_mode = -1,
		.target_rcv_mss = -1,
	};
}

void nt_round_evidence_complete(struct nt_round_evidence *re)
{
	if (!re->body_write_ns || !re->body_dev_ns)
		return;
	/* Bytes that left inside write() were never held: 0, not a negative hold. */
	re->body_hold_ns = re->body_dev_ns > re->body_write_ns ? re->body_dev_ns - re->body_write_ns
							       : 0;
}
