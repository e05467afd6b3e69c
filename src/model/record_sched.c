// SPDX-License-Identifier: MIT
/*
 * record_sched.c - what the programs did in one round of a live trace, read
 * off its system call events for the model (nt_predict_observe()).
 *
 * Every time is on the capture clock: segments carry the capture's kernel
 * timestamps, system calls the CLOCK_REALTIME instants the exchange read
 * around them.
 */
#include "nt/model/record.h"
#include "nt/unknown.h"

/* When the request's last byte was first captured, NT_UNKNOWN if never. */
static int64_t request_end_ns(const struct nt_event *ev, size_t n)
{
	uint32_t end = 0;
	int64_t t = NT_UNKNOWN;

	for (size_t i = 0; i < n; i++) {
		const struct nt_segment *g = &ev[i].seg;

		if (ev[i].kind != NT_EVENT_SEGMENT || g->dir != NT_DIR_C2T || !g->payload_bytes)
			continue;
		if (g->seq_rel + g->payload_bytes > end) {
			end = g->seq_rel + g->payload_bytes;
			t = ev[i].t_ns;
		}
	}
	return t;
}

/* The first return (@ret) or entry of @call on @side, NT_UNKNOWN if none. */
static int64_t call_ns(const struct nt_event *ev, size_t n, enum nt_side side, enum nt_call call,
		       bool ret)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == NT_EVENT_SYSCALL && ev[i].sys.side == side &&
		    ev[i].sys.call == call)
			return ret ? ev[i].t_ns : ev[i].sys.enter_ns;
	return NT_UNKNOWN;
}

static int64_t span(int64_t from, int64_t to)
{
	return nt_known(from) && nt_known(to) && to >= from ? to - from : -1;
}

void nt_record_observe_schedule(const struct nt_event *ev, size_t n, int64_t one_way_ns,
				int64_t *prev_reply_read_ns, struct nt_predict_sched *out)
{
	int64_t req = request_end_ns(ev, n);
	int64_t rd = call_ns(ev, n, NT_SIDE_TARGET, NT_CALL_READ_REQUEST, true);
	int64_t first = call_ns(ev, n, NT_SIDE_CLIENT, NT_CALL_WRITE_HEADER, false);
	int64_t body = call_ns(ev, n, NT_SIDE_CLIENT, NT_CALL_WRITE_BODY, false);

	nt_predict_sched_unknown(out);
	if (nt_known(req))
		out->read_after_ns = span(req + one_way_ns, rd);
	out->reply_after_ns = span(rd, call_ns(ev, n, NT_SIDE_TARGET, NT_CALL_WRITE_REPLY, false));
	/*
	 * From write(header)'s entry: the header leaves inside that call, and a
	 * client not scheduled before the call returns writes its body late
	 * just as one that paused between the calls.
	 */
	out->write_gap_ns = span(first, body);
	/* The call's entry and return: the verdict takes the return (nt_verdict_by_gap()). */
	out->body_call_ns = span(body, call_ns(ev, n, NT_SIDE_CLIENT, NT_CALL_WRITE_BODY, true));
	if (!nt_known(first))
		first = call_ns(ev, n, NT_SIDE_CLIENT, NT_CALL_WRITE_REQUEST, false);
	out->pause_ns = span(*prev_reply_read_ns, first);
	*prev_reply_read_ns = call_ns(ev, n, NT_SIDE_CLIENT, NT_CALL_READ_REPLY, true);
}
