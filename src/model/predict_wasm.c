// SPDX-License-Identifier: MIT
/*
 * predict_wasm.c - the model's entry point for the lesson page (see
 * nt/model/predict_wasm.h): a knob vector in, the prediction out as JSON.
 *
 * json-c is not available for wasm32 (Debian ships it for the host only), so
 * the text is written here with snprintf(); the members mirror
 * src/render/predict_json.c, and tests/integration/test_wasm_model.sh holds
 * the two byte for byte equal once parsed.
 *
 * Compiled to WebAssembly the file also defines the module's exports
 * (__wasm__): a static knob vector and output buffer in linear memory, so
 * the page's script needs no allocator.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nt/model/predict_wasm.h"
#include "nt/model/predict_words.h"

static const char *const knob_names[NT_KNOB_COUNT] = {
	[NT_KNOB_HEADER_BYTES] = "header_bytes",
	[NT_KNOB_BODY_BYTES] = "body_bytes",
	[NT_KNOB_REPLY_BYTES] = "reply_bytes",
	[NT_KNOB_ROUNDS] = "rounds",
	[NT_KNOB_PATTERN] = "pattern",
	[NT_KNOB_PAUSE_NS] = "pause_ns",
	[NT_KNOB_WRITE_GAP_NS] = "write_gap_ns",
	[NT_KNOB_HANDLER_NS] = "handler_ns",
	[NT_KNOB_CLIENT_NODELAY] = "client_nodelay",
	[NT_KNOB_SERVER_NODELAY] = "server_nodelay",
	[NT_KNOB_SERVER_QUICKACK] = "server_quickack",
	[NT_KNOB_ROUTE_QUICKACK] = "route_quickack",
	[NT_KNOB_CLIENT_AUTOCORK] = "client_autocork",
	[NT_KNOB_PINGPONG_THRESH] = "pingpong_thresh",
	[NT_KNOB_IPV6] = "ipv6",
	[NT_KNOB_MTU] = "mtu",
	[NT_KNOB_RTT_NS] = "rtt_ns",
	[NT_KNOB_THRESHOLD_NS] = "threshold_ns",
	[NT_KNOB_KERNEL_MAJOR] = "kernel_major",
	[NT_KNOB_KERNEL_MINOR] = "kernel_minor",
	[NT_KNOB_KERNEL_PATCH] = "kernel_patch",
	[NT_KNOB_HZ] = "hz",
	[NT_KNOB_ROUTE_RTO_MIN_MS] = "route_rto_min_ms",
	[NT_KNOB_RTO_MIN_US] = "rto_min_us",
	[NT_KNOB_RCVBUF_BYTES] = "rcvbuf_bytes",
	[NT_KNOB_RMEM_MAX_BYTES] = "rmem_max_bytes",
	[NT_KNOB_WAKE_SLACK_NS] = "wake_slack_ns",
	[NT_KNOB_WAKE_LATENCY_NS] = "wake_latency_ns",
};

const char *nt_predict_knob_name(unsigned i)
{
	return i < NT_KNOB_COUNT ? knob_names[i] : NULL;
}

void nt_predict_knobs_get(const struct nt_predict_knobs *k, double *v)
{
	v[NT_KNOB_HEADER_BYTES] = k->header_bytes;
	v[NT_KNOB_BODY_BYTES] = k->body_bytes;
	v[NT_KNOB_REPLY_BYTES] = k->reply_bytes;
	v[NT_KNOB_ROUNDS] = k->rounds;
	v[NT_KNOB_PATTERN] = k->pattern;
	v[NT_KNOB_PAUSE_NS] = (double)k->pause_ns;
	v[NT_KNOB_WRITE_GAP_NS] = (double)k->write_gap_ns;
	v[NT_KNOB_HANDLER_NS] = (double)k->handler_ns;
	v[NT_KNOB_CLIENT_NODELAY] = k->client_nodelay;
	v[NT_KNOB_SERVER_NODELAY] = k->server_nodelay;
	v[NT_KNOB_SERVER_QUICKACK] = k->server_quickack;
	v[NT_KNOB_ROUTE_QUICKACK] = k->route_quickack;
	v[NT_KNOB_CLIENT_AUTOCORK] = k->client_autocork;
	v[NT_KNOB_PINGPONG_THRESH] = k->pingpong_thresh;
	v[NT_KNOB_IPV6] = k->ipv6;
	v[NT_KNOB_MTU] = k->mtu;
	v[NT_KNOB_RTT_NS] = (double)k->rtt_ns;
	v[NT_KNOB_THRESHOLD_NS] = (double)k->threshold_ns;
	v[NT_KNOB_KERNEL_MAJOR] = k->kernel.major;
	v[NT_KNOB_KERNEL_MINOR] = k->kernel.minor;
	v[NT_KNOB_KERNEL_PATCH] = k->kernel.patch;
	v[NT_KNOB_HZ] = k->hz;
	v[NT_KNOB_ROUTE_RTO_MIN_MS] = k->route_rto_min_ms;
	v[NT_KNOB_RTO_MIN_US] = k->rto_min_us;
	v[NT_KNOB_RCVBUF_BYTES] = k->rcvbuf_bytes;
	v[NT_KNOB_RMEM_MAX_BYTES] = k->rmem_max_bytes;
	v[NT_KNOB_WAKE_SLACK_NS] = (double)k->wake_slack_ns;
	v[NT_KNOB_WAKE_LATENCY_NS] = (double)k->wake_latency_ns;
}

/* The most any knob may be: an hour in nanoseconds; a uint32 knob is capped again below. */
#define KNOB_MAX 3.6e12

int nt_predict_knobs_set(const double *v, struct nt_predict_knobs *k, struct nt_err *err)
{
	for (unsigned i = 0; i < NT_KNOB_COUNT; i++) {
		bool wide = i == NT_KNOB_PAUSE_NS || i == NT_KNOB_WRITE_GAP_NS ||
			    i == NT_KNOB_HANDLER_NS || i == NT_KNOB_RTT_NS ||
			    i == NT_KNOB_THRESHOLD_NS || i == NT_KNOB_WAKE_SLACK_NS ||
			    i == NT_KNOB_WAKE_LATENCY_NS;

		if (!(v[i] >= 0) || v[i] > (wide ? KNOB_MAX : 4294967295.0) || floor(v[i]) != v[i])
			return nt_err_set(err, -EINVAL,
					  "knob %s: %g is not a whole number in range",
					  knob_names[i], v[i]);
	}
	if (v[NT_KNOB_PATTERN] >= NT_PREDICT_PATTERN_COUNT ||
	    v[NT_KNOB_SERVER_QUICKACK] > NT_PREDICT_QUICKACK_REARM)
		return nt_err_set(err, -EINVAL, "knob pattern or server_quickack: out of range");
	nt_predict_knobs_default(k);
	k->header_bytes = (uint32_t)v[NT_KNOB_HEADER_BYTES];
	k->body_bytes = (uint32_t)v[NT_KNOB_BODY_BYTES];
	k->reply_bytes = (uint32_t)v[NT_KNOB_REPLY_BYTES];
	k->rounds = (unsigned)v[NT_KNOB_ROUNDS];
	k->pattern = (enum nt_predict_pattern)(unsigned)v[NT_KNOB_PATTERN];
	k->pause_ns = (int64_t)v[NT_KNOB_PAUSE_NS];
	k->write_gap_ns = (int64_t)v[NT_KNOB_WRITE_GAP_NS];
	k->handler_ns = (int64_t)v[NT_KNOB_HANDLER_NS];
	k->client_nodelay = v[NT_KNOB_CLIENT_NODELAY] != 0;
	k->server_nodelay = v[NT_KNOB_SERVER_NODELAY] != 0;
	k->server_quickack = (enum nt_predict_quickack)(unsigned)v[NT_KNOB_SERVER_QUICKACK];
	k->route_quickack = v[NT_KNOB_ROUTE_QUICKACK] != 0;
	k->client_autocork = v[NT_KNOB_CLIENT_AUTOCORK] != 0;
	k->pingpong_thresh = (unsigned)v[NT_KNOB_PINGPONG_THRESH];
	k->ipv6 = v[NT_KNOB_IPV6] != 0;
	k->mtu = (unsigned)v[NT_KNOB_MTU];
	k->rtt_ns = (int64_t)v[NT_KNOB_RTT_NS];
	k->threshold_ns = (int64_t)v[NT_KNOB_THRESHOLD_NS];
	k->kernel.major = (unsigned)v[NT_KNOB_KERNEL_MAJOR];
	k->kernel.minor = (unsigned)v[NT_KNOB_KERNEL_MINOR];
	k->kernel.patch = (unsigned)v[NT_KNOB_KERNEL_PATCH];
	k->hz = (unsigned)v[NT_KNOB_HZ];
	k->route_rto_min_ms = (uint32_t)v[NT_KNOB_ROUTE_RTO_MIN_MS];
	k->rto_min_us = (uint32_t)v[NT_KNOB_RTO_MIN_US];
	k->rcvbuf_bytes = (uint32_t)v[NT_KNOB_RCVBUF_BYTES];
	k->rmem_max_bytes = (uint32_t)v[NT_KNOB_RMEM_MAX_BYTES];
	k->wake_slack_ns = (int64_t)v[NT_KNOB_WAKE_SLACK_NS];
	k->wake_latency_ns = (int64_t)v[NT_KNOB_WAKE_LATENCY_NS];
	return 0;
}

/* The text being written: once @len is reached everything after is dropped and @full set. */
struct jbuf {
	char *p;
	size_t len;
	size_t used;
	bool full;
};

static void put(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	n = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->len - b->used)
		b->full = true;
	else
		b->used += (size_t)n;
}

/* A JSON string: quotes, backslashes and control characters escaped, UTF-8 as it is. */
static void put_str(struct jbuf *b, const char *s)
{
	put(b, "\"");
	for (; *s && !b->full; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(b, "\\%c", c);
		else if (c < 0x20)
			put(b, "\\u%04x", c);
		else
			put(b, "%c", c);
	}
	put(b, "\"");
}

static void put_why(struct jbuf *b, const char *key, const struct nt_predict_why *w, bool comma)
{
	struct nt_predict_words words;

	put(b, "\"%s\":", key);
	if (w->rule == NT_RULE_NONE) {
		put(b, "null");
	} else {
		put(b, "{\"rule\":");
		put_str(b, nt_predict_rule_name(w->rule));
		put(b, ",\"text\":");
		put_str(b, nt_predict_words(w, &words));
		put(b, "}");
	}
	if (comma)
		put(b, ",");
}

static void put_rx(struct jbuf *b, const char *key, const struct nt_predict_rx *x)
{
	put(b,
	    "\"%s\":{\"pingpong\":%s,\"pingpong_cnt\":%u,\"quick\":%u,\"ato_ms\":%u,"
	    "\"rcv_mss\":%u,\"certain\":%s}",
	    key, x->pingpong ? "true" : "false", x->pingpong_cnt, x->quick, x->ato_ms, x->rcv_mss,
	    x->certain ? "true" : "false");
}

/* -1 (the path never got there) as null, as src/render/predict_json.c writes it. */
static void put_time(struct jbuf *b, const char *key, int64_t ns)
{
	if (ns < 0)
		put(b, "\"%s\":null,", key);
	else
		put(b, "\"%s\":%lld,", key, (long long)ns);
}

/* The round's segments as the simulation sent them (predict_ladder.c). */
static void put_ladder(struct jbuf *b, const struct nt_predict_round *r)
{
	static const struct nt_predict_why none = { .rule = NT_RULE_NONE };

	put(b, "\"ladder\":[");
	for (unsigned i = 0; i < r->n_ladder; i++) {
		const struct nt_predict_seg *g = &r->ladder[i];
		const struct nt_predict_why *w = nt_predict_seg_why(r, g);

		put(b,
		    "%s{\"client_ns\":%lld,\"target_ns\":%lld,\"dir\":\"%s\",\"what\":\"%s\","
		    "\"bytes\":%u,\"first\":%s,",
		    i ? "," : "", (long long)g->client_ns, (long long)g->target_ns,
		    g->c2t ? "c2t" : "t2c",
		    nt_predict_seg_role_name((enum nt_predict_seg_role)g->role), g->bytes,
		    g->first ? "true" : "false");
		put_why(b, "why", w ? w : &none, false);
		put(b, "}");
	}
	put(b, "],\"ladder_dropped\":%u", r->ladder_dropped);
}

static void put_round(struct jbuf *b, const struct nt_predict_round *r)
{
	bool first = true;

	put(b, "{\"index\":%u,\"verdict\":", r->index);
	put_str(b, nt_verdict_name(r->verdict));
	put(b, ",\"verdicts\":[");
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++) {
		if (!(r->verdicts & NT_PREDICT_VERDICT_BIT(v)))
			continue;
		put(b, "%s", first ? "" : ",");
		put_str(b, nt_verdict_name((enum nt_verdict)v));
		first = false;
	}
	put(b, "],");
	put_why(b, "uncertain", &r->uncertain, true);
	put(b, "\"why\":{");
	put_why(b, "verdict", &r->verdict_why, true);
	put_why(b, "header", &r->header, true);
	put_why(b, "header_ack", &r->header_ack, true);
	put_why(b, "ack", &r->ack, true);
	put_why(b, "body", &r->body, true);
	put_why(b, "release", &r->release, true);
	put_why(b, "reply", &r->reply, false);
	put(b,
	    "},\"coalesced\":%s,\"header_ack_now\":%s,\"body_held\":%s,"
	    "\"header_ack_gap_min_ns\":%lld,\"header_ack_gap_max_ns\":%lld,"
	    "\"client_data_segments\":%u,\"delayed_acks\":%u,",
	    r->coalesced ? "true" : "false", r->header_ack_now ? "true" : "false",
	    r->body_held ? "true" : "false", (long long)r->gap_min_ns, (long long)r->gap_max_ns,
	    r->client_data_segments, r->delayed_acks);
	put_rx(b, "at_header", &r->at_header);
	put(b, ",");
	put_rx(b, "after", &r->after);
	put(b, ",");
	put_time(b, "write_body_ns", r->write_body_ns);
	put_time(b, "client_wait_ns", r->reply_ns);
	put_ladder(b, r);
	put(b, "}");
}

static int64_t median(int64_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j] < v[j - 1]; j--) {
			int64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long error_json(char *buf, size_t len, const char *msg)
{
	struct jbuf b = { buf, len, 0, false };

	put(&b, "{\"error\":");
	put_str(&b, msg);
	put(&b, "}");
	return b.full ? -ENOSPC : -EINVAL;
}

long nt_predict_page_json(const struct nt_predict_knobs *k, char *buf, size_t len)
{
	unsigned counts[NT_VERDICT_COUNT] = { 0 }, segs = 0;
	int64_t waits[NT_PREDICT_PAGE_ROUNDS_MAX];
	struct jbuf b = { buf, len, 0, false };
	struct nt_predict_round r;
	struct nt_predict_why fix;
	struct nt_err err = { "" };
	struct nt_predict p;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (k->rounds > NT_PREDICT_PAGE_ROUNDS_MAX) {
		(void)nt_err_set(&err, -EINVAL, "rounds: at most %u in the page",
				 NT_PREDICT_PAGE_ROUNDS_MAX);
		return error_json(buf, len, err.msg);
	}
	if (nt_predict_init(&p, k, &err) < 0)
		return error_json(buf, len, err.msg);
	put(&b, "{\"knobs\":{\"mss\":%u,\"pingpong_thresh\":%u,\"hz\":%u,\"kernel\":\"%u.%u\"},",
	    p.kern.mss, p.kern.pingpong_thresh, k->hz, k->kernel.major, k->kernel.minor);
	put(&b, "\"rounds\":[");
	while (nt_predict_round(&p, &r) == 1) {
		put(&b, "%s", r.index > 1 ? "," : "");
		put_round(&b, &r);
		/* A round the model could not follow to its reply counts as no wait. */
		waits[r.index - 1] = r.reply_ns > 0 ? r.reply_ns : 0;
		counts[r.verdict]++;
		segs += r.client_data_segments;
	}
	nt_predict_fix(k, &fix);
	put(&b, "],\"summary\":{\"rounds\":%u,\"verdicts\":{", k->rounds);
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++)
		put(&b, "%s\"%s\":%u", v ? "," : "", nt_verdict_name((enum nt_verdict)v),
		    counts[v]);
	put(&b, "},");
	put_why(&b, "fix", &fix, true);
	put(&b, "\"median_wait_ns\":%lld,\"packets_per_request\":%.3f}}",
	    (long long)median(waits, k->rounds), (double)segs / k->rounds);
	return b.full ? -ENOSPC : (long)b.used;
}

#ifdef __wasm__
/*
 * The module's exports. The page writes NT_KNOB_COUNT doubles at
 * nt_wasm_knobs(), calls nt_wasm_predict() and reads that many bytes of JSON
 * at nt_wasm_output(); a negative return is -errno, with {"error": ...} in
 * the output when the knobs were refused.
 */
#define WASM_EXPORT(name) __attribute__((export_name(name), used))

static double wasm_knobs[NT_KNOB_COUNT];
static char wasm_out[1 << 19];

WASM_EXPORT("nt_wasm_knob_count") unsigned nt_wasm_knob_count(void)
{
	return NT_KNOB_COUNT;
}

WASM_EXPORT("nt_wasm_knob_name") const char *nt_wasm_knob_name(unsigned i)
{
	return nt_predict_knob_name(i);
}

WASM_EXPORT("nt_wasm_knobs") double *nt_wasm_knobs(void)
{
	return wasm_knobs;
}

WASM_EXPORT("nt_wasm_output") const char *nt_wasm_output(void)
{
	return wasm_out;
}

WASM_EXPORT("nt_wasm_predict") long nt_wasm_predict(void)
{
	struct nt_predict_knobs k;
	struct nt_err err = { "" };

	if (nt_predict_knobs_set(wasm_knobs, &k, &err) < 0)
		return error_json(wasm_out, sizeof(wasm_out), err.msg);
	return nt_predict_page_json(&k, wasm_out, sizeof(wasm_out));
}
#endif
