// SPDX-License-Identifier: MIT
/*
 * analysis.c - frames -> flows -> stall episodes -> reports (see
 * nt/model/analysis.h).
 *
 * Each file gets a fresh flow table: two captures are two vantage points or
 * two time ranges, and joining their flows would invent gaps. A flow's
 * report is allocated only at its first stall, so the per-packet path does
 * not allocate: decode into a stack struct, hash, update the tracker.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/analysis.h"
#include "nt/model/stats.h"
#include "nt/model/tcp.h"
#include "nt/prefetch.h"

static void on_evict(void *ctx, struct nt_flow_entry *e, enum nt_evict_reason why);
static void result_free(struct nt_analysis *an, struct nt_flow_result *r);

/**
 * struct nt_analysis_keyed - a batch's flow keys, made where it is settled
 * @key: each frame's flow key
 * @hash: nt_flowtab_hash(@key)
 * @src_first: the packet's source is the key's first endpoint
 */
struct nt_analysis_keyed {
	struct nt_flow_key key[NT_ANALYSIS_BATCH];
	uint32_t hash[NT_ANALYSIS_BATCH];
	bool src_first[NT_ANALYSIS_BATCH];
};

static int table_up(struct nt_analysis *an)
{
	return nt_flowtab_init(&an->tab, an->params.max_flows, an->params.idle_ns, on_evict, an);
}

int nt_analysis_init(struct nt_analysis *an, const struct nt_analysis_params *params)
{
	memset(an, 0, sizeof(*an));
	an->params = *params;
	an->cur_linktype = -1;
	nt_pool_init(&an->reports, &an->arena, sizeof(struct nt_flow_result));
	nt_blocks_init(&an->blocks, &an->arena);
	/* The settling thread's, beside a reader thread (capture/feed.c). */
	an->batch = nt_lines_alloc(sizeof(*an->batch));
	an->keyed = nt_lines_alloc(sizeof(*an->keyed));
	if (!an->batch || !an->keyed) {
		free(an->batch);
		free(an->keyed);
		an->batch = NULL;
		an->keyed = NULL;
		return -ENOMEM;
	}
	an->batch->n = 0;
	return 0;
}

void nt_analysis_fini(struct nt_analysis *an)
{
	nt_flowtab_fini(&an->tab);
	for (size_t i = 0; i < an->n_files; i++) {
		free(an->files[i].path);
		free(an->files[i].error);
	}
	nt_pages_free(&an->files_pages);
	nt_analysis_drop_closed(an);
	nt_pool_fini(&an->reports);
	nt_blocks_fini(&an->blocks);
	nt_arena_fini(&an->arena); /* after the pools, whose chunks it holds */
	free(an->flows);
	free(an->batch);
	free(an->keyed);
	memset(an, 0, sizeof(*an));
}

static void result_free(struct nt_analysis *an, struct nt_flow_result *r)
{
	nt_blocks_put(&an->blocks, r->stall_ns, r->stall_ns_cap * sizeof(*r->stall_ns));
	nt_stall_recs_free(&r->all, &an->blocks);
	nt_spans_fini(&r->wall);
	nt_spans_fini(&r->wall_min);
	nt_pool_put(&an->reports, r);
}

void nt_analysis_drop_closed(struct nt_analysis *an)
{
	for (size_t i = 0; i < an->n_flows; i++)
		result_free(an, an->flows[i]);
	an->n_flows = 0;
}

int nt_analysis_file_begin(struct nt_analysis *an, const char *path)
{
	struct nt_analysis_file *f;

	if (!an->batch) /* nt_analysis_init() failed */
		return -ENOMEM;
	if (nt_pages_grow(&an->files_pages, (an->n_files + 1) * sizeof(*f)) < 0)
		return -ENOMEM;
	an->files = an->files_pages.p;
	f = &an->files[an->n_files];
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	f->linktype = -1;
	f->first_t_ns = f->last_t_ns = -1;
	an->n_files++;
	an->cur_linktype = -1;
	return table_up(an);
}

void nt_analysis_set_linktype(struct nt_analysis *an, int linktype, const char *name)
{
	an->cur_linktype = linktype;
	if (an->n_files) {
		struct nt_analysis_file *f = &an->files[an->n_files - 1];

		f->linktype = linktype;
		snprintf(f->linktype_name, sizeof(f->linktype_name), "%s", name);
	}
}

static void result_close(struct nt_flow_result *r, const struct nt_flow_entry *e)
{
	r->packets = e->packets;
	r->first_t_ns = e->first_t_ns;
	r->last_t_ns = e->last_t_ns;
	r->syn_seen = e->flow.syn_seen[0] || e->flow.syn_seen[1];
	r->mss[0] = e->flow.mss[0];
	r->mss[1] = e->flow.mss[1];
	r->rtt_ns[0] = nt_stall_path(&e->stall, NT_DIR_C2T);
	r->rtt_ns[1] = nt_stall_path(&e->stall, NT_DIR_T2C);
	r->think_time = e->think_time;
	r->out_of_order = e->reorder_rare.out_of_order[0] + e->reorder_rare.out_of_order[1];
}

/* The flow's median stall (from all its durations, or NT_STALL_KEPT of them sampled). */
static void set_p50(struct nt_flow_result *r)
{
	/* nt_stats_select() reorders: a copy keeps the report's order. */
	int64_t tmp[NT_STALL_KEPT];
	uint32_t kept = r->stalls < NT_STALL_KEPT ? r->stalls : NT_STALL_KEPT;
	uint32_t moved = kept - kept % NT_STALL_BATCH;

	if (!kept)
		return;
	if (moved)
		memcpy(tmp, r->stall_ns, moved * sizeof(*tmp));
	memcpy(tmp + moved, r->recent_ns, (kept - moved) * sizeof(*tmp));
	r->p50_ns = nt_stats_select(tmp, kept, nt_stats_rank(kept, 50) - 1);
	r->p50_sampled = r->stalls > kept;
}

/* A report's place in the order: file, then its first stall's H (time, frame). */
struct order {
	uint32_t file;
	int64_t held_t_ns;
	uint64_t held_frame;
};

static struct order order_of(const struct nt_flow_result *r)
{
	return (struct order){ r->file, r->first.held_t_ns, r->first.held_frame };
}

static int cmp_order(const struct order *x, const struct order *y)
{
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->held_t_ns != y->held_t_ns)
		return x->held_t_ns < y->held_t_ns ? -1 : 1;
	return x->held_frame < y->held_frame ? -1 : x->held_frame > y->held_frame;
}

/* What nt_analysis_finish() sorts: a report's order, copied beside it. */
struct sort_key {
	struct order o;
	struct nt_flow_result *r;
};

static struct sort_key key_of(struct nt_flow_result *r)
{
	return (struct sort_key){ order_of(r), r };
}

static int cmp_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	return cmp_order(&x->o, &y->o);
}

bool nt_analysis_worse(const struct nt_flow_result *a, const struct nt_flow_result *b)
{
	struct order x, y;

	if (a->wall.total_ns != b->wall.total_ns)
		return a->wall.total_ns > b->wall.total_ns;
	x = order_of(a);
	y = order_of(b);
	return cmp_order(&x, &y) < 0;
}

/* @r, closed, kept as enum nt_analysis_keep says; room for it was reserved in result_new(). */
static void keep_report(struct nt_analysis *an, struct nt_flow_result *r)
{
	if (an->params.keep == NT_KEEP_WORST && an->n_flows) {
		struct nt_flow_result **held = &an->flows[an->n_flows - 1];

		if (nt_analysis_worse(r, *held)) {
			result_free(an, *held);
			*held = r;
		} else {
			result_free(an, r);
		}
		return;
	}
	an->flows[an->n_flows++] = r;
}

static void on_evict(void *ctx, struct nt_flow_entry *e, enum nt_evict_reason why)
{
	struct nt_analysis *an = ctx;

	if (why == NT_EVICT_IDLE)
		an->sum.evicted_idle++;
	else if (why == NT_EVICT_FULL)
		an->sum.evicted_full++;
	if (!e->res)
		return;
	/* Its stalls are in the totals already: nothing shows the report. */
	if (an->params.keep == NT_KEEP_NONE) {
		result_free(an, e->res);
		e->res = NULL;
		return;
	}
	result_close(e->res, e);
	e->res->evicted = why != NT_EVICT_FLUSH;
	/* Its stalls are all in: the median, while the report's lines are at hand. */
	set_p50(e->res);
	keep_report(an, e->res);
	e->res = NULL;
}

static struct nt_flow_result *result_new(struct nt_analysis *an, const struct nt_flow_entry *e)
{
	struct nt_flow_result *r;
	size_t alen = e->flow.family == AF_INET6 ? 16 : 4;

	if (an->params.keep != NT_KEEP_NONE && an->n_flows + an->tab.n_used + 1 > an->flows_cap) {
		size_t cap = an->flows_cap ? an->flows_cap * 2 : 16;
		struct nt_flow_result **v;

		while (cap < an->n_flows + an->tab.n_used + 1)
			cap *= 2;
		v = realloc(an->flows, cap * sizeof(struct nt_flow_result *));
		if (!v)
			return NULL;
		an->flows = v;
		an->flows_cap = cap;
	}
	r = nt_pool_get(&an->reports);
	if (!r)
		return NULL;
	r->file = (uint32_t)(an->n_files - 1);
	r->max_ns = INT64_MIN;
	r->family = e->flow.family;
	memcpy(r->client_addr, e->flow.client_addr, alen);
	memcpy(r->target_addr, e->flow.target_addr, alen);
	r->client_port = e->flow.client_port;
	r->target_port = e->flow.target_port;
	return r;
}

/* The flow's first stall and the segments around it, from the ring (oldest first, R included). */
static void set_first(struct nt_analysis *an, struct nt_flow_result *r, struct nt_flow_entry *e,
		      const struct nt_stall_episode *ep)
{
	const struct nt_flow_ring *ring = nt_flowtab_ring(&an->tab, e);

	r->first = *ep;
	r->first_held_seq_rel = ep->held_seq - e->flow.isn[ep->dir];
	for (unsigned k = 0; k < e->ring_n; k++) {
		unsigned at = (e->ring_head + NT_FLOW_RING - e->ring_n + k) % NT_FLOW_RING;

		r->timeline[r->n_timeline++] = ring->seg[at];
	}
	e->after_left = NT_FLOW_AFTER;
}

/*
 * The wall-clock time the episode adds to its flow: the union of [H, R]
 * intervals, and of the surely lost parts [R - lost_min, R]. A later episode
 * of the flow holds a segment still held now, or sent from now on, so
 * intervals ending before the earliest such H are settled.
 */
static int add_wall(struct nt_analysis *an, struct nt_flow_entry *e,
		    const struct nt_stall_episode *ep)
{
	struct nt_flow_result *r = e->res;
	int64_t sure_from = ep->release_t_ns - ep->lost_min_ns;
	int64_t before = ep->release_t_ns;
	int64_t wall = r->wall.total_ns, wall_min = r->wall_min.total_ns;

	for (int d = 0; d < 2; d++)
		if (e->stall.side[d].state != NT_STALL_IDLE && e->stall.side[d].h_t_ns < before)
			before = e->stall.side[d].h_t_ns;
	if (nt_spans_add(&r->wall, ep->held_t_ns, ep->release_t_ns) < 0 ||
	    nt_spans_add(&r->wall_min, sure_from, ep->release_t_ns) < 0)
		return -ENOMEM;
	nt_spans_settle(&r->wall, before);
	nt_spans_settle(&r->wall_min, before);
	an->sum.stalled_wall_ns += r->wall.total_ns - wall;
	an->sum.stalled_wall_min_ns += r->wall_min.total_ns - wall_min;
	return 0;
}

/* splitmix64: a well-mixed 64-bit sequence from a counter; state advances by a constant. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The median's material: every duration up to NT_STALL_KEPT, then a uniform
 * sample (reservoir sampling, Vitter's algorithm R: stall number s replaces
 * a random kept one with probability NT_STALL_KEPT / (s + 1)).
 *
 * Up to NT_STALL_KEPT, a store to the heap array would touch a line evicted
 * since the flow's previous stall (thousands of flows pass in between); the
 * report's own lines are in cache (prefetched in settle_tcp()): collect a
 * line's worth there, move it at once.
 */
static int keep_duration(struct nt_analysis *an, struct nt_flow_result *r, int64_t stall_ns)
{
	uint32_t k = r->stalls % NT_STALL_BATCH;

	if (r->stalls >= NT_STALL_KEPT) {
		uint64_t j = next_random(&r->sample_state) % ((uint64_t)r->stalls + 1);

		if (j < NT_STALL_KEPT)
			r->stall_ns[j] = stall_ns;
		return 0;
	}
	r->recent_ns[k] = stall_ns;
	if (k == NT_STALL_BATCH - 1) {
		if (r->stalls + 1 > r->stall_ns_cap) {
			uint32_t cap = r->stall_ns_cap ? r->stall_ns_cap * 2 : NT_STALL_BATCH;
			int64_t *v = nt_blocks_resize(&an->blocks, r->stall_ns,
						      r->stall_ns_cap * sizeof(*v),
						      cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			r->stall_ns = v;
			r->stall_ns_cap = cap;
		}
		memcpy(r->stall_ns + r->stalls + 1 - NT_STALL_BATCH, r->recent_ns,
		       sizeof(r->recent_ns));
	}
	return 0;
}

/* Every stall, for the reports that list them all (JSON's "stalls"). */
static int keep_rec(struct nt_analysis *an, struct nt_flow_result *r,
		    const struct nt_stall_episode *ep)
{
	const struct nt_stall_rec x = {
		.held_t_ns = ep->held_t_ns,
		.ack_t_ns = ep->ack_t_ns,
		.release_t_ns = ep->release_t_ns,
		.held_frame = ep->held_frame,
		.ack_frame = ep->ack_frame,
		.release_frame = ep->release_frame,
		.held_len = ep->held_len,
		.dir = (uint8_t)ep->dir,
		.delack = (uint8_t)ep->delack,
	};

	return nt_stall_recs_add(&r->all, &an->blocks, &x);
}

static int record_stall(struct nt_analysis *an, struct nt_flow_entry *e,
			const struct nt_stall_episode *ep)
{
	struct nt_flow_result *r = e->res;

	if (!r) {
		r = result_new(an, e);
		if (!r)
			return -ENOMEM;
		e->res = r;
		if (an->params.keep != NT_KEEP_NONE)
			set_first(an, r, e, ep);
		an->files[an->n_files - 1].flows_with_stalls++;
		an->sum.flows_with_stalls++;
	} else if (e->after_left && ep->held_t_ns < r->first.held_t_ns) {
		/*
		 * Episodes are found when the data is released, so two that
		 * overlap (both sides held at once) can be recorded out of order.
		 * "First" is by when the held segment left. The timeline, still
		 * being filled, already spans this one: its H came before the
		 * recorded first's and its release is the segment just added.
		 * (@after_left is tested first: once the timeline is complete,
		 * @first's line, which nt_analysis_frame() does not prefetch,
		 * stays unread.)
		 */
		r->first = *ep;
		r->first_held_seq_rel = ep->held_seq - e->flow.isn[ep->dir];
	}
	if ((an->params.keep != NT_KEEP_NONE && keep_duration(an, r, ep->stall_ns) < 0) ||
	    (an->params.keep_stalls && keep_rec(an, r, ep) < 0))
		return -ENOMEM;
	r->stalls++;
	r->total_ns += ep->stall_ns;
	if (ep->stall_ns > r->max_ns)
		r->max_ns = ep->stall_ns;
	r->by_delack[ep->delack]++;
	if (r->stalls == 1 || ep->held_t_ns >= r->last.held_t_ns)
		r->last = *ep;
	an->files[an->n_files - 1].stalls++;
	an->sum.stalls++;
	an->sum.by_delack[ep->delack]++;
	an->sum.by_dir[ep->dir == NT_DIR_T2C]++;
	an->sum.total_stall_ns += ep->stall_ns;
	return add_wall(an, e, ep);
}

/* Counts the frame in; false when it is not TCP (counted by why). */
static bool count_frame(struct nt_analysis *an, struct nt_analysis_file *f, int64_t t_ns,
			enum nt_decode_status st)
{
	f->packets++;
	an->sum.packets++;
	if (f->first_t_ns < 0)
		f->first_t_ns = t_ns;
	f->last_t_ns = t_ns;
	/* A microsecond capture, scaled to nanoseconds by libpcap, has none below a microsecond. */
	if (t_ns % 1000)
		f->sub_us = true;
	if (st != NT_DECODE_OK) {
		if ((unsigned)st < NT_DECODE_STATUS_COUNT) {
			f->not_decoded[st]++;
			an->sum.not_decoded[st]++;
		}
		return false;
	}
	f->tcp_packets++;
	an->sum.tcp_packets++;
	return true;
}

/*
 * Reports are line-aligned (nt_pool_init()): the list shares the unions'
 * last line, asked for anyway. Checked where pointers are 64 bits, the
 * builds that read captures (the lesson's wasm32 model reads none).
 */
#if defined(__LP64__)
#define LAST_LINE_OF(member, type) \
	((offsetof(struct nt_flow_result, member) + sizeof(type) - 1) / 64)
_Static_assert(LAST_LINE_OF(all, struct nt_stall_recs) == LAST_LINE_OF(wall_min, struct nt_spans),
	       "the stall list costs a line more to prefetch");
#undef LAST_LINE_OF
#endif

/*
 * With thousands of flows the report is a cache miss (the lookup asked for
 * the entry's lines): ask for the lines record_stall() writes now, @stalls
 * to the end of @last, add_wall()'s two unions (their pairs are inside
 * them, struct nt_spans) and keep_rec()'s list of blocks, while the stall
 * rule runs, rather than one miss after the other.
 */
static void prefetch_report(const struct nt_flow_result *r)
{
	nt_prefetch_write(&r->stalls, &r->last + 1);
	nt_prefetch_write(&r->wall, &r->all + 1);
}

/* The direction of a segment of @e's whose source is the key's first endpoint when @src_first. */
static enum nt_dir dir_of(const struct nt_flow_entry *e, bool src_first)
{
	return src_first == e->client_first ? NT_DIR_C2T : NT_DIR_T2C;
}

/*
 * Whether a segment of @e's with @len bytes in direction @dir may end an
 * episode, and so write the report: only data whose own side's H has had
 * its late ACK (nt_stall_feed(): NT_STALL_ACKED). Most segments cannot, and
 * asking for the report's eight lines for each of them filled the core's
 * queue of outstanding misses with lines no one reads, ahead of the entries
 * that every segment does. A guess, made frames early: a segment between now
 * and then may change the state; the report is then one miss, as it was.
 */
static bool may_end_episode(const struct nt_flow_entry *e, enum nt_dir dir, uint32_t len)
{
	return e->res && len > 0 && e->stall.side[dir].state == NT_STALL_ACKED;
}

/* A new flow: the SYN's sender is the client; mid-stream, the first sender is. */
static void flow_start(struct nt_analysis *an, struct nt_analysis_file *f, struct nt_flow_entry *e,
		       const struct nt_tcp_packet *pkt, bool src_first)
{
	bool syn_ack = (pkt->flags & (NT_TCP_SYN | NT_TCP_ACK)) == (NT_TCP_SYN | NT_TCP_ACK);

	e->client_first = syn_ack ? !src_first : src_first;
	if (syn_ack)
		nt_flow_init(&e->flow, pkt->family, pkt->dst_addr, pkt->dst_port, pkt->src_addr,
			     pkt->src_port);
	else
		nt_flow_init(&e->flow, pkt->family, pkt->src_addr, pkt->src_port, pkt->dst_addr,
			     pkt->dst_port);
	nt_stall_init(&e->stall, pkt->family);
	nt_reorder_init(&e->reorder, &e->reorder_rare);
	f->flows++;
	an->sum.flows++;
}

/*
 * Relative numbers and the ring feed only the timeline: the segments before
 * a flow's first stall and NT_FLOW_AFTER behind it. Once those are taken, the
 * flow state matters only for what a SYN sets (syn_seen, mss), so most
 * packets of a stalling flow skip this part; when no report is kept
 * (NT_KEEP_NONE), every packet does, and the ring's pages are never touched.
 */
static void note_timeline(struct nt_analysis *an, struct nt_flow_entry *e,
			  const struct nt_tcp_packet *pkt, enum nt_dir dir, int64_t t_ns,
			  uint64_t frame)
{
	struct nt_segment seg;

	if (an->params.keep == NT_KEEP_NONE ||
	    (e->res && !e->after_left && !(pkt->flags & NT_TCP_SYN)))
		return;
	nt_flow_segment(&e->flow, pkt, dir, &seg);

	struct nt_tl_seg tl = {
		.t_ns = t_ns,
		.frame = frame,
		.dir = (uint8_t)dir,
		.flags = pkt->flags,
		.seq_rel = seg.seq_rel,
		.ack_rel = seg.ack_rel,
		.len = pkt->payload_bytes,
	};
	if (!e->res) {
		nt_flowtab_ring(&an->tab, e)->seg[e->ring_head] = tl;
		e->ring_head = (e->ring_head + 1) % NT_FLOW_RING;
		if (e->ring_n < NT_FLOW_RING)
			e->ring_n++;
	} else if (e->after_left) {
		e->res->timeline[e->res->n_timeline++] = tl;
		e->after_left--;
	}
}

/* One TCP frame, in capture order: its flow, the timeline, the stall rule. */
/* A segment below its sender's highest that is no retransmission: counted per flow, file, total. */
static void count_reordered(struct nt_analysis *an, struct nt_analysis_file *f,
			    struct nt_flow_entry *e, const struct nt_tcp_packet *pkt,
			    enum nt_dir dir, int64_t t_ns)
{
	const struct nt_reorder_seg rs = {
		.t_ns = t_ns,
		.dir = dir,
		.flags = pkt->flags,
		.seq = pkt->seq,
		.ack = pkt->ack,
		.len = pkt->payload_bytes,
	};

	if (!nt_reorder_segment(&e->reorder, &e->reorder_rare, &rs))
		return;
	f->out_of_order++;
	an->sum.out_of_order++;
	/* This flow's first: the counter has just counted it. */
	if (e->reorder_rare.out_of_order[0] + e->reorder_rare.out_of_order[1] == 1)
		an->sum.flows_out_of_order++;
}

static int settle_tcp(struct nt_analysis *an, const struct nt_analysis_pending *p, size_t k,
		      uint64_t frame)
{
	const struct nt_analysis_keyed *kd = an->keyed;
	bool src_first = kd->src_first[k];
	struct nt_analysis_file *f = &an->files[an->n_files - 1];
	struct nt_flow_entry *e;
	struct nt_stall_episode ep;
	bool created;
	enum nt_dir dir;

	e = nt_flowtab_lookup_hashed(&an->tab, &kd->key[k], kd->hash[k], p->t_ns, &created);
	if (!e) {
		an->oom = true;
		return -ENOMEM;
	}
	if (created)
		flow_start(an, f, e, &p->pkt, src_first);
	dir = dir_of(e, src_first);
	if (may_end_episode(e, dir, p->pkt.payload_bytes)) {
		const struct nt_flow_result *r = e->res;
		const void *slot;

		prefetch_report(r);
		/*
		 * keep_rec()'s slot, in a block of its own: its address is in
		 * the report's lines, asked for frames ago, so it can be asked
		 * for now, while the stall rule runs.
		 */
		slot = an->params.keep_stalls ? nt_stall_recs_next_slot(&r->all) : NULL;
		if (slot)
			__builtin_prefetch(slot, 1);
	}
	e->packets++;
	note_timeline(an, e, &p->pkt, dir, p->t_ns, frame);
	count_reordered(an, f, e, &p->pkt, dir, p->t_ns);

	if (p->note.late_ns > 0) {
		f->late_frames++;
		f->late_ns += p->note.late_ns;
	}
	struct nt_stall_seg ss = {
		.t_ns = p->t_ns,
		.note = p->note,
		.dir = dir,
		.flags = p->pkt.flags,
		.seq = p->pkt.seq,
		.ack = p->pkt.ack,
		.len = p->pkt.payload_bytes,
		.mss_opt = p->pkt.mss,
		.has_ts = p->pkt.has_timestamps,
		.frame_index = frame,
	};
	if (nt_stall_feed(&e->stall, &an->params.stall, &ss, &ep) != 1)
		return 0;
	if (ep.kind == NT_EPISODE_THINK_TIME) {
		e->think_time++;
		an->sum.think_time++;
	} else if (record_stall(an, e, &ep) < 0) {
		an->oom = true;
		return -ENOMEM;
	} else {
		if (an->annot)
			(void)nt_annot_add(an->annot, (uint32_t)(an->n_files - 1), &ep);
		if (an->on_stall)
			an->on_stall(an->on_stall_ctx, e, &ep, &p->pkt);
	}
	return 0;
}

void nt_analysis_decode(int linktype, int64_t t_ns, const struct nt_frame_note *note,
			const uint8_t *frame, size_t caplen, struct nt_analysis_pending *p)
{
	p->t_ns = t_ns;
	p->note = note ? *note : (struct nt_frame_note){ 0 };
	p->status = (uint8_t)nt_decode_frame(linktype, frame, caplen, &p->pkt);
}

/*
 * How far ahead of the frame being settled its successors' lines are asked
 * for. With thousands of interleaved flows every packet's bucket and entry
 * are cache misses, and each waits for the one before it (the bucket names
 * the entry). So a frame's bucket is asked for BUCKET_AHEAD frames before it
 * is settled, its entry ENTRY_AHEAD frames before (its bucket has arrived by
 * then), and it is settled, in capture order, with both in the cache. Not
 * the whole batch's buckets at once: a core tracks a few dozen outstanding
 * misses, and asking for 256 was 1-3 % slower (--brief, 10,000 flows, wall
 * min of 9). The prefetches are hints: the lookup itself runs as before, on
 * the table as it is then, so results do not depend on them.
 */
#define BUCKET_AHEAD 16
#define ENTRY_AHEAD  8

/*
 * A stalling flow's report is a third miss, named by the entry: asked for
 * REPORT_AHEAD frames before the frame is settled, once the entry has had
 * ENTRY_AHEAD - REPORT_AHEAD frames to arrive. Asked for just before the
 * stall rule ran (prefetch_report() in settle_tcp()), it still arrived late:
 * record_stall()'s first read of it was 8 % of analyze --brief --jobs 1 on
 * 10,000 flows (issue 31).
 */
#define REPORT_AHEAD 3

int nt_analysis_settle(struct nt_analysis *an, const struct nt_analysis_pending *p, size_t n)
{
	struct nt_analysis_file *f = &an->files[an->n_files - 1];
	struct nt_analysis_keyed *kd = an->keyed;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i].status != NT_DECODE_OK)
			continue;
		nt_flow_key_of(&p[i].pkt, &kd->key[i], &kd->src_first[i]);
		kd->hash[i] = nt_flowtab_hash(&kd->key[i]);
		if (i < BUCKET_AHEAD)
			nt_flowtab_prefetch_bucket(&an->tab, kd->hash[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (i + BUCKET_AHEAD < n && p[i + BUCKET_AHEAD].status == NT_DECODE_OK)
			nt_flowtab_prefetch_bucket(&an->tab, kd->hash[i + BUCKET_AHEAD]);
		if (i + ENTRY_AHEAD < n && p[i + ENTRY_AHEAD].status == NT_DECODE_OK)
			nt_flowtab_prefetch_entry(&an->tab, kd->hash[i + ENTRY_AHEAD]);
		if (i + REPORT_AHEAD < n && p[i + REPORT_AHEAD].status == NT_DECODE_OK) {
			const struct nt_flow_entry *ahead =
				nt_flowtab_peek(&an->tab, kd->hash[i + REPORT_AHEAD]);

			if (ahead &&
			    may_end_episode(ahead, dir_of(ahead, kd->src_first[i + REPORT_AHEAD]),
					    p[i + REPORT_AHEAD].pkt.payload_bytes))
				prefetch_report(ahead->res);
		}
		if (count_frame(an, f, p[i].t_ns, (enum nt_decode_status)p[i].status) &&
		    settle_tcp(an, &p[i], i, f->packets) < 0)
			ret = -ENOMEM;
	}
	return ret;
}

int nt_analysis_frame(struct nt_analysis *an, int64_t t_ns, const uint8_t *frame, size_t caplen)
{
	return nt_analysis_frame_of(an, an->cur_linktype, t_ns, NULL, frame, caplen);
}

int nt_analysis_frame_of(struct nt_analysis *an, int linktype, int64_t t_ns,
			 const struct nt_frame_note *note, const uint8_t *frame, size_t caplen)
{
	struct nt_analysis_batch *b = an->batch;
	int ret = 0;

	nt_analysis_decode(linktype, t_ns, note, frame, caplen, &b->p[b->n++]);
	if (b->n == NT_ANALYSIS_BATCH) {
		ret = nt_analysis_settle(an, b->p, b->n);
		b->n = 0;
	}
	return ret;
}

void nt_analysis_file_end(struct nt_analysis *an, const char *error)
{
	struct nt_analysis_file *f = &an->files[an->n_files - 1];

	(void)nt_analysis_settle(an, an->batch->p, an->batch->n);
	an->batch->n = 0;
	nt_flowtab_flush(&an->tab);
	nt_flowtab_fini(&an->tab);
	if (error) {
		f->error = strdup(error);
		an->sum.files_damaged++;
	}
}

static void sum_add(struct nt_analysis_summary *s, const struct nt_analysis_summary *p)
{
	s->packets += p->packets;
	s->tcp_packets += p->tcp_packets;
	for (int i = 0; i < NT_DECODE_STATUS_COUNT; i++)
		s->not_decoded[i] += p->not_decoded[i];
	s->flows += p->flows;
	s->flows_with_stalls += p->flows_with_stalls;
	s->stalls += p->stalls;
	s->think_time += p->think_time;
	s->out_of_order += p->out_of_order;
	s->flows_out_of_order += p->flows_out_of_order;
	for (int i = 0; i < 3; i++)
		s->by_delack[i] += p->by_delack[i];
	s->by_dir[0] += p->by_dir[0];
	s->by_dir[1] += p->by_dir[1];
	s->total_stall_ns += p->total_stall_ns;
	s->stalled_wall_ns += p->stalled_wall_ns;
	s->stalled_wall_min_ns += p->stalled_wall_min_ns;
	s->evicted_idle += p->evicted_idle;
	s->evicted_full += p->evicted_full;
	s->files_damaged += p->files_damaged;
}

/*
 * Files never share flows (each has its own table, see above), so an
 * analysis of later files is the serial one's continuation: its files and
 * reports go after ours, with their file numbers shifted, and every total
 * adds. nt_analysis_finish() then orders the reports as a serial run would.
 */
int nt_analysis_absorb(struct nt_analysis *an, struct nt_analysis *part)
{
	struct nt_analysis_file *files;
	struct nt_flow_result **flows;
	uint32_t offset = (uint32_t)an->n_files;

	if (part->n_files &&
	    nt_pages_grow(&an->files_pages, (an->n_files + part->n_files) * sizeof(*files)) < 0)
		return -ENOMEM;
	files = an->files = an->files_pages.p;
	if (an->n_flows + part->n_flows > an->flows_cap) {
		flows = realloc(an->flows,
				(an->n_flows + part->n_flows) * sizeof(struct nt_flow_result *));
		if (!flows)
			return -ENOMEM;
		an->flows = flows;
		an->flows_cap = an->n_flows + part->n_flows;
	}
	flows = an->flows;
	if (an->annot && part->annot && nt_annot_absorb(an->annot, part->annot, offset) < 0)
		an->oom = true;
	if (part->n_files)
		memcpy(files + an->n_files, part->files, part->n_files * sizeof(*files));
	an->n_files += part->n_files;
	part->n_files = 0;
	for (size_t i = 0; i < part->n_flows; i++) {
		part->flows[i]->file += offset;
		flows[an->n_flows++] = part->flows[i];
	}
	part->n_flows = 0;
	nt_pool_absorb(&an->reports, &part->reports);
	nt_blocks_absorb(&an->blocks, &part->blocks);
	nt_arena_absorb(&an->arena, &part->arena); /* where those chunks are */
	sum_add(&an->sum, &part->sum);
	an->oom |= part->oom;
	return 0;
}

bool nt_analysis_complete(const struct nt_analysis *an)
{
	return !an->oom && !an->sum.files_damaged && !an->sum.evicted_full;
}

static int cmp_result(const void *a, const void *b)
{
	struct order x = order_of(*(struct nt_flow_result *const *)a);
	struct order y = order_of(*(struct nt_flow_result *const *)b);

	return cmp_order(&x, &y);
}

/* Reports read ahead of the one whose key is being copied (nt_analysis_finish()). */
#define KEY_AHEAD 8

/*
 * The reports in their order. They are sorted through a copy of their
 * keys: qsort() compares each some 2 log2(n) times, and with 100,000 flows
 * the reports (1 KiB each) are far out of the cache while their keys (32
 * bytes) fit in it; each report is read once, KEY_AHEAD reports ahead
 * asked for, so that their misses overlap. The copy is in pages of its own
 * (nt/pages.h: 3.2 MB at 100,000 flows). Flows leave the table oldest
 * first, which is often their order already: then nothing is sorted. No
 * room for the copy: the pointers are sorted, slower, by the same keys.
 */
void nt_analysis_finish(struct nt_analysis *an)
{
	struct nt_pages pg = { 0 };
	struct sort_key *k;
	bool sorted = true;

	if (an->n_flows < 2)
		return;
	if (nt_pages_grow(&pg, an->n_flows * sizeof(*k)) < 0) {
		qsort(an->flows, an->n_flows, sizeof(struct nt_flow_result *), cmp_result);
		return;
	}
	k = pg.p;
	for (size_t i = 0; i < an->n_flows; i++) {
		if (i + KEY_AHEAD < an->n_flows) {
			const struct nt_flow_result *ahead = an->flows[i + KEY_AHEAD];

			__builtin_prefetch(&ahead->file);
			__builtin_prefetch(&ahead->first.held_t_ns);
			__builtin_prefetch(&ahead->first.held_frame);
		}
		k[i] = key_of(an->flows[i]);
		if (i && cmp_key(&k[i - 1], &k[i]) > 0)
			sorted = false;
	}
	if (!sorted)
		qsort(k, an->n_flows, sizeof(*k), cmp_key);
	for (size_t i = 0; i < an->n_flows; i++)
		an->flows[i] = k[i].r;
	nt_pages_free(&pg);
}
