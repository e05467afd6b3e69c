/* SPDX-License-Identifier: MIT */
/*
 * predict_int.h - internals of the predict module, shared by its files only.
 *
 * One round is replayed by a small discrete-event simulation (struct
 * nt_psim): the client's writes and its send side (predict_client.c), the
 * target's receive side and its application (predict_target.c), on a clock
 * of time windows (predict_clock.c). Every decision the timing cannot
 * settle goes through nt_psim_choose(): a run follows one path of choices,
 * and predict.c enumerates the paths, so a round's prediction is the union
 * of what every path gives.
 *
 * Times are windows [lo, hi] with a nominal value, as offsets from an
 * anchor: the round's start, or an instant whose time is itself uncertain
 * (a timer firing, the end of a timed wait). Anchors form a tree, so the
 * time between two causally related instants stays as narrow as the waits
 * between them, even when both are uncertain on the round's clock.
 */
#ifndef NT_MODEL_PREDICT_INT_H
#define NT_MODEL_PREDICT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/predict.h"

#define NT_PSIM_EV_MAX	    192
#define NT_PSIM_ANCHOR_MAX  48
#define NT_PSIM_SEG_MAX	    48 /* request segments followed one by one */
#define NT_PSIM_CHOICE_MAX  24
#define NT_PSIM_BACKLOG_MAX NT_PSIM_SEG_MAX
#define NT_PSIM_PROC_NS	    100000 /* processing between "simultaneous" events */
#define NT_PSIM_SOFTIRQ_NS  250000 /* a timer's softirq runs this soon after its tick */
#define NT_PSIM_LATE_TICKS  1	   /* a timer may run this many ticks late */

/* icsk_ack.pending bits (include/net/inet_connection_sock.h) */
#define NT_ACK_SCHED   1u
#define NT_ACK_TIMER   2u
#define NT_ACK_PUSHED  4u
#define NT_ACK_PUSHED2 8u

/**
 * struct nt_ptime - an instant: a window of offsets from an anchor
 * @a: the anchor (0: the round's start)
 * @lo: earliest offset
 * @nom: nominal offset
 * @hi: latest offset
 */
struct nt_ptime {
	int a;
	int64_t lo;
	int64_t nom;
	int64_t hi;
};

/**
 * struct nt_panchor - an instant other times are measured from
 * @parent: the anchor it is measured from (-1 for the root)
 * @lo: earliest offset from @parent
 * @nom: nominal offset
 * @hi: latest offset
 * @ph_known: its position within a jiffy is known
 * @ph_lo: earliest time since the last tick
 * @ph_hi: latest (< one jiffy)
 */
struct nt_panchor {
	int parent;
	int64_t lo;
	int64_t nom;
	int64_t hi;
	bool ph_known;
	int64_t ph_lo;
	int64_t ph_hi;
};

enum nt_pev_kind {
	NT_PEV_CLIENT = 0, /* the client runs its write steps */
	NT_PEV_C2T,	   /* a client segment reaches the target (RTT > 0) */
	NT_PEV_T2C,	   /* a target segment reaches the client (RTT > 0) */
	NT_PEV_READ,	   /* the target application reads */
	NT_PEV_DELACK,	   /* the target's delayed-ACK timer */
	NT_PEV_REPLY,	   /* the target application writes the reply */
	NT_PEV_PROBE,	   /* the client's probe timer (corked data) */
};

/* Events of one channel keep their order; events of two channels may race. */
enum nt_pev_chan {
	NT_PCH_CLIENT = 0,
	NT_PCH_C2T,
	NT_PCH_T2C,
	NT_PCH_SERVER,
	NT_PCH_TIMER,
	NT_PCH_PROBE,
};

/**
 * struct nt_pevent - a pending event
 * @kind: enum nt_pev_kind
 * @chan: enum nt_pev_chan
 * @seq: insertion order
 * @gen: for timers: the generation it was armed with (stale ones are dropped);
 *       for a segment: its tag on the round's ladder (predict_ladder.c)
 * @t: when
 * @x: segment start, ACK number, or reply bytes
 * @y: segment length
 * @psh: the segment carries PSH
 * @pure: a target segment without data
 */
struct nt_pevent {
	uint8_t kind;
	uint8_t chan;
	uint32_t seq;
	uint32_t gen;
	struct nt_ptime t;
	uint32_t x;
	uint32_t y;
	bool psh;
	bool pure;
};

/**
 * struct nt_pseg - request bytes [start, start + len) in one segment
 * @start: offset in the round's request
 * @len: bytes
 * @psh: PSH set (the segment ends a write)
 */
struct nt_pseg {
	uint32_t start;
	uint32_t len;
	bool psh;
};

/**
 * struct nt_prx - the target socket's receive side (icsk_ack and friends)
 * @pingpong: icsk_ack.pingpong
 * @quick: icsk_ack.quick, lowest value the hypotheses allow
 * @quick_hi: highest (the budget is known when both agree)
 * @ato: icsk_ack.ato, jiffies
 * @rcv_mss: icsk_ack.rcv_mss
 * @lss: icsk_ack.last_seg_size
 * @pending: icsk_ack.pending (NT_ACK_*)
 * @unacked: rcv_nxt - rcv_wup
 * @unread: rcv_nxt - copied_seq
 * @ssthresh: tp->rcv_ssthresh, bytes
 * @wnd_base: the window the last ACK offered (tp->rcv_wnd), bytes
 * @ratio: tp->scaling_ratio, 256ths
 * @unread_truesize: truesize of what is queued and unread
 * @lrcv: icsk_ack.lrcvtime, the last data received
 * @timer_arm: when the delayed-ACK timer was (re)armed
 * @timer_ato: the ato it was armed with, jiffies
 * @timer_gen: its generation
 * @srtt_lo_ns: smoothed RTT window
 * @srtt_hi_ns: smoothed RTT window
 * @owned: the application holds the socket lock (inside read or write)
 * @n_backlog: segments in @backlog
 * @delayed_acks: delayed-ACK timer ACKs this round
 * @backlog: segments that arrived while @owned (last: not cleared per round)
 */
struct nt_prx {
	unsigned pingpong;
	unsigned quick;
	unsigned quick_hi;
	unsigned ato;
	uint32_t rcv_mss;
	uint32_t lss;
	unsigned pending;
	uint32_t unacked;
	uint32_t unread;
	uint32_t ssthresh;
	uint32_t wnd_base;
	unsigned ratio;
	uint32_t unread_truesize;
	struct nt_ptime lrcv;
	struct nt_ptime timer_arm;
	unsigned timer_ato;
	uint32_t timer_gen;
	int64_t srtt_lo_ns;
	int64_t srtt_hi_ns;
	bool owned;
	unsigned n_backlog;
	unsigned delayed_acks;
	struct nt_pseg backlog[NT_PSIM_BACKLOG_MAX];
};

/**
 * struct nt_ptx - the client socket's send side, in request offsets
 * @queued: bytes written so far (write_seq)
 * @sent: snd_nxt
 * @acked: snd_una
 * @sml: snd_sml, end of the last small segment sent; 0: none this round
 * @sml_start: where that small segment started
 * @rel_lo: the small segment whose ACK is being processed: start
 * @rel_hi: its end
 * @ends: end offset of every segment sent, in order
 * @n_sent: how many
 * @write_ends: where each write ended (tcp_push marks PSH there)
 * @n_write_ends: how many
 * @cork: TCP_CORK is set
 * @more: the last send had MSG_MORE
 * @owned: inside a write (ACKs wait in @backlog_ack until it returns)
 * @backlog_ack: highest ACK that arrived while @owned, 0 none
 * @op: the next step of the write pattern
 * @probe_gen: generation of the probe timer (corked data)
 * @reply_got: reply bytes received
 * @hold_rule: why the last partial segment was held, NT_RULE_NONE if not
 */
struct nt_ptx {
	uint32_t queued;
	uint32_t sent;
	uint32_t acked;
	uint32_t sml;
	uint32_t sml_start;
	uint32_t rel_lo;
	uint32_t rel_hi;
	uint32_t ends[NT_PSIM_SEG_MAX];
	unsigned n_sent;
	uint32_t write_ends[4];
	unsigned n_write_ends;
	bool cork;
	bool more;
	bool owned;
	uint32_t backlog_ack;
	unsigned op;
	uint32_t probe_gen;
	uint32_t reply_got;
	enum nt_predict_rule hold_rule;
};

/**
 * struct nt_pmark - H, A or B as the capture will see it
 * @seen: it happened
 * @idx: its position among captured segments and syscall returns
 * @t: when, at the capture point
 * @pure: A carries no data
 */
struct nt_pmark {
	bool seen;
	long idx;
	struct nt_ptime t;
	bool pure;
};

/**
 * struct nt_pwindow - the header's ACK, worked out once per path by
 * nt_psim_finish()
 * @seen: H and A both seen (else @lo, @nom and @hi are 0)
 * @lo: H -> A at the capture, the shortest
 * @nom: H -> A, nominal
 * @hi: H -> A, the longest
 * @delay_lo: the target's part of it, H's arrival -> A's leaving, the
 *            shortest (at least 0: A leaves after H arrives, transit jitter
 *            only); 0 when no ACK of the header left
 * @delay_hi: the target's part, the longest
 */
struct nt_pwindow {
	bool seen;
	int64_t lo;
	int64_t nom;
	int64_t hi;
	int64_t delay_lo;
	int64_t delay_hi;
};

enum nt_papp_state {
	NT_PAPP_READING = 0,
	NT_PAPP_THINKING,
	NT_PAPP_DONE,
};

/**
 * struct nt_psim - one run of one round along one path of choices
 *
 * @softirq is set while a kernel event (a timer, a segment off the delay
 * line) is processed: the exchange is asleep in ppoll then, and what it
 * does in reply waits for it to wake.
 */
struct nt_psim {
	const struct nt_predict_knobs *k;
	const struct nt_predict_kernel *kern;
	unsigned round;
	uint64_t base;
	uint32_t header;
	uint32_t body;
	/* the path */
	uint8_t forced[NT_PSIM_CHOICE_MAX];
	unsigned n_forced;
	unsigned n_seen;
	uint8_t arity[NT_PSIM_CHOICE_MAX];
	enum nt_predict_rule branch_rule[NT_PSIM_CHOICE_MAX];
	bool overflow;
	bool shortened;
	unsigned fuzzy;
	bool softirq;
	/* the clock */
	struct nt_panchor anc[NT_PSIM_ANCHOR_MAX];
	int n_anc;
	/* pending events */
	struct nt_pevent ev[NT_PSIM_EV_MAX];
	unsigned n_ev;
	uint32_t seq;
	struct nt_ptime now;
	long capture;
	/* the two sockets and the target application */
	struct nt_prx rx;
	struct nt_ptx tx;
	enum nt_papp_state app;
	uint32_t app_got;
	bool read_pending;
	bool sampled;
	/* what the capture will show */
	struct nt_pmark h;
	struct nt_pmark a;
	struct nt_pmark b;
	struct nt_ptime h_arrival;
	struct nt_ptime a_sent;
	bool a_sent_seen;
	long write_body_idx;
	bool done;
	struct nt_ptime reply_at_client;
	unsigned header_segs;
	unsigned body_segs;
	unsigned data_segs;
	/* results */
	enum nt_verdict verdict;
	struct nt_pwindow window;
	struct nt_predict_rx at_header;
	struct nt_predict_round *out; /* the primary path only: decisions in words */
	/* the observed schedule (predict_sched.c): NULL on the knobs' own */
	const struct nt_predict_sched *sched;
	unsigned sched_parts;
	/* the part of H -> A the delay line's lateness was measured to be (0: none) */
	int64_t gap_late_ns;
	struct nt_ptime req_whole;
	bool req_whole_seen;
	bool late_read_done;
	bool body_ack_seen;
	bool part_ack_seen;
	uint32_t a_ack;
	bool timer_left_pingpong;
	bool a_posted;
};

/*
 * A timed wait (ppoll) usually ends about this late: the median measured on
 * the shared two-core machine was 0.16 ms (p90 0.34 ms); the knob's
 * wake_slack_ns bounds the tail.
 */
#define NT_PSIM_WAKE_NOMINAL_NS 200000
#define NT_PSIM_WAKE_MIN_NS	20000
/*
 * Where in a jiffy an instant most likely falls when the model cannot bound
 * it: the exchange runs in step with the last timer tick (a stall ends on
 * one, and the next round follows within a fraction of a millisecond).
 */
#define NT_PSIM_PHASE_NOMINAL_NS 400000

/* predict_clock.c: the clock, the choices, the event queue */

/** nt_psim_wake_nominal() - how late a timed wait most likely ends */
int64_t nt_psim_wake_nominal(const struct nt_psim *s);
/** nt_psim_clock_init() - the round's start as anchor 0, with its jiffy phase if known */
void nt_psim_clock_init(struct nt_psim *s, bool ph_known, int64_t ph_lo, int64_t ph_hi);
/** nt_pt_add() - @t plus a window, on the same anchor */
struct nt_ptime nt_pt_add(struct nt_ptime t, int64_t lo, int64_t nom, int64_t hi);
/** nt_pt_anchor() - a new anchor at @base plus a window; @at_tick: it sits on a jiffy tick */
struct nt_ptime nt_pt_anchor(struct nt_psim *s, struct nt_ptime base, int64_t lo, int64_t nom,
			     int64_t hi, bool at_tick);
/** nt_pt_abs() - @t as offsets from the round's start */
void nt_pt_abs(const struct nt_psim *s, struct nt_ptime t, int64_t *lo, int64_t *nom, int64_t *hi);
/** nt_pt_diff() - @later - @earlier, as narrow as their common anchors allow */
void nt_pt_diff(const struct nt_psim *s, struct nt_ptime later, struct nt_ptime earlier,
		int64_t *lo, int64_t *nom, int64_t *hi);
/** nt_pt_phase() - where in its jiffy @t falls; false when unknown */
bool nt_pt_phase(const struct nt_psim *s, struct nt_ptime t, int64_t *lo, int64_t *hi);
/** nt_pt_phase_or_any() - nt_pt_phase(), or the whole jiffy with the nominal phase */
void nt_pt_phase_or_any(const struct nt_psim *s, struct nt_ptime t, int64_t *lo, int64_t *nom,
			int64_t *hi);
/** nt_pt_jiffies() - the jiffy ticks from @earlier to @later: lowest, nominal, highest */
void nt_pt_jiffies(const struct nt_psim *s, struct nt_ptime earlier, struct nt_ptime later, int *lo,
		   int *nom, int *hi);
/** nt_psim_choose() - an uncertain decision among @n outcomes: 0 nominal, else this path's */
unsigned nt_psim_choose(struct nt_psim *s, unsigned n, enum nt_predict_rule rule);
/** nt_psim_marks_fixed() - H, A and B are seen: the verdict is settled */
bool nt_psim_marks_fixed(const struct nt_psim *s);
/** nt_psim_pick() - an uncertain jiffy count: the nominal one or an end of the range */
int nt_psim_pick(struct nt_psim *s, int lo, int nom, int hi, enum nt_predict_rule rule);
/** nt_psim_post() - queue an event (@flag: PSH for a segment, pure for a target segment) */
void nt_psim_post(struct nt_psim *s, enum nt_pev_kind kind, struct nt_ptime t, uint32_t x,
		  uint32_t y, bool flag, uint32_t gen);
/** nt_psim_next() - the next event, a choice when two channels' times overlap */
bool nt_psim_next(struct nt_psim *s, struct nt_pevent *out);

/*
 * Tell a decision: its rule, its sentence and the sentence's numbers
 * (worded by nt_predict_words()).
 */
#define NT_PSIM_WHY(w, rule, say, ...) \
	nt_psim_why(w, rule, say, (const int64_t[NT_PREDICT_SAY_ARGS]){ __VA_ARGS__ })

/* The same on the primary path only. */
#define NT_PSIM_NOTE(s, field, ...)                                 \
	do {                                                        \
		if ((s)->out)                                       \
			NT_PSIM_WHY(&(s)->out->field, __VA_ARGS__); \
	} while (0)

/* predict_target.c: the target's receive side */

/** nt_prx_in_pingpong() - inet_csk_in_pingpong_mode() */
bool nt_prx_in_pingpong(const struct nt_psim *s);
/** nt_prx_rcv_nxt() - request bytes received this round */
uint32_t nt_prx_rcv_nxt(const struct nt_psim *s);
/** nt_prx_jiffies_ms() - jiffies in milliseconds */
unsigned nt_prx_jiffies_ms(const struct nt_psim *s, unsigned j);
/** nt_prx_ack_sent() - tcp_event_ack_sent() and the window the segment offers */
void nt_prx_ack_sent(struct nt_psim *s);
/** nt_prx_send_ack() - tcp_send_ack(), decided by @rule */
void nt_prx_send_ack(struct nt_psim *s, enum nt_predict_rule rule);
/** nt_prx_process_segment() - one data segment through the receive path */
void nt_prx_process_segment(struct nt_psim *s, const struct nt_pseg *seg);
/** nt_prx_arrive() - a client segment reaches the target (the backlog while owned) */
void nt_prx_arrive(struct nt_psim *s, const struct nt_pseg *seg);
/** nt_prx_delack_fire() - the delayed-ACK timer armed as generation @gen */
void nt_prx_delack_fire(struct nt_psim *s, uint32_t gen);
/** nt_prx_snapshot() - the target's state as /proc/net/tcp and TCP_INFO show it */
void nt_prx_snapshot(const struct nt_psim *s, struct nt_predict_rx *out);

/* predict_server.c: the target application */

/** nt_prx_read() - the server reads what has arrived (TCP_QUICKACK first if re-armed) */
void nt_prx_read(struct nt_psim *s);
/** nt_prx_reply() - the server writes the reply */
void nt_prx_reply(struct nt_psim *s);
/** nt_prx_quickack_sockopt() - setsockopt(TCP_QUICKACK, 1) on the target */
void nt_prx_quickack_sockopt(struct nt_psim *s);

/* predict_client.c: the client's writes and send side, and the link */

/** nt_ptx_run() - the client's write steps until a gap or the end */
void nt_ptx_run(struct nt_psim *s);
/** nt_ptx_ack() - an ACK reaches the client's TCP (after the write, if inside one) */
void nt_ptx_ack(struct nt_psim *s, uint32_t ack);
/** nt_ptx_probe() - the client's probe timer armed as generation @gen */
void nt_ptx_probe(struct nt_psim *s, uint32_t gen);
/** nt_ptx_target_segment() - the target sends a segment toward the client */
void nt_ptx_target_segment(struct nt_psim *s, uint32_t ack, uint32_t reply_bytes);
/** nt_ptx_client_segment() - a target segment reaches the client's veth end */
void nt_ptx_client_segment(struct nt_psim *s, uint32_t ack, uint32_t reply_bytes);

/* predict_sched.c: the observed schedule in the simulation */

/* How closely the simulation follows an observed instant (capture clock to target clock). */
#define NT_PSIM_SCHED_TOL_NS 250000

/** nt_psim_observed_in() - @d from now on the observed schedule, within NT_PSIM_SCHED_TOL_NS */
struct nt_ptime nt_psim_observed_in(struct nt_psim *s, int64_t d);
/** nt_psim_late_read() - defer a read that completes the request to its observed time */
bool nt_psim_late_read(struct nt_psim *s);
/** nt_psim_reply_at() - when the reply is written, on the observed schedule or the knobs' */
struct nt_ptime nt_psim_reply_at(struct nt_psim *s);
/** nt_psim_path_late() - how late the delay line may release a frame this round (0: on time) */
int64_t nt_psim_path_late(const struct nt_psim *s);

/**
 * nt_psim_mark_late() - how late the delay line was measured to release this
 * round's H (@h) or A, on a round whose path was late (-1: not measured,
 * anywhere up to nt_psim_path_late())
 */
int64_t nt_psim_mark_late(const struct nt_psim *s, bool h);

/**
 * nt_psim_gap_late() - how much of the round's header -> ACK gap was the delay
 * line's lateness, as measured (nt_predict_sched.gap_late_ns; 0: none)
 */
int64_t nt_psim_gap_late(const struct nt_psim *s);
/** nt_psim_write_gap() - the client's write gap in effect this round */
int64_t nt_psim_write_gap(const struct nt_psim *s, bool *observed);

/** nt_psim_body_call() - how long write(body) took to return when observed late, else 0 */
int64_t nt_psim_body_call(const struct nt_psim *s);
/** nt_predict_sched_shift() - a late round start moves the target's last receive back */
void nt_predict_sched_shift(struct nt_predict *p);

/**
 * nt_psched_late_timer() - whether @r is a round the model held that the
 * target's delayed-ACK timer made a stall by firing past @r's window
 * (nt_predict_measured_ack()): @measured stalled, A the timer's pure ACK,
 * @gap_ns past @r->gap_max_ns
 */
bool nt_psched_late_timer(const struct nt_predict_round *r, int measured, int64_t gap_ns,
			  bool a_pure);
/** nt_psched_take_late_timer() - @r accepts the stall, disturbed (timer), its line says how late */
void nt_psched_take_late_timer(struct nt_predict_round *r, int64_t gap_ns);

/* predict_ladder.c: the primary path's segments, for the round's ladder */

/** nt_psim_ladder_client() - a client segment leaves now; Return: its tag for the arrival, 0 none */
uint32_t nt_psim_ladder_client(struct nt_psim *s, const struct nt_pseg *seg, bool has_h,
			       bool has_b);
/** nt_psim_ladder_target() - a target segment leaves now; Return: its tag, 0 none */
uint32_t nt_psim_ladder_target(struct nt_psim *s, uint32_t ack, uint32_t reply_bytes);
/** nt_psim_ladder_arrive() - the segment tagged @tag reaches the other end now */
void nt_psim_ladder_arrive(struct nt_psim *s, uint32_t tag);
/** nt_psim_ladder_at() - now, nominally, from the round's start */
int64_t nt_psim_ladder_at(const struct nt_psim *s);

/* predict_sim.c: one round along one path */

/** nt_psim_setup() - a run of round @round from hypothesis @h */
void nt_psim_setup(struct nt_psim *s, const struct nt_predict *p, const struct nt_predict_state *h,
		   unsigned round);
/** nt_psim_run() - run the round's events to the end */
void nt_psim_run(struct nt_psim *s);
/** nt_psim_finish() - the verdict from H, A and B, as nt_verdict_rule() will judge it */
void nt_psim_finish(struct nt_psim *s);
/** nt_psim_next_state() - the target's state handed to the next round */
void nt_psim_next_state(struct nt_psim *s, struct nt_predict_state *out);
/** nt_psim_why() - fill a decision's rule, sentence and numbers (NT_PSIM_WHY()) */
void nt_psim_why(struct nt_predict_why *w, enum nt_predict_rule rule, enum nt_predict_say say,
		 const int64_t n[NT_PREDICT_SAY_ARGS]);

#endif
