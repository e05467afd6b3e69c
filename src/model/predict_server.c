// SPDX-License-Identifier: MIT
/*
 * predict_server.c - the target application's side of the socket, as Linux
 * decides it (net/ipv4/tcp.c tcp_cleanup_rbuf() and __tcp_sock_set_quickack(),
 * net/ipv4/tcp_output.c tcp_event_data_sent()).
 *
 * The application is nagle-trace's server: it reads whatever has arrived
 * (up to the request's end) whenever it is woken, re-arms TCP_QUICKACK before
 * every read when asked to, thinks for the handler time once the request is
 * whole, then writes the reply and goes back to reading.
 */
#include <stdio.h>

#include "predict_int.h"

/*
 * tcp_cleanup_rbuf() after a read: ACK when more than one frame is
 * unacknowledged, or when the read emptied the queue and a small segment
 * was pushed (ICSK_ACK_PUSHED2 always; ICSK_ACK_PUSHED outside ping-pong).
 */
static void cleanup_rbuf(struct nt_psim *s, uint32_t copied)
{
	const struct nt_prx *rx = &s->rx;
	bool emptied = copied > 0 && rx->unread == 0;
	enum nt_predict_rule rule = NT_RULE_NONE;

	if (!(rx->pending & NT_ACK_SCHED))
		return;
	if (rx->unacked > rx->rcv_mss)
		rule = NT_RULE_ACK_AT_READ_TWO_FRAMES;
	else if (emptied && (rx->pending & NT_ACK_PUSHED2))
		rule = NT_RULE_ACK_AT_READ_TWO_SMALL;
	else if (emptied && (rx->pending & NT_ACK_PUSHED) && !nt_prx_in_pingpong(s))
		rule = NT_RULE_ACK_AT_READ;
	if (rule != NT_RULE_NONE)
		nt_prx_send_ack(s, rule);
}

/* __tcp_sock_set_quickack(sk, 1): leave ping-pong; ACK now if a read would. */
void nt_prx_quickack_sockopt(struct nt_psim *s)
{
	s->rx.pingpong = 0;
	if (s->rx.pending & NT_ACK_SCHED) {
		s->rx.pending |= NT_ACK_PUSHED;
		cleanup_rbuf(s, 1);
	}
}

static void start_reply(struct nt_psim *s)
{
	s->app = NT_PAPP_THINKING;
	nt_psim_post(s, NT_PEV_REPLY, nt_psim_reply_at(s), 0, 0, false, 0);
}

void nt_prx_read(struct nt_psim *s)
{
	uint32_t want = s->header + s->body - s->app_got, copied;

	s->read_pending = false;
	if (s->app != NT_PAPP_READING || nt_psim_late_read(s))
		return;
	s->rx.owned = true;
	/* nagle-trace's evidence samples the socket here, before the read. */
	if (!s->sampled && s->app_got + s->rx.unread >= s->header) {
		s->sampled = true;
		nt_prx_snapshot(s, &s->at_header);
	}
	if (s->k->server_quickack == NT_PREDICT_QUICKACK_REARM)
		nt_prx_quickack_sockopt(s);
	copied = s->rx.unread < want ? s->rx.unread : want;
	if (copied)
		s->rx.unread_truesize = (uint32_t)((uint64_t)s->rx.unread_truesize *
						   (s->rx.unread - copied) / s->rx.unread);
	s->rx.unread -= copied;
	s->app_got += copied;
	if (copied)
		cleanup_rbuf(s, copied);
	s->rx.owned = false;
	/* release_sock(): what arrived meanwhile is processed now. */
	for (unsigned i = 0; i < s->rx.n_backlog; i++)
		nt_prx_process_segment(s, &s->rx.backlog[i]);
	s->rx.n_backlog = 0;
	if (s->app_got == s->header + s->body)
		start_reply(s);
	else if (s->rx.unread && !s->read_pending) {
		s->read_pending = true;
		nt_psim_post(s, NT_PEV_READ, s->now, 0, 0, false, 0);
	}
}

static void note_reply(struct nt_psim *s, const int j[3], unsigned before, unsigned segs)
{
	unsigned th = s->kern->pingpong_thresh;

	if (!s->out)
		return;
	if (j[1] < (int)s->rx.ato)
		NT_PSIM_WHY(&s->out->reply, NT_RULE_PINGPONG_COUNT, NT_SAY_REPLY_PINGPONG,
			    s->k->reply_bytes, segs, j[0], j[1], j[2], s->rx.ato, before,
			    s->rx.pingpong, th);
	else
		NT_PSIM_WHY(&s->out->reply, NT_RULE_REPLY_AFTER_ATO, NT_SAY_REPLY_AFTER_ATO,
			    s->k->reply_bytes, j[0], j[1], j[2], s->rx.ato, s->rx.pingpong, th);
}

/*
 * The reply: every segment carries the pending ACK (tcp_event_ack_sent())
 * and, sent within ato of the last data received, counts toward ping-pong
 * (tcp_event_data_sent(), inet_csk_inc_pingpong_cnt()).
 */
void nt_prx_reply(struct nt_psim *s)
{
	unsigned segs = (s->k->reply_bytes + s->kern->mss - 1) / s->kern->mss, before;
	int lo, nom, hi, gap;

	s->rx.owned = true;
	nt_pt_jiffies(s, s->rx.lrcv, s->now, &lo, &nom, &hi);
	gap = (lo < (int)s->rx.ato) == (hi < (int)s->rx.ato)
		      ? nom
		      : nt_psim_pick(s, lo, nom, hi, NT_RULE_JIFFY_BOUNDARY);
	before = s->rx.pingpong;
	for (unsigned i = 0; i < segs && i < 256; i++) {
		if (i == 0 && (s->rx.pending & NT_ACK_SCHED) && !s->a_sent_seen) {
			s->a_sent_seen = true;
			s->a_sent = s->now;
			NT_PSIM_NOTE(s, ack, NT_RULE_ACK_ON_REPLY, NT_SAY_ACK_ON_REPLY);
		}
		nt_prx_ack_sent(s);
		if (gap < (int)s->rx.ato && s->rx.pingpong < 255)
			s->rx.pingpong++;
	}
	note_reply(s, (const int[3]){ lo, gap, hi }, before, segs);
	s->rx.owned = false;
	nt_ptx_target_segment(s, nt_prx_rcv_nxt(s), s->k->reply_bytes);
	s->app = NT_PAPP_READING;
	s->app_got = 0;
	/* The server goes straight back to read() (and re-arms TCP_QUICKACK). */
	s->read_pending = true;
	nt_psim_post(s, NT_PEV_READ, s->now, 0, 0, false, 0);
}
