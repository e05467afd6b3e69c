// SPDX-License-Identifier: MIT
/*
 * analysis_json.c - the JSON document of nagle-trace analyze (schema 1,
 * docs/analyze.md), built with json-c.
 *
 * Keys are snake_case; times are integer nanoseconds: t_ns absolute since the
 * epoch, *_ns durations; unknown values are null, never -1. Frame numbers are
 * 1-based, as Wireshark and tshark count them.
 */
#include <errno.h>
#include <json-c/json.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/tcp.h"
#include "nt/render/analysis.h"
#include "nt/version.h"

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *i64(int64_t v)
{
	return json_object_new_int64(v);
}

static struct json_object *u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static struct json_object *ns_or_null(int64_t ns)
{
	return ns >= 0 ? json_object_new_int64(ns) : NULL;
}

static struct json_object *not_decoded(const uint64_t *nd)
{
	struct json_object *o = json_object_new_object();

	for (int s = NT_DECODE_NOT_TCP; s < NT_DECODE_STATUS_COUNT; s++)
		add(o, nt_decode_status_name((enum nt_decode_status)s), u64(nd[s]));
	return o;
}

static struct json_object *by_delack(const uint64_t *v)
{
	struct json_object *o = json_object_new_object();

	for (int c = NT_DELACK_OTHER; c <= NT_DELACK_MAX; c++)
		add(o, nt_delack_name((enum nt_delack_class)c), u64(v[c]));
	return o;
}

static struct json_object *endpoint(int family, const uint8_t *addr, uint16_t port)
{
	struct json_object *o = json_object_new_object();
	char buf[64], a[64];

	nt_analysis_endpoint_str(family, addr, port, buf);
	/* The address alone: strip ":port" and IPv6 brackets. */
	if (family == AF_INET6)
		snprintf(a, sizeof(a), "%.*s", (int)(strrchr(buf, ']') - buf - 1), buf + 1);
	else
		snprintf(a, sizeof(a), "%.*s", (int)(strrchr(buf, ':') - buf), buf);
	add(o, "addr", json_object_new_string(a));
	add(o, "port", json_object_new_int(port));
	return o;
}

static struct json_object *episode(const struct nt_analysis *an, const struct nt_flow_result *r,
				   const struct nt_stall_episode *ep)
{
	struct json_object *o = json_object_new_object();
	int64_t file_start = an->files[r->file].first_t_ns;

	add(o, "dir", json_object_new_string(nt_dir_name(ep->dir)));
	add(o, "t_ns", i64(ep->held_t_ns));
	add(o, "file_offset_ns", i64(ep->held_t_ns - file_start));
	add(o, "held_frame_number", u64(ep->held_frame));
	add(o, "ack_frame_number", u64(ep->ack_frame));
	add(o, "release_frame_number", u64(ep->release_frame));
	add(o, "held_bytes", json_object_new_int64(ep->held_len));
	add(o, "ack_t_ns", i64(ep->ack_t_ns));
	add(o, "release_t_ns", i64(ep->release_t_ns));
	add(o, "ack_delay_ns", i64(ep->ack_delay_ns));
	add(o, "release_gap_ns", i64(ep->release_gap_ns));
	add(o, "release_window_ns", i64(ep->window_ns));
	add(o, "stall_ns", i64(ep->stall_ns));
	add(o, "delack", json_object_new_string(nt_delack_name(ep->delack)));
	return o;
}

static struct json_object *flow(const struct nt_analysis *an, const struct nt_flow_result *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *tl = json_object_new_array();
	struct json_object *mss = json_object_new_object();
	struct json_object *rtt = json_object_new_object();
	uint64_t bd[3] = { r->by_delack[0], r->by_delack[1], r->by_delack[2] };

	add(o, "file", json_object_new_int((int)r->file));
	add(o, "family", json_object_new_string(r->family == AF_INET6 ? "ipv6" : "ipv4"));
	add(o, "client", endpoint(r->family, r->client_addr, r->client_port));
	add(o, "target", endpoint(r->family, r->target_addr, r->target_port));
	add(o, "handshake_seen", json_object_new_boolean(r->syn_seen));
	add(mss, "c2t", r->mss[NT_DIR_C2T] ? json_object_new_int(r->mss[NT_DIR_C2T]) : NULL);
	add(mss, "t2c", r->mss[NT_DIR_T2C] ? json_object_new_int(r->mss[NT_DIR_T2C]) : NULL);
	add(o, "mss_option", mss);
	add(rtt, "client_ns", ns_or_null(r->rtt_ns[NT_DIR_C2T]));
	add(rtt, "target_ns", ns_or_null(r->rtt_ns[NT_DIR_T2C]));
	add(o, "rtt_from_capture", rtt);
	add(o, "packets", u64(r->packets));
	add(o, "first_t_ns", i64(r->first_t_ns));
	add(o, "last_t_ns", i64(r->last_t_ns));
	add(o, "evicted", json_object_new_boolean(r->evicted));
	add(o, "stalls", json_object_new_int64(r->stalls));
	add(o, "think_time", json_object_new_int64(r->think_time));
	add(o, "by_delack", by_delack(bd));
	add(o, "stalled_total_ns", i64(r->total_ns));
	add(o, "stalled_p50_ns", i64(r->p50_ns));
	add(o, "stalled_max_ns", i64(r->max_ns));
	add(o, "first_stall", episode(an, r, &r->first));
	add(o, "last_stall", episode(an, r, &r->last));
	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct nt_tl_seg *s = &r->timeline[i];
		struct json_object *e = json_object_new_object();
		char flags[12];

		add(e, "frame_number", u64(s->frame));
		add(e, "t_ns", i64(s->t_ns));
		add(e, "rel_ns", i64(s->t_ns - r->first.held_t_ns));
		add(e, "dir", json_object_new_string(nt_dir_name(s->dir)));
		add(e, "flags", json_object_new_string(nt_tcp_flags_str(s->flags, flags)));
		add(e, "seq", json_object_new_int64(s->seq_rel));
		add(e, "ack", json_object_new_int64(s->ack_rel));
		add(e, "len", json_object_new_int64(s->len));
		json_object_array_add(tl, e);
	}
	add(o, "first_stall_timeline", tl);
	return o;
}

static struct json_object *file(const struct nt_analysis_file *f)
{
	struct json_object *o = json_object_new_object();

	add(o, "path", json_object_new_string(f->path));
	add(o, "linktype", f->linktype >= 0 ? json_object_new_int(f->linktype) : NULL);
	add(o, "packets", u64(f->packets));
	add(o, "tcp_packets", u64(f->tcp_packets));
	add(o, "not_decoded", not_decoded(f->not_decoded));
	add(o, "first_t_ns", f->packets ? i64(f->first_t_ns) : NULL);
	add(o, "last_t_ns", f->packets ? i64(f->last_t_ns) : NULL);
	add(o, "flows", u64(f->flows));
	add(o, "flows_with_stalls", u64(f->flows_with_stalls));
	add(o, "stalls", u64(f->stalls));
	add(o, "complete", json_object_new_boolean(!f->error));
	add(o, "error", f->error ? json_object_new_string(f->error) : NULL);
	return o;
}

int nt_render_analysis_json(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v)
{
	const struct nt_analysis_summary *s = &an->sum;
	struct json_object *root = json_object_new_object();
	struct json_object *tool = json_object_new_object();
	struct json_object *params = json_object_new_object();
	struct json_object *files = json_object_new_array();
	struct json_object *flows = json_object_new_array();
	struct json_object *sum = json_object_new_object();
	int ret = 0;

	add(root, "schema_version", json_object_new_int(NT_ANALYSIS_SCHEMA_VERSION));
	add(tool, "name", json_object_new_string("nagle-trace"));
	add(tool, "version", json_object_new_string(NT_VERSION));
	add(tool, "command", json_object_new_string("analyze"));
	add(root, "tool", tool);
	add(params, "threshold_ns", i64(an->params.stall.threshold_ns));
	add(params, "release_ns", i64(an->params.stall.release_ns));
	add(params, "max_flows", json_object_new_int64(an->params.max_flows));
	add(params, "idle_ns", i64(an->params.idle_ns));
	add(params, "filter", v->filter ? json_object_new_string(v->filter) : NULL);
	add(root, "params", params);
	for (size_t i = 0; i < an->n_files; i++)
		json_object_array_add(files, file(&an->files[i]));
	add(root, "files", files);
	for (size_t i = 0; i < an->n_flows; i++)
		json_object_array_add(flows, flow(an, an->flows[i]));
	add(root, "flows", flows);

	add(sum, "packets", u64(s->packets));
	add(sum, "tcp_packets", u64(s->tcp_packets));
	add(sum, "not_decoded", not_decoded(s->not_decoded));
	add(sum, "flows", u64(s->flows));
	add(sum, "flows_with_stalls", u64(s->flows_with_stalls));
	add(sum, "stalls", u64(s->stalls));
	add(sum, "by_delack", by_delack(s->by_delack));
	add(sum, "stalled_total_ns", i64(s->total_stall_ns));
	add(sum, "think_time", u64(s->think_time));
	add(sum, "evicted_flows", u64(s->evicted_idle + s->evicted_full));
	add(sum, "evicted_idle", u64(s->evicted_idle));
	add(sum, "evicted_full", u64(s->evicted_full));
	add(sum, "files_damaged", u64(s->files_damaged));
	add(sum, "incomplete", json_object_new_boolean(an->oom));
	add(root, "summary", sum);

	const char *text = json_object_to_json_string_ext(
		root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text || fputs(text, out) == EOF || fputc('\n', out) == EOF)
		ret = -EIO;
	json_object_put(root);
	return ret;
}
