// SPDX-License-Identifier: MIT
/*
 * predict_rules.c - the model's public vocabulary: rule names and the kernel
 * function each comes from, kernel release parsing, and the constants and
 * rule versions a set of knobs selects (see nt/model/predict.h).
 *
 * Where a kernel release changed a rule, nt_predict_kernel_init() branches
 * on the release and names the change. Releases are mainline ones; several
 * of these fixes were also backported to stable series, so a distribution
 * kernel older than the cut may already behave like the newer one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/predict.h"

struct rule_info {
	const char *name;
	const char *function;
	const char *summary;
};

static const struct rule_info rules[NT_RULE_COUNT] = {
	[NT_RULE_NONE] = { "none", "", "no decision of this kind" },
	[NT_RULE_FULL_SEGMENT] = { "full_segment", "tcp_nagle_test",
				   "a full-MSS segment is never held by Nagle" },
	[NT_RULE_NAGLE_IDLE] = { "nagle_idle", "tcp_nagle_check",
				 "a partial segment leaves when nothing is in flight" },
	[NT_RULE_MINSHALL_CLEAR] = { "minshall_clear", "tcp_minshall_check",
				     "a partial segment leaves: data in flight, but no small "
				     "segment unacknowledged" },
	[NT_RULE_NAGLE_HOLD] = { "nagle_hold", "tcp_minshall_check",
				 "a partial segment waits: a small segment is unacknowledged" },
	[NT_RULE_NODELAY] = { "nodelay", "tcp_nagle_check",
			      "TCP_NODELAY (TCP_NAGLE_OFF): never held" },
	[NT_RULE_CORK_HOLD] = { "cork_hold", "tcp_nagle_check",
				"TCP_CORK or MSG_MORE (TCP_NAGLE_CORK) holds a partial segment" },
	[NT_RULE_CORK_PUSH] = { "cork_push", "tcp_push",
				"uncorking, or a send without MSG_MORE, pushes what was held" },
	[NT_RULE_CORK_PROBE] = { "cork_probe", "tcp_check_probe_timer",
				 "corked data with nothing in flight leaves at the probe timer "
				 "(the RTO)" },
	[NT_RULE_QUICKACK_BUDGET] = { "quickack_budget", "tcp_in_quickack_mode",
				      "ACK now: quick-ACK budget left and not in ping-pong" },
	[NT_RULE_ROUTE_QUICKACK] = { "route_quickack", "tcp_in_quickack_mode",
				     "ACK now: the route's quickack metric (RTAX_QUICKACK)" },
	[NT_RULE_TWO_FRAMES] = { "two_frames", "__tcp_ack_snd_check",
				 "ACK now: more than one full frame unacknowledged and the "
				 "window's right edge advances" },
	[NT_RULE_DELAYED_PINGPONG] = { "delayed_pingpong", "tcp_send_delayed_ack",
				       "delayed: the socket is in ping-pong mode" },
	[NT_RULE_DELAYED_NO_BUDGET] = { "delayed_no_budget", "tcp_send_delayed_ack",
					"delayed: the quick-ACK budget is spent" },
	[NT_RULE_DELACK_DUE] = { "delack_due", "tcp_send_delayed_ack",
				 "ACK now: the pending delayed-ACK timer is within ato/4" },
	[NT_RULE_ACK_AT_READ] = { "ack_at_read", "tcp_cleanup_rbuf",
				  "ACK when the application read a pushed small segment and "
				  "emptied the queue, not in ping-pong" },
	[NT_RULE_ACK_AT_READ_TWO_SMALL] = { "ack_at_read_two_small", "tcp_cleanup_rbuf",
					    "ACK at the read: two small segments pending "
					    "(ICSK_ACK_PUSHED2), even in ping-pong" },
	[NT_RULE_ACK_AT_READ_TWO_FRAMES] = { "ack_at_read_two_frames", "tcp_cleanup_rbuf",
					     "ACK at the read: more than one frame "
					     "unacknowledged" },
	[NT_RULE_DELACK_TIMER] = { "delack_timer", "tcp_delack_timer_handler",
				   "the delayed-ACK timer fired: ACK; ping-pong left (or ato "
				   "doubled outside it)" },
	[NT_RULE_ACK_ON_REPLY] = { "ack_on_reply", "tcp_event_ack_sent",
				   "the pending ACK rode on the reply" },
	[NT_RULE_CLIENT_FIRST_DATA] = { "client_first_data", "tcp_in_quickack_mode",
					"the client's first data grants it the quick-ACK budget: "
					"ACK now" },
	[NT_RULE_CLIENT_ACK] = { "client_ack", "__tcp_ack_snd_check",
				 "the client's own ACK of the reply (the model does not follow "
				 "the client's receive side)" },
	[NT_RULE_HANDSHAKE_ACK] = { "handshake_ack", "tcp_rcv_synsent_state_process",
				    "the client's ACK of the SYN-ACK completes the handshake" },
	[NT_RULE_FIN_ACK] = { "fin_ack", "tcp_fin", "the ACK of the peer's FIN" },
	[NT_RULE_RELEASED_BY_ACK] = { "released_by_ack", "tcp_data_snd_check",
				      "the ACK of the small segment released the held body" },
	[NT_RULE_NOT_HELD] = { "not_held", "tcp_write_xmit", "nothing held the body" },
	[NT_RULE_PINGPONG_COUNT] = { "pingpong_count", "tcp_event_data_sent",
				     "a reply within ato of the last receive counts toward "
				     "ping-pong" },
	[NT_RULE_REPLY_AFTER_ATO] = { "reply_after_ato", "tcp_event_data_sent",
				      "a reply ato or more after the last receive does not count" },
	[NT_RULE_VERDICT_COALESCED] = { "verdict_coalesced", "",
					"header and body left in one segment" },
	[NT_RULE_VERDICT_BODY_FIRST] = { "verdict_body_first", "",
					 "the body left before the header's ACK" },
	[NT_RULE_VERDICT_PROMPT_ACK] = { "verdict_prompt_ack", "",
					 "the header's ACK came before the threshold" },
	[NT_RULE_VERDICT_STALL] = { "verdict_stall", "",
				    "the header's ACK came at or over the threshold while the "
				    "body waited" },
	[NT_RULE_VERDICT_APP_GAP] = { "verdict_app_gap", "",
				      "a slow ACK, but the body was written after it" },
	[NT_RULE_JIFFY_BOUNDARY] = { "jiffy_boundary", "jiffies",
				     "a comparison in jiffies falls within a jiffy of its limit" },
	[NT_RULE_TIMER_RACE] = { "timer_race", "tcp_delack_timer_handler",
				 "a kernel timer may fire before or after a timed wait ends" },
	[NT_RULE_THRESHOLD_EDGE] = { "threshold_edge", "",
				     "the header->ACK gap may fall either side of the threshold" },
	[NT_RULE_WINDOW_EDGE] = { "window_edge", "__tcp_select_window",
				  "whether the window's right edge advances depends on skb "
				  "truesize near the buffer's limit" },
	[NT_RULE_BUDGET_UNKNOWN] = { "budget_unknown", "tcp_in_quickack_mode",
				     "the quick-ACK budget is uncertain after an ACK the model "
				     "could "
				     "not place" },
	[NT_RULE_TIMING_RACE] = { "timing_race", "",
				  "two events whose order the timing cannot settle" },
	[NT_RULE_MODEL_LIMIT] = { "model_limit", "",
				  "beyond what the model follows; every verdict is accepted" },
	[NT_RULE_FIX_NONE] = { "fix_none", "tcp_nagle_check",
			       "two small writes against a delayed-ACK receiver: the stall" },
	[NT_RULE_FIX_COALESCE] = { "fix_coalesce", "tcp_sendmsg",
				   "one write, writev, cork or MSG_MORE: nothing small to hold" },
	[NT_RULE_FIX_NODELAY] = { "fix_nodelay", "tcp_nagle_check",
				  "TCP_NODELAY on the writer: nothing held, two segments a "
				  "request" },
	[NT_RULE_FIX_QUICKACK_ONCE] = { "fix_quickack_once", "tcp_event_data_sent",
					"TCP_QUICKACK once: the first quick reply re-enters "
					"ping-pong" },
	[NT_RULE_FIX_QUICKACK_REARM] = { "fix_quickack_rearm", "__tcp_sock_set_quickack",
					 "TCP_QUICKACK before every read: an extra pure ACK a "
					 "request" },
	[NT_RULE_FIX_ROUTE_QUICKACK] = { "fix_route_quickack", "tcp_in_quickack_mode",
					 "quickack 1 on the route: every segment ACKed at once" },
	[NT_RULE_FIX_WRONG_SIDE] = { "fix_wrong_side", "tcp_nagle_check",
				     "TCP_NODELAY on the reader: the held segment is the "
				     "writer's" },
	[NT_RULE_FIX_AUTOCORK] = { "fix_autocork", "tcp_should_autocork",
				   "autocorking off: a different mechanism, nothing changes" },
	[NT_RULE_FIX_FULL_SEGMENTS] = { "fix_full_segments", "tcp_minshall_check",
					"sizes that leave no small segment for Nagle to wait on, "
					"or "
					"two frames to ACK" },
	[NT_RULE_FIX_SLOW_HANDLER] = { "fix_slow_handler", "tcp_event_data_sent",
				       "replies later than ato keep the target out of ping-pong" },
};

const char *nt_predict_rule_name(enum nt_predict_rule r)
{
	return (unsigned)r < NT_RULE_COUNT && rules[r].name ? rules[r].name : "?";
}

const char *nt_predict_rule_function(enum nt_predict_rule r)
{
	return (unsigned)r < NT_RULE_COUNT && rules[r].function ? rules[r].function : "";
}

const char *nt_predict_rule_summary(enum nt_predict_rule r)
{
	return (unsigned)r < NT_RULE_COUNT && rules[r].summary ? rules[r].summary : "";
}

/* One decimal number at *s, advancing it; -1 when there is none. */
static long take_number(const char **s)
{
	char *end;
	long v;

	if (**s < '0' || **s > '9')
		return -1;
	v = strtol(*s, &end, 10);
	*s = end;
	return v;
}

int nt_kernel_version_parse(const char *uname_r, struct nt_kernel_version *out)
{
	const char *s = uname_r;
	long major, minor, patch = 0;

	if (!s)
		return -EINVAL;
	major = take_number(&s);
	if (major < 0 || major > 1000 || *s != '.')
		return -EINVAL;
	s++;
	minor = take_number(&s);
	if (minor < 0 || minor > 1000)
		return -EINVAL;
	if (*s == '.') {
		s++;
		patch = take_number(&s);
		if (patch < 0)
			patch = 0;
	}
	out->major = (unsigned)major;
	out->minor = (unsigned)minor;
	out->patch = patch > 100000 ? 0 : (unsigned)patch;
	return 0;
}

bool nt_kernel_version_at_least(const struct nt_kernel_version *v, unsigned major, unsigned minor)
{
	return v->major > major || (v->major == major && v->minor >= minor);
}

void nt_predict_knobs_default(struct nt_predict_knobs *k)
{
	memset(k, 0, sizeof(*k));
	k->header_bytes = 4;
	k->body_bytes = 8;
	k->reply_bytes = 2;
	k->rounds = 4;
	k->pattern = NT_PREDICT_TWO_WRITES;
	k->client_autocork = true;
	k->mtu = 1500;
	k->threshold_ns = NT_VERDICT_THRESHOLD_NS_DEFAULT;
	k->kernel = (struct nt_kernel_version){ .major = 6, .minor = 18, .patch = 0 };
	k->hz = 250;
	k->rcvbuf_bytes = 131072;
	k->rmem_max_bytes = 6291456;
	/*
	 * ppoll() wake-ups on the shared two-core machine: a timed wait ended up
	 * to 4.6 ms late (p99 4.1 ms); after a socket event the loop ran up to
	 * about a tick later (p99 4.2 ms).
	 */
	k->wake_slack_ns = (int64_t)4700 * 1000;
	k->wake_latency_ns = (int64_t)4300 * 1000;
}

/* msecs_to_jiffies() and usecs_to_jiffies() round up. */
static unsigned us_to_jiffies(uint64_t us, unsigned hz)
{
	return (unsigned)((us * hz + 999999) / 1000000);
}

/*
 * tcp_rto_min(): the route's locked rto_min first, then the socket's
 * icsk_rto_min, which >= 6.11 takes from net.ipv4.tcp_rto_min_us
 * ("tcp: add sysctl_tcp_rto_min_us") and before from TCP_RTO_MIN (HZ/5).
 */
static unsigned rto_min_jiffies(const struct nt_predict_knobs *k)
{
	if (k->route_rto_min_ms)
		return us_to_jiffies((uint64_t)k->route_rto_min_ms * 1000, k->hz);
	if (k->rto_min_us && nt_kernel_version_at_least(&k->kernel, 6, 11))
		return us_to_jiffies(k->rto_min_us, k->hz);
	return k->hz / 5;
}

/*
 * tcp_delack_max(): TCP_DELACK_MAX (HZ/5; icsk_delack_max since 5.10, same
 * default). 6.7 ("tcp: derive delack_max from rto_min") caps it at the
 * route's locked rto_min - 1 jiffy; 6.11 ("tcp: derive delack_max with
 * tcp_rto_min helper") at tcp_rto_min() - 1, so even the default 200 ms
 * rto_min makes it HZ/5 - 1: 196 ms at HZ 250.
 */
static unsigned delack_max_jiffies(const struct nt_predict_knobs *k, unsigned rto_min)
{
	unsigned max = k->hz / 5;

	if (nt_kernel_version_at_least(&k->kernel, 6, 11)) {
		unsigned from_rto = (rto_min > 2 ? rto_min : 2) - 1;

		return from_rto < max ? from_rto : max;
	}
	if (nt_kernel_version_at_least(&k->kernel, 6, 7) && k->route_rto_min_ms) {
		unsigned from_rto = rto_min > 1 ? rto_min - 1 : 1;

		return from_rto < max ? from_rto : max;
	}
	return max;
}

/*
 * The ping-pong threshold: a boolean before 5.1 (one quick reply enters);
 * "tcp: change pingpong threshold to 3" (5.1) made it a count against 3;
 * its revert (5.19, also in stable series) made it 1 again; 6.7 added the
 * net.ipv4.tcp_pingpong_thresh sysctl (default 1).
 */
static unsigned pingpong_thresh(const struct nt_predict_knobs *k)
{
	if (nt_kernel_version_at_least(&k->kernel, 6, 7))
		return k->pingpong_thresh ? k->pingpong_thresh : 1;
	if (nt_kernel_version_at_least(&k->kernel, 5, 19))
		return 1;
	if (nt_kernel_version_at_least(&k->kernel, 5, 1))
		return 3;
	return 1;
}

void nt_predict_kernel_init(const struct nt_predict_knobs *k, struct nt_predict_kernel *out)
{
	unsigned hdr = k->ipv6 ? 40 : 20;

	memset(out, 0, sizeof(*out));
	out->jiffy_ns = 1000000000LL / (k->hz ? k->hz : 250);
	/* include/net/tcp.h: HZ/25 (40 ms) when HZ >= 100, else 4 jiffies. */
	out->ato_min = k->hz >= 100 ? k->hz / 25 : 4;
	out->delack_min = out->ato_min;
	out->rto_min = rto_min_jiffies(k);
	out->delack_max = delack_max_jiffies(k, out->rto_min);
	/* tcp_set_rto(): srtt + rttvar, rttvar at least rto_min: about rto_min + 1 jiffy. */
	out->rto = out->rto_min + 1 + us_to_jiffies((uint64_t)(k->rtt_ns / 1000), k->hz);
	out->pingpong_thresh = pingpong_thresh(k);
	/* The timestamp option (12 bytes) is on: Linux's default, and the lab's. */
	out->mss = k->mtu - hdr - 20 - 12;
	out->advmss = k->mtu - hdr - 20;
	/*
	 * tcp_select_initial_window(): the SYN-ACK's window is not scaled, so
	 * at most 65535, rounded down to the MSS (65160 = 45 x 1448 here).
	 */
	out->init_rcv_wnd = 65535 / out->mss * out->mss;
	/*
	 * tcp_select_initial_window(): the smallest scale that fits the largest
	 * receive buffer in 16 bits (32 MiB -> 10, 1 KiB units).
	 */
	out->wscale_bytes = 1;
	for (uint64_t space = k->rmem_max_bytes; space > 65535 && out->wscale_bytes < (1u << 14);
	     space >>= 1)
		out->wscale_bytes <<= 1;
	/*
	 * A received veth segment's truesize: its payload in a page fragment
	 * plus the sk_buff and skb_shared_info. 870 makes a 1448-byte segment's
	 * ratio 159/256, which matches the capture here (the window grows from
	 * 64 KB and stops at 80 KB with tcp_rmem[1] 131072).
	 */
	out->skb_overhead = 870;
	/* "tcp: get rid of sysctl_tcp_adv_win_scale" (6.6): the per-socket scaling_ratio. */
	out->scaling_ratio = nt_kernel_version_at_least(&k->kernel, 6, 6);
	/* TCP_MAX_QUICKACKS */
	out->quick_grant = 16;
	/* "tcp: fix quick-ack counting to count actual ACKs of new data" (6.6) */
	out->quick_counts_new_data = nt_kernel_version_at_least(&k->kernel, 6, 6);
	/* "tcp: fix delayed ACKs for MSS boundary condition" (6.6) */
	out->psh_full_segment_pushed = nt_kernel_version_at_least(&k->kernel, 6, 6);
	/* The hierarchical timer wheel (4.8) rounds expiry up by one jiffy (calc_index()). */
	out->timer_round_up = nt_kernel_version_at_least(&k->kernel, 4, 8);
}
