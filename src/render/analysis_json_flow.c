// SPDX-License-Identifier: MIT
/*
 * analysis_json_flow.c - one element of "flows" in the JSON document of
 * nagle-trace analyze (see analysis_json_int.h).
 *
 * One flow object is built once and its values are set in place for each
 * flow (json_object_set_*), then written at its depth. Building a tree of
 * some 150 objects per flow, allocated and freed each time, would cost more
 * than reading the capture (docs/performance.md). A template is json-c
 * objects with one owner: each thread rendering flows has its own.
 *
 * Writing goes through a layout of the template (nt/render/json_layout.h):
 * json-c's own text of it, made once per shape and cut at the values. The
 * shape is what changes the text besides the values: which of the members
 * that may be null are, and how long the timeline is (set_or_null()).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "analysis_json_int.h"
#include "nt/model/tcp.h"
#include "nt/render/community_id.h"
#include "nt/render/fmt.h"
#include "nt/render/json.h"
#include "nt/render/json_layout.h"
#include "nt/unknown.h"

/*
 * The per-flow template: the flow object and the value objects in it, set in
 * place for each flow. Values that may be null (MSS, round trip) and the
 * timeline elements come and go: the template holds its own reference to
 * them, so taking them out of the tree does not free them.
 */

/**
 * struct tl_seg_obj - one element of "first_stall_timeline"
 * @o: the element (the template's reference)
 * @frame: "frame_number"
 * @t: "t_ns"
 * @rel: "rel_ns"
 * @dir: "dir"
 * @flags: "flags"
 * @seq: "seq"
 * @ack: "ack"
 * @len: "len"
 */
struct tl_seg_obj {
	struct json_object *o, *frame, *t, *rel, *dir, *flags, *seq, *ack, *len;
};

/**
 * struct episode_obj - "first_stall" or "last_stall"
 * @dir: "dir"
 * @t: "t_ns"
 * @offset: "file_offset_ns"
 * @held_frame: "held_frame_number"
 * @ack_frame: "ack_frame_number"
 * @release_frame: "release_frame_number"
 * @held_bytes: "held_bytes"
 * @ack_t: "ack_t_ns"
 * @release_t: "release_t_ns"
 * @ack_delay: "ack_delay_ns"
 * @release_gap: "release_gap_ns"
 * @window: "release_window_ns"
 * @rule: "release_rule"
 * @stall: "stall_ns"
 * @delack: "delack"
 * @lost_min: "lost_min_ns"
 * @answer: the object holding "answer_frame_number"
 * @answer_frame: its value (the template's reference)
 */
struct episode_obj {
	struct json_object *dir, *t, *offset, *held_frame, *ack_frame, *release_frame;
	struct json_object *held_bytes, *ack_t, *release_t, *ack_delay, *release_gap, *window,
		*rule;
	struct json_object *stall, *delack, *lost_min, *answer, *answer_frame;
};

/*
 * The shapes of a flow's text: six members that are a value or null (two
 * MSS options, two round trips, two answers), times the timeline's length.
 */
#define NT_JSON_FLOW_NULLABLE 6
#define NT_JSON_FLOW_SHAPES   ((1u << NT_JSON_FLOW_NULLABLE) * (NT_TIMELINE_MAX + 1))

/**
 * struct nt_json_flow - the template of one element of "flows"
 * @flow: the flow object
 * @file: "file"
 * @family: "family"
 * @addr: "client" and "target" "addr"
 * @port: "client" and "target" "port"
 * @handshake: "handshake_seen"
 * @mss: the "mss_option" object
 * @mss_v: its "c2t" and "t2c" values (the template's references)
 * @rtt: the "rtt_from_capture" object
 * @rtt_v: its "client_ns" and "target_ns" values (the template's references)
 * @packets: "packets"
 * @first_t: "first_t_ns"
 * @last_t: "last_t_ns"
 * @evicted: "evicted"
 * @stalls: "stalls"
 * @think_time: "think_time"
 * @out_of_order: "out_of_order"
 * @by_delack: "by_delack" values, per enum nt_delack_class
 * @total: "stalled_total_ns"
 * @p50: "stalled_p50_ns"
 * @p50_sampled: "stalled_p50_sampled"
 * @max: "stalled_max_ns"
 * @wall: "stalled_wall_ns"
 * @wall_min: "stalled_wall_min_ns"
 * @first: "first_stall"
 * @last: "last_stall"
 * @tl: "first_stall_timeline"
 * @seg: its elements, as many as a timeline can hold
 * @record: the JSON Lines record of the flow: "type", "community_id", then
 *          @flow's members (the same objects)
 * @community_id: the record's "community_id" (a string of fixed length: the
 *                shape does not change with it)
 * @cur: the flow set last, whose Community ID the record gets when written
 * @shape: the shape of the flow set last: a bit per set_or_null(), and the
 *         timeline's length
 * @layout: @flow's layout per shape, made when first needed
 * @record_layout: @record's layout per shape, made when first needed
 * @oom: an allocation failed: building the template, or a string grew
 */
struct nt_json_flow {
	struct json_object *flow;
	struct json_object *file, *family, *addr[2], *port[2], *handshake;
	struct json_object *mss, *mss_v[2], *rtt, *rtt_v[2];
	struct json_object *packets, *first_t, *last_t, *evicted, *stalls, *think_time,
		*out_of_order;
	struct json_object *by_delack[3], *total, *p50, *p50_sampled, *max, *wall, *wall_min;
	struct episode_obj first, last;
	struct json_object *tl;
	struct tl_seg_obj seg[NT_TIMELINE_MAX];
	struct json_object *record, *community_id;
	const struct nt_flow_result *cur;
	unsigned shape;
	struct nt_json_layout *layout[NT_JSON_FLOW_SHAPES];
	struct nt_json_layout *record_layout[NT_JSON_FLOW_SHAPES];
	bool oom;
};

static struct json_object *put_int(struct nt_json_flow *t, struct json_object *o, const char *key)
{
	return nt_json_put(&t->oom, o, key, nt_json_int64_fast(0));
}

static struct json_object *put_str(struct nt_json_flow *t, struct json_object *o, const char *key)
{
	return nt_json_put(&t->oom, o, key, json_object_new_string(""));
}

static struct json_object *put_obj(struct nt_json_flow *t, struct json_object *o, const char *key)
{
	return nt_json_put(&t->oom, o, key, json_object_new_object());
}

/* A value the template keeps a reference to, and puts under @key of @o. */
static struct json_object *put_kept(struct nt_json_flow *t, struct json_object *o, const char *key,
				    struct json_object *v)
{
	if (!v) {
		t->oom = true;
		return NULL;
	}
	nt_json_put(&t->oom, o, key, json_object_get(v));
	return v;
}

static void episode_up(struct nt_json_flow *t, struct json_object *flow, const char *key,
		       struct episode_obj *ep)
{
	struct json_object *o = put_obj(t, flow, key);

	ep->dir = put_str(t, o, "dir");
	ep->t = put_int(t, o, "t_ns");
	ep->offset = put_int(t, o, "file_offset_ns");
	ep->held_frame = put_int(t, o, "held_frame_number");
	ep->ack_frame = put_int(t, o, "ack_frame_number");
	ep->release_frame = put_int(t, o, "release_frame_number");
	ep->held_bytes = put_int(t, o, "held_bytes");
	ep->ack_t = put_int(t, o, "ack_t_ns");
	ep->release_t = put_int(t, o, "release_t_ns");
	ep->ack_delay = put_int(t, o, "ack_delay_ns");
	ep->release_gap = put_int(t, o, "release_gap_ns");
	ep->window = put_int(t, o, "release_window_ns");
	ep->rule = put_str(t, o, "release_rule");
	ep->stall = put_int(t, o, "stall_ns");
	ep->delack = put_str(t, o, "delack");
	ep->lost_min = put_int(t, o, "lost_min_ns");
	ep->answer = o;
	ep->answer_frame = put_kept(t, o, "answer_frame_number", nt_json_int64_fast(0));
}

static void endpoint_up(struct nt_json_flow *t, struct json_object *flow, const char *key, int side)
{
	struct json_object *o = put_obj(t, flow, key);

	t->addr[side] = put_str(t, o, "addr");
	t->port[side] = put_int(t, o, "port");
}

static void flow_obj_down(struct nt_json_flow *t)
{
	json_object_put(t->flow);
	for (int d = 0; d < 2; d++) {
		json_object_put(t->mss_v[d]);
		json_object_put(t->rtt_v[d]);
	}
	for (unsigned i = 0; i < NT_TIMELINE_MAX; i++)
		json_object_put(t->seg[i].o);
	json_object_put(t->first.answer_frame);
	json_object_put(t->last.answer_frame);
	json_object_put(t->record);
	for (unsigned i = 0; i < NT_JSON_FLOW_SHAPES; i++) {
		nt_json_layout_free(t->layout[i]);
		nt_json_layout_free(t->record_layout[i]);
	}
}

/* Keys in the order of the schema's example; json-c prints them in insertion order. */
static int flow_obj_up(struct nt_json_flow *t)
{
	struct json_object *o, *bd;

	memset(t, 0, sizeof(*t));
	o = t->flow = json_object_new_object();
	if (!o)
		return -ENOMEM;

	t->file = put_int(t, o, "file");
	t->family = put_str(t, o, "family");
	endpoint_up(t, o, "client", 0);
	endpoint_up(t, o, "target", 1);
	t->handshake = nt_json_put(&t->oom, o, "handshake_seen", json_object_new_boolean(0));
	t->mss = put_obj(t, o, "mss_option");
	t->mss_v[NT_DIR_C2T] = put_kept(t, t->mss, "c2t", nt_json_int64_fast(0));
	t->mss_v[NT_DIR_T2C] = put_kept(t, t->mss, "t2c", nt_json_int64_fast(0));
	t->rtt = put_obj(t, o, "rtt_from_capture");
	t->rtt_v[NT_DIR_C2T] = put_kept(t, t->rtt, "client_ns", nt_json_int64_fast(0));
	t->rtt_v[NT_DIR_T2C] = put_kept(t, t->rtt, "target_ns", nt_json_int64_fast(0));
	t->packets = put_int(t, o, "packets");
	t->first_t = put_int(t, o, "first_t_ns");
	t->last_t = put_int(t, o, "last_t_ns");
	t->evicted = nt_json_put(&t->oom, o, "evicted", json_object_new_boolean(0));
	t->stalls = put_int(t, o, "stalls");
	t->think_time = put_int(t, o, "think_time");
	t->out_of_order = put_int(t, o, "out_of_order");
	bd = put_obj(t, o, "by_delack");
	for (int c = NT_DELACK_OTHER; c <= NT_DELACK_MAX; c++)
		t->by_delack[c] = put_int(t, bd, nt_delack_name((enum nt_delack_class)c));
	t->total = put_int(t, o, "stalled_total_ns");
	t->p50 = put_int(t, o, "stalled_p50_ns");
	t->p50_sampled = nt_json_put(&t->oom, o, "stalled_p50_sampled", json_object_new_boolean(0));
	t->max = put_int(t, o, "stalled_max_ns");
	t->wall = put_int(t, o, "stalled_wall_ns");
	t->wall_min = put_int(t, o, "stalled_wall_min_ns");
	episode_up(t, o, "first_stall", &t->first);
	episode_up(t, o, "last_stall", &t->last);
	t->tl = nt_json_put(&t->oom, o, "first_stall_timeline",
			    json_object_new_array_ext(NT_TIMELINE_MAX));
	for (unsigned i = 0; i < NT_TIMELINE_MAX; i++) {
		struct tl_seg_obj *s = &t->seg[i];
		struct json_object *e = s->o = json_object_new_object();

		s->frame = put_int(t, e, "frame_number");
		s->t = put_int(t, e, "t_ns");
		s->rel = put_int(t, e, "rel_ns");
		s->dir = put_str(t, e, "dir");
		s->flags = put_str(t, e, "flags");
		s->seq = put_int(t, e, "seq");
		s->ack = put_int(t, e, "ack");
		s->len = put_int(t, e, "len");
	}
	t->record = json_object_new_object();
	nt_json_put(&t->oom, t->record, "type", json_object_new_string("flow"));
	t->community_id = put_str(t, t->record, "community_id");
	nt_json_merge(&t->oom, t->record, o);
	if (t->oom) {
		flow_obj_down(t);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Point @key of @o at the template's @v, or at null; which of the two is
 * one bit of the flow's shape (NT_JSON_FLOW_NULLABLE counts the calls a
 * flow makes), so the layout chosen follows the tree as it was set.
 */
static void set_or_null(struct nt_json_flow *t, struct json_object *o, const char *key,
			struct json_object *v, bool is_set)
{
	json_object_object_add_ex(o, key, is_set ? json_object_get(v) : NULL,
				  JSON_C_OBJECT_KEY_IS_CONSTANT);
	t->shape = t->shape * 2 + is_set;
}

/* A string value; a longer string than the object held is a new allocation. */
static void set_str_len(struct nt_json_flow *t, struct json_object *o, const char *s, int len)
{
	if (!json_object_set_string_len(o, s, len))
		t->oom = true;
}

static void set_str(struct nt_json_flow *t, struct json_object *o, const char *s)
{
	set_str_len(t, o, s, (int)strlen(s));
}

static void set_endpoint(struct nt_json_flow *t, int side, int family, const uint8_t *addr,
			 uint16_t port)
{
	char buf[NT_FMT_ENDPOINT_LEN];

	set_str(t, t->addr[side], nt_fmt_addr(family, addr, buf, sizeof(buf)));
	json_object_set_int64(t->port[side], port);
}

static void set_episode(struct nt_json_flow *t, struct episode_obj *o, int64_t file_start_ns,
			const struct nt_stall_episode *ep)
{
	set_str(t, o->dir, nt_dir_name(ep->dir));
	json_object_set_int64(o->t, ep->held_t_ns);
	json_object_set_int64(o->offset, ep->held_t_ns - file_start_ns);
	json_object_set_int64(o->held_frame, nt_json_clamp_u64(ep->held_frame));
	json_object_set_int64(o->ack_frame, nt_json_clamp_u64(ep->ack_frame));
	json_object_set_int64(o->release_frame, nt_json_clamp_u64(ep->release_frame));
	json_object_set_int64(o->held_bytes, ep->held_len);
	json_object_set_int64(o->ack_t, ep->ack_t_ns);
	json_object_set_int64(o->release_t, ep->release_t_ns);
	json_object_set_int64(o->ack_delay, ep->ack_delay_ns);
	json_object_set_int64(o->release_gap, ep->release_gap_ns);
	json_object_set_int64(o->window, ep->window_ns);
	/* What said R waited for the ACK (nt_verdict_waited()): its noted write, or the window. */
	set_str(t, o->rule, nt_known(ep->written_t_ns) ? "write" : "window");
	json_object_set_int64(o->stall, ep->stall_ns);
	set_str(t, o->delack, nt_delack_name(ep->delack));
	json_object_set_int64(o->lost_min, ep->lost_min_ns);
	json_object_set_int64(o->answer_frame, nt_json_clamp_u64(ep->answer_frame));
	set_or_null(t, o->answer, "answer_frame_number", o->answer_frame, ep->answer_frame != 0);
}

int nt_json_flow_set(struct nt_json_flow *t, const struct nt_analysis *an,
		     const struct nt_flow_result *r)
{
	int64_t file_start = an->files[r->file].first_t_ns;
	size_t n_tl = json_object_array_length(t->tl);

	t->shape = 0;
	t->cur = r;
	json_object_set_int64(t->file, (int)r->file);
	set_str(t, t->family, r->family == AF_INET6 ? "ipv6" : "ipv4");
	set_endpoint(t, 0, r->family, r->client_addr, r->client_port);
	set_endpoint(t, 1, r->family, r->target_addr, r->target_port);
	json_object_set_boolean(t->handshake, r->syn_seen);
	json_object_set_int64(t->mss_v[NT_DIR_C2T], r->mss[NT_DIR_C2T]);
	json_object_set_int64(t->mss_v[NT_DIR_T2C], r->mss[NT_DIR_T2C]);
	set_or_null(t, t->mss, "c2t", t->mss_v[NT_DIR_C2T], r->mss[NT_DIR_C2T]);
	set_or_null(t, t->mss, "t2c", t->mss_v[NT_DIR_T2C], r->mss[NT_DIR_T2C]);
	json_object_set_int64(t->rtt_v[NT_DIR_C2T], r->rtt_ns[NT_DIR_C2T]);
	json_object_set_int64(t->rtt_v[NT_DIR_T2C], r->rtt_ns[NT_DIR_T2C]);
	set_or_null(t, t->rtt, "client_ns", t->rtt_v[NT_DIR_C2T], r->rtt_ns[NT_DIR_C2T] >= 0);
	set_or_null(t, t->rtt, "target_ns", t->rtt_v[NT_DIR_T2C], r->rtt_ns[NT_DIR_T2C] >= 0);
	json_object_set_int64(t->packets, nt_json_clamp_u64(r->packets));
	json_object_set_int64(t->first_t, r->first_t_ns);
	json_object_set_int64(t->last_t, r->last_t_ns);
	json_object_set_boolean(t->evicted, r->evicted);
	json_object_set_int64(t->stalls, r->stalls);
	json_object_set_int64(t->think_time, r->think_time);
	json_object_set_int64(t->out_of_order, r->out_of_order);
	for (int c = NT_DELACK_OTHER; c <= NT_DELACK_MAX; c++)
		json_object_set_int64(t->by_delack[c], r->by_delack[c]);
	json_object_set_int64(t->total, r->total_ns);
	json_object_set_int64(t->p50, r->p50_ns);
	json_object_set_boolean(t->p50_sampled, r->p50_sampled);
	json_object_set_int64(t->max, r->max_ns);
	json_object_set_int64(t->wall, r->wall.total_ns);
	json_object_set_int64(t->wall_min, r->wall_min.total_ns);
	set_episode(t, &t->first, file_start, &r->first);
	set_episode(t, &t->last, file_start, &r->last);

	/* Taking elements out only drops the array's references (see put_kept()). */
	if (n_tl > r->n_timeline)
		json_object_array_del_idx(t->tl, r->n_timeline, n_tl - r->n_timeline);
	for (size_t i = n_tl; i < r->n_timeline; i++) {
		if (json_object_array_add(t->tl, t->seg[i].o) < 0)
			return -ENOMEM;
		json_object_get(t->seg[i].o);
	}
	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct nt_tl_seg *s = &r->timeline[i];
		struct tl_seg_obj *e = &t->seg[i];
		char flags[12];

		json_object_set_int64(e->frame, nt_json_clamp_u64(s->frame));
		json_object_set_int64(e->t, s->t_ns);
		json_object_set_int64(e->rel, s->t_ns - r->first.held_t_ns);
		set_str(t, e->dir, nt_dir_name(s->dir));
		set_str(t, e->flags, nt_tcp_flags_str(s->flags, flags));
		json_object_set_int64(e->seq, s->seq_rel);
		json_object_set_int64(e->ack, s->ack_rel);
		json_object_set_int64(e->len, s->len);
	}
	t->shape += (1u << NT_JSON_FLOW_NULLABLE) * r->n_timeline;
	return t->oom ? -ENOMEM : 0;
}

/* The layout of @tree in the current shape, made when first needed; NULL without memory. */
static struct nt_json_layout *shape_layout(struct nt_json_layout **slot, struct json_object *tree,
					   int flags, int depth)
{
	if (*slot && !nt_json_layout_fits(*slot, flags, depth)) {
		nt_json_layout_free(*slot);
		*slot = NULL;
	}
	if (!*slot)
		*slot = nt_json_layout_new(tree, flags, depth);
	return *slot;
}

int nt_json_flow_write(struct nt_json_flow *t, FILE *out, int depth)
{
	struct nt_json_layout *l =
		shape_layout(&t->layout[t->shape], t->flow, NT_JSON_FLAGS, depth);

	return l ? nt_json_layout_write(l, out) : nt_json_write(out, t->flow, depth);
}

int nt_json_flow_write_record(struct nt_json_flow *t, FILE *out)
{
	struct nt_json_layout *l;
	char cid[NT_COMMUNITY_ID_LEN];
	int ret;

	/* Only the record has it: computed here, not for every flow of a document. */
	if (t->cur)
		set_str(t, t->community_id,
			nt_community_id_v1(t->cur->family, t->cur->client_addr, t->cur->client_port,
					   t->cur->target_addr, t->cur->target_port,
					   NT_COMMUNITY_ID_TCP, 0, cid, sizeof(cid)));
	l = shape_layout(&t->record_layout[t->shape], t->record, NT_JSON_LINE_FLAGS, 0);

	if (!l)
		return nt_json_line(out, t->record);
	ret = nt_json_layout_write(l, out);
	return ret ? ret : nt_json_record_end(out);
}

struct nt_json_flow *nt_json_flow_new(void)
{
	struct nt_json_flow *t = malloc(sizeof(*t));

	if (t && flow_obj_up(t) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

void nt_json_flow_free(struct nt_json_flow *t)
{
	if (!t)
		return;
	flow_obj_down(t);
	free(t);
}
