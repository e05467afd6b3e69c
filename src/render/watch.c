// SPDX-License-Identifier: MIT
/*
 * watch.c - nagle-trace watch's lines, records and summary (see
 * nt/render/watch.h).
 *
 * A stall line reads like tcpdump's: the time, the held data's sender and
 * receiver, what happened, then what this host says of each end. Times of
 * day are UTC with microseconds, durations in milliseconds truncated to the
 * microsecond as analyze prints them (fmt.c), so a watch line and analyze's
 * report of the same capture agree to the digit.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/render/community_id.h"
#include "nt/render/fmt.h"
#include "nt/render/json.h"
#include "nt/render/watch.h"
#include "nt/unknown.h"

static const char *const side_name[2] = { "client", "target" };

static const char *cid_of(const struct nt_watch_stall *st, char *buf, size_t len)
{
	return nt_community_id_v1(st->family, st->client_addr, st->client_port, st->target_addr,
				  st->target_port, NT_COMMUNITY_ID_TCP, 0, buf, len);
}

static const char *ms(int64_t ns, char *buf, size_t len)
{
	return nt_known(ns) ? nt_fmt_ms_trunc(ns, buf, len) : "?";
}

/* "?" for a name that could not be read, as for a pid */
static const char *command_text(int pid, const char *comm)
{
	const char *c = nt_watch_command(pid, comm);

	return c ? c : "?";
}

/* An end's owner: "client pid 12 (python3)", "target not on this host" */
static void text_owner(FILE *out, const char *name, const struct nt_sock_state *k)
{
	if (!k->local)
		fprintf(out, "%s not on this host", name);
	else if (k->pid >= 0)
		fprintf(out, "%s pid %d (%s)", name, k->pid, command_text(k->pid, k->comm));
	else
		fprintf(out, "%s pid ?", name);
	if (k->local && k->foreign)
		fprintf(out, " in net:[%" PRIu64 "]", k->netns);
}

/* An end's owner, then its socket's state as read after the stall */
static void text_sock(FILE *out, const char *name, const struct nt_sock_state *k)
{
	char a[NT_FMT_MS_LEN], b[NT_FMT_MS_LEN];

	text_owner(out, name, k);
	if (!k->local)
		return;
	if (k->closed) {
		fputs(" socket closed", out);
		return;
	}
	fprintf(out, " rtt %s ms ato %s ms",
		ms(nt_known(k->rtt_us) ? k->rtt_us * 1000 : NT_UNKNOWN, a, sizeof(a)),
		ms(nt_known(k->ato_us) ? k->ato_us * 1000 : NT_UNKNOWN, b, sizeof(b)));
	if (nt_known(k->unacked))
		fprintf(out, " unacked %" PRId64 " notsent %" PRId64, k->unacked, k->notsent_bytes);
	if (k->pingpong >= 0)
		fprintf(out, " pingpong %d quick %d", k->pingpong, k->quick);
}

int nt_watch_text_stall(FILE *out, const struct nt_watch_stall *st)
{
	char t[NT_FMT_UTC_LEN], from[NT_FMT_ENDPOINT_LEN], to[NT_FMT_ENDPOINT_LEN];
	char d1[NT_FMT_MS_LEN], d2[NT_FMT_MS_LEN];
	const struct nt_stall_episode *ep = &st->ep;
	bool c2t = ep->dir == NT_DIR_C2T;

	nt_fmt_endpoint(st->family, c2t ? st->client_addr : st->target_addr,
			c2t ? st->client_port : st->target_port, from, sizeof(from));
	nt_fmt_endpoint(st->family, c2t ? st->target_addr : st->client_addr,
			c2t ? st->target_port : st->client_port, to, sizeof(to));
	fprintf(out,
		"%s %s > %s: stall %s ms: %" PRIu32 " bytes held behind seq %" PRIu32 ":%" PRIu32
		" (%s), ack delay %s ms %s; ",
		nt_fmt_utc_digits(ep->release_t_ns, 6, t, sizeof(t)), from, to,
		nt_fmt_ms_trunc(ep->stall_ns, d1, sizeof(d1)), st->release_bytes, st->held_seq_rel,
		st->held_seq_rel + ep->held_len, side_name[ep->dir],
		nt_fmt_ms_trunc(ep->ack_delay_ns, d2, sizeof(d2)), nt_delack_name(ep->delack));
	text_sock(out, "client", &st->sock[NT_DIR_C2T]);
	fputs(", ", out);
	text_sock(out, "target", &st->sock[NT_DIR_T2C]);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

static void put_endpoint(bool *oom, struct json_object *o, const char *key, int family,
			 const uint8_t *addr, uint16_t port)
{
	struct json_object *e = nt_json_put(oom, o, key, json_object_new_object());
	char buf[NT_FMT_ENDPOINT_LEN];

	nt_json_put_str(oom, e, "addr", nt_fmt_addr(family, addr, buf, sizeof(buf)));
	nt_json_put(oom, e, "port", json_object_new_int(port));
}

static void put_sock(bool *oom, struct json_object *o, const char *key,
		     const struct nt_sock_state *k)
{
	struct json_object *s = nt_json_put(oom, o, key, json_object_new_object());

	nt_json_put(oom, s, "local", json_object_new_boolean(k->local));
	nt_json_put(oom, s, "closed", json_object_new_boolean(k->closed));
	nt_json_put_i64(oom, s, "pid", k->pid, k->pid >= 0);
	nt_json_put_str(oom, s, "command", nt_watch_command(k->pid, k->comm));
	nt_json_put_i64(oom, s, "inode", (int64_t)k->inode, k->inode != 0);
	nt_json_put_i64(oom, s, "netns", (int64_t)k->netns, k->netns != 0);
	nt_json_put_i64(oom, s, "rtt_us", k->rtt_us, nt_known(k->rtt_us));
	nt_json_put_i64(oom, s, "ato_us", k->ato_us, nt_known(k->ato_us));
	nt_json_put_i64(oom, s, "unacked", k->unacked, nt_known(k->unacked));
	nt_json_put_i64(oom, s, "notsent_bytes", k->notsent_bytes, nt_known(k->notsent_bytes));
	if (k->pingpong >= 0)
		nt_json_put(oom, s, "pingpong", json_object_new_boolean(k->pingpong));
	else
		nt_json_put_null(oom, s, "pingpong");
	nt_json_put_i64(oom, s, "quick", k->quick, k->quick >= 0);
}

static void put_flow(bool *oom, struct json_object *o, const struct nt_watch_stall *st)
{
	char cid[NT_COMMUNITY_ID_LEN];

	nt_json_put_str(oom, o, "community_id", cid_of(st, cid, sizeof(cid)));
	nt_json_put_str(oom, o, "family", st->family == AF_INET6 ? "ipv6" : "ipv4");
	put_endpoint(oom, o, "client", st->family, st->client_addr, st->client_port);
	put_endpoint(oom, o, "target", st->family, st->target_addr, st->target_port);
}

static int line(FILE *out, struct json_object *o, bool oom)
{
	int ret = oom ? -ENOMEM : nt_json_line(out, o);

	json_object_put(o);
	return ret;
}

static void text_row_tail(FILE *out, const struct nt_watch_row *r)
{
	char a[NT_FMT_MS_LEN], b[NT_FMT_MS_LEN], c[NT_FMT_MS_LEN];

	fprintf(out, "%" PRIu64 " stalls, %s ms lost, ack delay p50 %s ms p99 %s ms", r->stalls,
		nt_fmt_ms_trunc(r->lost_ns, a, sizeof(a)),
		ms(nt_watch_delays_pct(&r->delays, 50), b, sizeof(b)),
		ms(nt_watch_delays_pct(&r->delays, 99), c, sizeof(c)));
	if (r->delays.n > r->delays.kept)
		fprintf(out, " (of a sample of %" PRIu32 ")", r->delays.kept);
	fputc('\n', out);
}

static void text_procs(FILE *out, const struct nt_watch_sum *s)
{
	fputs("by process:\n", out);
	if (!s->n_procs)
		fputs("  none: no stalled socket's process was found on this host\n", out);
	for (uint32_t i = 0; i <= NT_WATCH_PROCS_KEPT; i++) {
		const struct nt_watch_row *r = &s->procs[i];

		if (!r->used)
			continue;
		if (r->other)
			fputs("  other processes: ", out);
		else
			fprintf(out, "  pid %d (%s): ", r->pid, command_text(r->pid, r->comm));
		text_row_tail(out, r);
		for (int role = 0; role < NT_WATCH_ROLE_COUNT; role++)
			if (r->by_role[role])
				fprintf(out, "    %" PRIu64 " as %s: fix: %s\n", r->by_role[role],
					role == NT_WATCH_SENDER ? "the held data's sender"
								: "the ACK's delayer",
					nt_watch_role_fix((enum nt_watch_role)role));
	}
}

static void text_flows(FILE *out, const struct nt_watch_sum *s)
{
	fputs("by flow:\n", out);
	for (uint32_t i = 0; i <= NT_WATCH_FLOWS_KEPT; i++) {
		const struct nt_watch_row *r = &s->flows[i];
		const struct nt_watch_stall *st = &r->s;
		char c[NT_FMT_ENDPOINT_LEN], t[NT_FMT_ENDPOINT_LEN], cid[NT_COMMUNITY_ID_LEN];
		enum nt_dir d = st->ep.dir;

		if (!r->used)
			continue;
		if (r->other) {
			fputs("  other flows: ", out);
			text_row_tail(out, r);
			continue;
		}
		fprintf(out, "  %s > %s %s: ",
			nt_fmt_endpoint(st->family, st->client_addr, st->client_port, c, sizeof(c)),
			nt_fmt_endpoint(st->family, st->target_addr, st->target_port, t, sizeof(t)),
			cid_of(st, cid, sizeof(cid)));
		text_row_tail(out, r);
		fputs("    ", out);
		text_owner(out, "client", &st->sock[NT_DIR_C2T]);
		fputs(", ", out);
		text_owner(out, "target", &st->sock[NT_DIR_T2C]);
		fprintf(out, "\n    fix: the %s (held data's sender): %s; or the %s: %s\n",
			side_name[d], nt_watch_role_fix(NT_WATCH_SENDER), side_name[!d],
			nt_watch_role_fix(NT_WATCH_RECEIVER));
	}
}

/* Which network namespaces were looked into: the sockets of the others are not seen. */
static void text_netns(FILE *out, const struct nt_watch_end *end)
{
	fprintf(out, "network namespaces: watch's net:[%" PRIu64 "] and %" PRIu32 " other%s",
		end->netns, end->netns_seen, end->netns_seen == 1 ? "" : "s");
	if (end->netns_denied)
		fprintf(out,
			", %" PRIu32 " of which not entered (no CAP_SYS_ADMIN): their sockets show "
			"as not on this host",
			end->netns_denied);
	fputc('\n', out);
}

int nt_watch_text_summary(FILE *out, const struct nt_watch_sum *s, const struct nt_watch_end *end)
{
	char a[NT_FMT_MS_LEN], b[NT_FMT_MS_LEN];

	fprintf(out,
		"summary: %" PRIu64 " stalls, %s ms lost, %" PRIu64 " with an end on this host; "
		"%" PRIu64 " frames (%" PRIu64 " TCP), %" PRIu64 " flows in %s s on %s (%s)\n",
		s->stalls, nt_fmt_ms_trunc(s->lost_ns, a, sizeof(a)), s->local_stalls, end->frames,
		end->tcp_frames, end->flows,
		nt_fmt_ms_trunc((end->end_t_ns - end->start_t_ns) / 1000, b, sizeof(b)),
		end->ifname, end->why);
	if (end->stats_known)
		fprintf(out,
			"capture: %" PRIu64 " received, %" PRIu64 " dropped by the kernel, %" PRIu64
			" by the interface%s\n",
			end->received, end->dropped, end->if_dropped,
			end->complete ? "" : ": stalls may be missing");
	else
		fputs("capture: counters unreadable\n", out);
	text_netns(out, end);
	if (s->stalls) {
		text_procs(out, s);
		text_flows(out, s);
	}
	fputs("not readable from outside a process: TCP_NODELAY, TCP_CORK and TCP_QUICKACK "
	      "(no tcp_info field or /proc column has them)\n",
	      out);
	return ferror(out) ? -EIO : 0;
}

static void put_row_stats(bool *oom, struct json_object *o, const struct nt_watch_row *r)
{
	int64_t p50 = nt_watch_delays_pct(&r->delays, 50),
		p99 = nt_watch_delays_pct(&r->delays, 99);

	nt_json_put(oom, o, "stalls", json_object_new_int64((int64_t)r->stalls));
	nt_json_put(oom, o, "lost_ns", json_object_new_int64(r->lost_ns));
	nt_json_put_i64(oom, o, "ack_delay_p50_ns", p50, nt_known(p50));
	nt_json_put_i64(oom, o, "ack_delay_p99_ns", p99, nt_known(p99));
	nt_json_put(oom, o, "ack_delay_sampled",
		    json_object_new_boolean(r->delays.n > r->delays.kept));
}

static struct json_object *procs_json(bool *oom, const struct nt_watch_sum *s)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; a && i <= NT_WATCH_PROCS_KEPT; i++) {
		const struct nt_watch_row *r = &s->procs[i];
		struct json_object *o;

		if (!r->used)
			continue;
		o = json_object_new_object();
		nt_json_put(oom, o, "other", json_object_new_boolean(r->other));
		nt_json_put_i64(oom, o, "pid", r->pid, !r->other);
		nt_json_put_str(oom, o, "command",
				r->other ? NULL : nt_watch_command(r->pid, r->comm));
		put_row_stats(oom, o, r);
		nt_json_put(oom, o, "as_sender", json_object_new_int64((int64_t)r->by_role[0]));
		nt_json_put(oom, o, "as_receiver", json_object_new_int64((int64_t)r->by_role[1]));
		nt_json_put_str(oom, o, "fix",
				nt_watch_role_fix(r->by_role[0] >= r->by_role[1]
							  ? NT_WATCH_SENDER
							  : NT_WATCH_RECEIVER));
		if (!o || json_object_array_add(a, o) < 0)
			*oom = true;
	}
	return a;
}

static struct json_object *flows_json(bool *oom, const struct nt_watch_sum *s)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; a && i <= NT_WATCH_FLOWS_KEPT; i++) {
		const struct nt_watch_row *r = &s->flows[i];
		struct json_object *o;

		if (!r->used)
			continue;
		o = json_object_new_object();
		nt_json_put(oom, o, "other", json_object_new_boolean(r->other));
		if (!r->other) {
			put_flow(oom, o, &r->s);
			nt_json_put_str(oom, o, "sender", side_name[r->s.ep.dir]);
			put_sock(oom, o, "client_socket", &r->s.sock[NT_DIR_C2T]);
			put_sock(oom, o, "target_socket", &r->s.sock[NT_DIR_T2C]);
		}
		put_row_stats(oom, o, r);
		if (!o || json_object_array_add(a, o) < 0)
			*oom = true;
	}
	return a;
}

int nt_watch_jsonl_summary(FILE *out, const struct nt_watch_sum *s, const struct nt_watch_end *end)
{
	struct json_object *o = json_object_new_object(), *c;
	bool oom = !o;

	nt_json_put_str(&oom, o, "type", "summary");
	nt_json_put(&oom, o, "schema_version", json_object_new_int(NT_JSON_SCHEMA_WATCH));
	nt_json_put(&oom, o, "tool", nt_json_tool(&oom, "watch"));
	nt_json_put_str(&oom, o, "interface", end->ifname);
	nt_json_put_str(&oom, o, "filter", end->filter);
	nt_json_put(&oom, o, "start_t_ns", json_object_new_int64(end->start_t_ns));
	nt_json_put(&oom, o, "end_t_ns", json_object_new_int64(end->end_t_ns));
	nt_json_put_str(&oom, o, "end", end->why);
	nt_json_put(&oom, o, "complete", json_object_new_boolean(end->complete));
	c = nt_json_put(&oom, o, "capture", json_object_new_object());
	nt_json_put(&oom, c, "frames", json_object_new_int64((int64_t)end->frames));
	nt_json_put(&oom, c, "tcp_frames", json_object_new_int64((int64_t)end->tcp_frames));
	nt_json_put(&oom, c, "flows", json_object_new_int64((int64_t)end->flows));
	nt_json_put_i64(&oom, c, "received", (int64_t)end->received, end->stats_known);
	nt_json_put_i64(&oom, c, "dropped", (int64_t)end->dropped, end->stats_known);
	nt_json_put_i64(&oom, c, "if_dropped", (int64_t)end->if_dropped, end->stats_known);
	c = nt_json_put(&oom, o, "netns", json_object_new_object());
	nt_json_put(&oom, c, "own", json_object_new_int64((int64_t)end->netns));
	nt_json_put(&oom, c, "others", json_object_new_int64(end->netns_seen));
	nt_json_put(&oom, c, "not_entered", json_object_new_int64(end->netns_denied));
	nt_json_put(&oom, o, "stalls", json_object_new_int64((int64_t)s->stalls));
	nt_json_put(&oom, o, "think_time", json_object_new_int64((int64_t)s->think_time));
	nt_json_put(&oom, o, "lost_ns", json_object_new_int64(s->lost_ns));
	nt_json_put(&oom, o, "local_stalls", json_object_new_int64((int64_t)s->local_stalls));
	nt_json_put(&oom, o, "processes", procs_json(&oom, s));
	nt_json_put(&oom, o, "flows", flows_json(&oom, s));
	return line(out, o, oom);
}
