/* SPDX-License-Identifier: MIT */
/*
 * flowtab.h - a bounded table of bidirectional TCP connections.
 *
 * Keyed by the 4-tuple in a canonical order, so both directions of a
 * connection find the same entry. Memory is bounded by a flow cap: entries
 * live in one array that grows by doubling up to the cap (no allocation per
 * packet); a flow idle for longer than the idle timeout (capture time) is
 * evicted, and when the table is full the least recently seen flow is. Every
 * eviction goes through one callback, so the owner can keep what it needs.
 * Entry pointers stay valid only until the next lookup or flush.
 */
#ifndef NT_MODEL_FLOWTAB_H
#define NT_MODEL_FLOWTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/decode.h"
#include "nt/model/flow.h"
#include "nt/model/reorder.h"
#include "nt/model/stall.h"
#include "nt/pages.h"

#define NT_FLOWTAB_NIL UINT32_MAX
/* Segments kept before a flow's first stall for its timeline, and after it. */
#define NT_FLOW_RING  8
#define NT_FLOW_AFTER 3
/* Cache lines of an entry every packet reads: up to the end of its stall state. */
#define NT_FLOW_HOT_LINES 6

/**
 * struct nt_flow_key - a connection's endpoints, lower (address, port) first
 * @family: AF_INET or AF_INET6
 * @port: ports, host order, matching @addr
 * @addr: addresses, network order (IPv4: first 4 bytes, the rest zero)
 */
struct nt_flow_key {
	uint32_t family;
	uint16_t port[2];
	uint8_t addr[2][16];
};

/**
 * struct nt_tl_seg - one segment of a report's timeline
 * @t_ns: capture time
 * @frame: frame index in its file
 * @dir: direction
 * @flags: TCP flags
 * @seq_rel: relative sequence number
 * @ack_rel: relative acknowledgment number
 * @len: payload bytes
 *
 * 32 bytes (@dir an enum nt_dir in a byte): eight of them make a flow's ring.
 */
struct nt_tl_seg {
	int64_t t_ns;
	uint64_t frame;
	uint8_t dir;
	uint8_t flags;
	uint32_t seq_rel;
	uint32_t ack_rel;
	uint32_t len;
};

struct nt_flow_result;

/**
 * struct nt_flow_entry - one tracked connection
 * @key: the canonical key
 * @hash: the key's hash
 * @hnext: next entry in the bucket chain
 * @last_t_ns: last packet
 * @res: the report, allocated at the first stall; NULL before
 * @packets: packets seen
 * @used: the slot holds a flow
 * @client_first: the client (@flow's) is the key's first endpoint
 * @ring_n: how many of the ring's segments are valid (nt_flowtab_ring())
 * @ring_head: next slot of the ring to write
 * @after_left: segments still to add to the first stall's timeline
 * @reorder: its segments out of order, the part every segment reads
 *           (nt/model/reorder.h)
 * @stall: the stall rule's state
 * @first_t_ns: first packet
 * @think_time: think-time episodes
 * @reorder_rare: the rest of @reorder: segments below the highest, the handshake
 * @flow: client/target roles and relative sequence numbers
 *
 * Ordered by use: every packet reads the lines up to the end of @stall (the
 * first line the lookup, @reorder and @stall the rules); the rest matters
 * only until the flow's first stall, at its end or for the rare segment
 * (see analysis.c). Entries start on a cache line and take whole lines (8:
 * 512 bytes), so those are always six lines, never seven (NT_FLOW_HOT_LINES,
 * checked in flowtab.c). The ring of the flow's last segments, written only
 * until its first stall, lives apart (nt_flowtab_ring()).
 */
struct nt_flow_entry {
	struct nt_flow_key key;
	uint32_t hash;
	uint32_t hnext;
	int64_t last_t_ns;
	struct nt_flow_result *res;
	uint64_t packets;
	bool used;
	bool client_first;
	uint8_t ring_n;
	uint8_t ring_head;
	uint8_t after_left;
	struct nt_reorder reorder;
	struct nt_stall_tracker stall;
	int64_t first_t_ns;
	uint32_t think_time;
	struct nt_reorder_rare reorder_rare;
	struct nt_flow flow;
} __attribute__((aligned(64)));

/**
 * struct nt_flow_ring - a flow's last segments, for its first stall's timeline
 * @seg: the segments, a ring (&nt_flow_entry.ring_head, &nt_flow_entry.ring_n)
 */
struct nt_flow_ring {
	struct nt_tl_seg seg[NT_FLOW_RING];
};

/**
 * struct nt_flowtab_lru - an entry's place in the LRU list
 * @last_t_ns: the entry's @last_t_ns, for the idle check at the tail
 * @prev: more recently seen neighbour
 * @next: less recently seen neighbour
 *
 * Kept apart from the entries, in one array of 16-byte links: a move to the
 * head writes two neighbours and the idle check reads the tail, and in the
 * array of entries those are three more cache lines per packet.
 */
struct nt_flowtab_lru {
	int64_t last_t_ns;
	uint32_t prev;
	uint32_t next;
};

enum nt_evict_reason {
	NT_EVICT_IDLE = 0, /* no packet for the idle timeout */
	NT_EVICT_FULL,	   /* the least recently seen flow, to make room */
	NT_EVICT_FLUSH,	   /* end of input */
};

/* Called for every flow leaving the table; the entry is reused afterwards. */
typedef void (*nt_flowtab_evict_fn)(void *ctx, struct nt_flow_entry *e, enum nt_evict_reason why);

/**
 * struct nt_flowtab - the table
 * @e: entries (in @e_pages, page-aligned)
 * @ring: each entry's ring of segments, parallel to @e (in @ring_pages)
 * @lru: LRU links, parallel to @e (in @lru_pages)
 * @n_alloc: allocated entries (and links)
 * @max_flows: the cap
 * @n_used: flows in the table
 * @free_head: first free slot that was used before (chained through @hnext)
 * @bucket: chain heads, @mask + 1 of them (in @bucket_pages)
 * @mask: bucket count minus one
 * @lru_head: most recently seen
 * @lru_tail: least recently seen
 * @n_touched: slots ever used; those from here to @n_alloc are free and
 *             untouched (on no list: their pages are not faulted in)
 * @idle_ns: idle timeout, 0 for none
 * @evict: eviction callback, may be NULL
 * @ctx: its context
 * @created: flows created
 * @evicted_idle: flows evicted for idleness
 * @evicted_full: flows evicted because the table was full
 * @e_pages: @e's memory (nt/pages.h: huge pages once large, grown without
 *           a copy)
 * @ring_pages: @ring's
 * @lru_pages: @lru's
 * @bucket_pages: @bucket's
 */
struct nt_flowtab {
	struct nt_flow_entry *e;
	struct nt_flow_ring *ring;
	struct nt_flowtab_lru *lru;
	uint32_t n_alloc;
	uint32_t max_flows;
	uint32_t n_used;
	uint32_t free_head;
	uint32_t *bucket;
	uint32_t mask;
	uint32_t lru_head;
	uint32_t lru_tail;
	uint32_t n_touched;
	int64_t idle_ns;
	nt_flowtab_evict_fn evict;
	void *ctx;
	uint64_t created;
	uint64_t evicted_idle;
	uint64_t evicted_full;
	struct nt_pages e_pages;
	struct nt_pages ring_pages;
	struct nt_pages lru_pages;
	struct nt_pages bucket_pages;
};

/**
 * nt_flowtab_init() - set up an empty table
 * @tab: the table
 * @max_flows: cap, at least 1
 * @idle_ns: idle timeout in capture time, 0 for none
 * @evict: called for each flow leaving the table (may be NULL)
 * @ctx: passed to @evict
 *
 * Return: 0 or -ENOMEM.
 */
int nt_flowtab_init(struct nt_flowtab *tab, uint32_t max_flows, int64_t idle_ns,
		    nt_flowtab_evict_fn evict, void *ctx);

/**
 * nt_flowtab_fini() - free the table without calling the callback; safe on a zeroed one
 * @tab: the table
 */
void nt_flowtab_fini(struct nt_flowtab *tab);

/**
 * nt_flow_key_of() - the canonical key of a packet
 * @pkt: the packet
 * @key: filled
 * @src_is_first: set when the packet's source is the key's first endpoint
 */
void nt_flow_key_of(const struct nt_tcp_packet *pkt, struct nt_flow_key *key, bool *src_is_first);

/**
 * nt_flowtab_lookup() - find or create the flow of @key at time @t_ns
 * @tab: the table
 * @key: canonical key
 * @t_ns: the packet's time; flows idle longer than the timeout are evicted first
 * @created: set when the entry is new (zeroed but for key and table links)
 *
 * Return: the entry (valid until the next lookup or flush), or NULL on -ENOMEM.
 */
struct nt_flow_entry *nt_flowtab_lookup(struct nt_flowtab *tab, const struct nt_flow_key *key,
					int64_t t_ns, bool *created);

/**
 * nt_flowtab_hash() - the hash nt_flowtab_lookup_hashed() wants
 * @key: canonical key
 *
 * Return: the hash.
 */
uint32_t nt_flowtab_hash(const struct nt_flow_key *key);

/**
 * nt_flowtab_lookup_hashed() - nt_flowtab_lookup() with the key's hash known
 * @tab: the table
 * @key: canonical key
 * @hash: nt_flowtab_hash(@key)
 * @t_ns: the packet's time
 * @created: as for nt_flowtab_lookup()
 *
 * Return: as nt_flowtab_lookup().
 */
struct nt_flow_entry *nt_flowtab_lookup_hashed(struct nt_flowtab *tab,
					       const struct nt_flow_key *key, uint32_t hash,
					       int64_t t_ns, bool *created);

/**
 * nt_flowtab_prefetch_bucket() - ask the cache for the bucket of @hash
 * @tab: the table
 * @hash: a key's hash
 *
 * A hint, for a lookup a few packets later; changes nothing.
 */
void nt_flowtab_prefetch_bucket(const struct nt_flowtab *tab, uint32_t hash);

/**
 * nt_flowtab_prefetch_entry() - ask the cache for the entry the bucket of @hash leads to
 * @tab: the table
 * @hash: a key's hash, whose bucket was prefetched a while ago
 *
 * A hint, like nt_flowtab_prefetch_bucket(): reads the bucket, changes nothing.
 */
void nt_flowtab_prefetch_entry(const struct nt_flowtab *tab, uint32_t hash);

/**
 * nt_flowtab_peek() - the entry the bucket of @hash leads to, if it has that hash
 * @tab: the table
 * @hash: a key's hash, whose entry was prefetched a while ago
 *
 * A hint for the prefetches that follow an entry (its report): the head of
 * the chain only, the key not compared, nothing changed. The entry may be
 * another flow's, or leave the table before @hash's packet is looked up.
 *
 * Return: the entry, or NULL.
 */
const struct nt_flow_entry *nt_flowtab_peek(const struct nt_flowtab *tab, uint32_t hash);

/**
 * nt_flowtab_ring() - the ring of segments of an entry
 * @tab: the table
 * @e: one of its entries
 *
 * Return: the ring, valid as long as @e.
 */
static inline struct nt_flow_ring *nt_flowtab_ring(struct nt_flowtab *tab,
						   const struct nt_flow_entry *e)
{
	return &tab->ring[e - tab->e];
}

/**
 * nt_flowtab_flush() - evict every flow (NT_EVICT_FLUSH), least recent first
 * @tab: the table, empty afterwards and ready for new flows
 *
 * The buckets are emptied once all flows have left, so the callback must
 * not look flows up in @tab.
 */
void nt_flowtab_flush(struct nt_flowtab *tab);

#endif
