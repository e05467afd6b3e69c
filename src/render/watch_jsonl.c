// SPDX-License-Identifier: MIT
/*
 * watch_jsonl.c - watch's "stall" record, written through a template (see
 * nt/render/watch.h).
 *
 * A stall record is some 40 values. Building the json-c tree for each one,
 * printing it and freeing it cost about 8 µs a stall and made watch drop
 * frames where tcpdump did not (docs/performance.md). The tree is built once
 * here and its values set in place for each stall (json_object_set_*), and
 * it is printed through a layout (nt/render/json_layout.h): json-c's own
 * text of the tree, cut at its values, so a record costs the digits of its
 * values and one copy of the text between them. The bytes are json-c's,
 * as for analyze's flow records (analysis_json_flow.c).
 *
 * The shape is what changes the text besides the values: which members of
 * the two socket objects are null (an end not on this host, a closed
 * socket, a process not readable). A bit per member that may be null; the
 * few shapes a run meets each get a layout, kept in a small table and
 * replaced oldest first, so a run that meets many costs a layout now and
 * then, never memory without bound.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/render/community_id.h"
#include "nt/render/fmt.h"
#include "nt/render/json.h"
#include "nt/render/json_layout.h"
#include "nt/render/watch.h"
#include "nt/unknown.h"

/* Members of a socket object that may be null: pid, command, inode, netns, four tcp_info, two /proc. */
#define SOCK_NULLABLE 10
/* Layouts kept: a run meets a handful of shapes (both ends here, one, none, closed, ...). */
#define SHAPES_KEPT 16

/**
 * struct sock_obj - "client_socket" or "target_socket"
 * @o: the object
 * @local: "local"
 * @closed: "closed"
 * @v: the values that may be null, in the order of @key (the template's references)
 */
struct sock_obj {
	struct json_object *o, *local, *closed;
	struct json_object *v[SOCK_NULLABLE];
};

static const char *const sock_key[SOCK_NULLABLE] = {
	"pid",	  "command", "inode",	      "netns",	  "rtt_us",
	"ato_us", "unacked", "notsent_bytes", "pingpong", "quick",
};

/**
 * struct shape - one shape's layout
 * @mask: which nullable members are set (bit i of socket d: d * SOCK_NULLABLE + i)
 * @l: its layout, NULL when the slot is free
 */
struct shape {
	uint32_t mask;
	struct nt_json_layout *l;
};

/**
 * struct nt_watch_jsonl - the stall record's template
 * @rec: the record
 * @cid: "community_id"
 * @family: "family"
 * @addr: "client" and "target" "addr"
 * @port: their "port"
 * @dir: "dir"
 * @held_t: "held_t_ns"
 * @ack_t: "ack_t_ns"
 * @release_t: "release_t_ns"
 * @held_seq: "held_seq"
 * @held_bytes: "held_bytes"
 * @released: "released_bytes"
 * @ack_delay: "ack_delay_ns"
 * @delack: "delack"
 * @gap: "release_gap_ns"
 * @stall: "stall_ns"
 * @lost_min: "lost_min_ns"
 * @sock: the two socket objects (index enum nt_dir)
 * @shape: the layouts made so far
 * @next: the slot of @shape to replace next
 * @oom: an allocation failed
 */
struct nt_watch_jsonl {
	struct json_object *rec, *cid, *family, *addr[2], *port[2], *dir;
	struct json_object *held_t, *ack_t, *release_t, *held_seq, *held_bytes, *released;
	struct json_object *ack_delay, *delack, *gap, *stall, *lost_min;
	struct sock_obj sock[2];
	struct shape shape[SHAPES_KEPT];
	unsigned next;
	bool oom;
};

static struct json_object *put_int(struct nt_watch_jsonl *t, struct json_object *o, const char *key)
{
	return nt_json_put(&t->oom, o, key, nt_json_int64_fast(0));
}

static struct json_object *put_str(struct nt_watch_jsonl *t, struct json_object *o, const char *key)
{
	return nt_json_put(&t->oom, o, key, json_object_new_string(""));
}

static struct json_object *put_bool(struct nt_watch_jsonl *t, struct json_object *o,
				    const char *key)
{
	return nt_json_put(&t->oom, o, key, json_object_new_boolean(0));
}

static void endpoint_up(struct nt_watch_jsonl *t, const char *key, int side)
{
	struct json_object *o = nt_json_put(&t->oom, t->rec, key, json_object_new_object());

	t->addr[side] = put_str(t, o, "addr");
	t->port[side] = put_int(t, o, "port");
}

static void sock_up(struct nt_watch_jsonl *t, const char *key, struct sock_obj *s)
{
	s->o = nt_json_put(&t->oom, t->rec, key, json_object_new_object());
	s->local = put_bool(t, s->o, "local");
	s->closed = put_bool(t, s->o, "closed");
	for (int i = 0; i < SOCK_NULLABLE; i++) {
		struct json_object *v = i == 1	 ? json_object_new_string("")
					: i == 8 ? json_object_new_boolean(0)
						 : nt_json_int64_fast(0);

		/* The template's own reference: a member set to null does not free it. */
		s->v[i] = v;
		if (!v || !nt_json_put(&t->oom, s->o, sock_key[i], json_object_get(v)))
			t->oom = true;
	}
}

static void template_down(struct nt_watch_jsonl *t)
{
	json_object_put(t->rec);
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < SOCK_NULLABLE; i++)
			json_object_put(t->sock[d].v[i]);
	for (unsigned i = 0; i < SHAPES_KEPT; i++)
		nt_json_layout_free(t->shape[i].l);
}

/* Keys in the order of the schema; json-c prints them in insertion order. */
static void template_up(struct nt_watch_jsonl *t)
{
	struct json_object *o = t->rec = json_object_new_object();

	t->oom = !o;
	nt_json_put(&t->oom, o, "type", json_object_new_string("stall"));
	t->cid = put_str(t, o, "community_id");
	t->family = put_str(t, o, "family");
	endpoint_up(t, "client", 0);
	endpoint_up(t, "target", 1);
	t->dir = put_str(t, o, "dir");
	t->held_t = put_int(t, o, "held_t_ns");
	t->ack_t = put_int(t, o, "ack_t_ns");
	t->release_t = put_int(t, o, "release_t_ns");
	t->held_seq = put_int(t, o, "held_seq");
	t->held_bytes = put_int(t, o, "held_bytes");
	t->released = put_int(t, o, "released_bytes");
	t->ack_delay = put_int(t, o, "ack_delay_ns");
	t->delack = put_str(t, o, "delack");
	t->gap = put_int(t, o, "release_gap_ns");
	t->stall = put_int(t, o, "stall_ns");
	t->lost_min = put_int(t, o, "lost_min_ns");
	sock_up(t, "client_socket", &t->sock[NT_DIR_C2T]);
	sock_up(t, "target_socket", &t->sock[NT_DIR_T2C]);
}

struct nt_watch_jsonl *nt_watch_jsonl_new(void)
{
	struct nt_watch_jsonl *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	template_up(t);
	if (t->oom) {
		template_down(t);
		free(t);
		return NULL;
	}
	return t;
}

void nt_watch_jsonl_free(struct nt_watch_jsonl *t)
{
	if (!t)
		return;
	template_down(t);
	free(t);
}

static void set_str(struct nt_watch_jsonl *t, struct json_object *o, const char *s)
{
	if (!json_object_set_string(o, s))
		t->oom = true;
}

/* Member @i of @s: its value, or null; returns the shape's bit. */
static uint32_t set_or_null(struct sock_obj *s, int i, bool is_set)
{
	json_object_object_add_ex(s->o, sock_key[i], is_set ? json_object_get(s->v[i]) : NULL,
				  JSON_C_OBJECT_KEY_IS_CONSTANT);
	return (uint32_t)is_set << i;
}

static uint32_t set_i64(struct sock_obj *s, int i, int64_t v, bool is_set)
{
	json_object_set_int64(s->v[i], v);
	return set_or_null(s, i, is_set);
}

/* A socket object's values; returns its part of the shape. */
static uint32_t set_sock(struct nt_watch_jsonl *t, struct sock_obj *s,
			 const struct nt_sock_state *k)
{
	const char *command = nt_watch_command(k->pid, k->comm);
	uint32_t m = 0;

	json_object_set_boolean(s->local, k->local);
	json_object_set_boolean(s->closed, k->closed);
	m |= set_i64(s, 0, k->pid, k->pid >= 0);
	/*
	 * A name only where one was read, null otherwise, never "": json-c
	 * 0.16 (Debian 12's) loses the buffer of a string set back to "" after
	 * a longer one (json-c issue #780), and a watch that runs for days
	 * would leak a name at each nameless owner (unit/test_watch_jsonl).
	 */
	if (command)
		set_str(t, s->v[1], command);
	m |= set_or_null(s, 1, command != NULL);
	m |= set_i64(s, 2, (int64_t)k->inode, k->inode != 0);
	m |= set_i64(s, 3, (int64_t)k->netns, k->netns != 0);
	m |= set_i64(s, 4, k->rtt_us, nt_known(k->rtt_us));
	m |= set_i64(s, 5, k->ato_us, nt_known(k->ato_us));
	m |= set_i64(s, 6, k->unacked, nt_known(k->unacked));
	m |= set_i64(s, 7, k->notsent_bytes, nt_known(k->notsent_bytes));
	json_object_set_boolean(s->v[8], k->pingpong > 0);
	m |= set_or_null(s, 8, k->pingpong >= 0);
	m |= set_i64(s, 9, k->quick, k->quick >= 0);
	return m;
}

static uint32_t set_stall(struct nt_watch_jsonl *t, const struct nt_watch_stall *st)
{
	const struct nt_stall_episode *ep = &st->ep;
	char cid[NT_COMMUNITY_ID_LEN], addr[NT_FMT_ENDPOINT_LEN];

	set_str(t, t->cid,
		nt_community_id_v1(st->family, st->client_addr, st->client_port, st->target_addr,
				   st->target_port, NT_COMMUNITY_ID_TCP, 0, cid, sizeof(cid)));
	set_str(t, t->family, st->family == AF_INET6 ? "ipv6" : "ipv4");
	set_str(t, t->addr[0], nt_fmt_addr(st->family, st->client_addr, addr, sizeof(addr)));
	set_str(t, t->addr[1], nt_fmt_addr(st->family, st->target_addr, addr, sizeof(addr)));
	json_object_set_int64(t->port[0], st->client_port);
	json_object_set_int64(t->port[1], st->target_port);
	set_str(t, t->dir, nt_dir_name(ep->dir));
	json_object_set_int64(t->held_t, ep->held_t_ns);
	json_object_set_int64(t->ack_t, ep->ack_t_ns);
	json_object_set_int64(t->release_t, ep->release_t_ns);
	json_object_set_int64(t->held_seq, st->held_seq_rel);
	json_object_set_int64(t->held_bytes, ep->held_len);
	json_object_set_int64(t->released, st->release_bytes);
	json_object_set_int64(t->ack_delay, ep->ack_delay_ns);
	set_str(t, t->delack, nt_delack_name(ep->delack));
	json_object_set_int64(t->gap, ep->release_gap_ns);
	json_object_set_int64(t->stall, ep->stall_ns);
	json_object_set_int64(t->lost_min, ep->lost_min_ns);
	return set_sock(t, &t->sock[NT_DIR_C2T], &st->sock[NT_DIR_C2T]) |
	       set_sock(t, &t->sock[NT_DIR_T2C], &st->sock[NT_DIR_T2C]) << SOCK_NULLABLE;
}

/* The layout of the tree in shape @mask, made when first met; NULL without memory. */
static const struct nt_json_layout *shape_layout(struct nt_watch_jsonl *t, uint32_t mask)
{
	struct shape *s;

	for (unsigned i = 0; i < SHAPES_KEPT; i++)
		if (t->shape[i].l && t->shape[i].mask == mask)
			return t->shape[i].l;
	s = &t->shape[t->next];
	t->next = (t->next + 1) % SHAPES_KEPT;
	nt_json_layout_free(s->l);
	s->mask = mask;
	s->l = nt_json_layout_new(t->rec, NT_JSON_LINE_FLAGS, 0);
	return s->l;
}

int nt_watch_jsonl_stall(struct nt_watch_jsonl *t, FILE *out, const struct nt_watch_stall *st)
{
	uint32_t mask = set_stall(t, st);
	const struct nt_json_layout *l;
	int ret;

	if (t->oom)
		return -ENOMEM;
	l = shape_layout(t, mask);
	if (!l)
		return -ENOMEM;
	/* No flush per record: the caller flushes once per wake-up, after its stalls. */
	ret = nt_json_layout_write(l, out);
	if (!ret && fputc('\n', out) == EOF)
		ret = -EIO;
	return ret;
}
