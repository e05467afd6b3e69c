// SPDX-License-Identifier: MIT
/*
 * flowtab.c - the bounded flow table (see nt/model/flowtab.h).
 *
 * Chained hashing over 32-bit indices into one entry array, plus an LRU list
 * over the same indices in a parallel array: a lookup moves its flow to the
 * head, eviction takes the tail. The arrays grow by doubling (amortised,
 * never per packet) and the buckets with them (rehashed on growth), so the
 * hot path is a hash, a short chain walk and two list splices. The LRU head
 * is the flow seen last, so a run of packets of one flow is recognised by one
 * key compare, before any hashing.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/flowtab.h"
#include "nt/prefetch.h"

#define INITIAL_ENTRIES	 64u
#define BUCKETS_PER_SLOT 4u

#define KEY_WORDS (sizeof(struct nt_flow_key) / 8)

_Static_assert(sizeof(struct nt_flow_key) == 40, "key is five whole words, no padding");
_Static_assert(sizeof(struct nt_tl_seg) == 32, "a ring is four cache lines");
_Static_assert(sizeof(struct nt_reorder) == 40, "the reordering counter's hot part");
_Static_assert(offsetof(struct nt_flow_entry, stall) + sizeof(struct nt_stall_tracker) <=
		       (size_t)NT_FLOW_HOT_LINES * 64,
	       "what every packet reads is six cache lines");
_Static_assert(sizeof(struct nt_flow_entry) == (size_t)8 * 64, "an entry is eight cache lines");

/* Word @i of a key, as its bytes lie in memory. */
static inline uint64_t load_word(const struct nt_flow_key *k, size_t i)
{
	uint64_t w;

	memcpy(&w, (const char *)k + 8 * i, sizeof(w));
	__asm__("" : "+r"(w));
	return w;
}

uint32_t nt_flowtab_hash(const struct nt_flow_key *k)
{
	/*
	 * Each 64-bit word times its own odd constant, the products folded
	 * with xor, then a murmur3-style finaliser so the ports (high half of
	 * word 0) reach the low bits the bucket mask keeps. The five multiplies
	 * are independent, unlike a word-by-word chain; a byte loop (FNV) cost
	 * more than the rest of the per-packet path together. The words are
	 * loaded one by one, as nt_flow_key_of() stored them (a wider load
	 * over two stores waits for them to reach the cache).
	 */
	uint64_t h =
		load_word(k, 0) * 0x9e3779b97f4a7c15ull ^ load_word(k, 1) * 0xc2b2ae3d27d4eb4full ^
		load_word(k, 2) * 0x165667b19e3779f9ull ^ load_word(k, 3) * 0xd6e8feb86659fd93ull ^
		load_word(k, 4) * 0xff51afd7ed558ccdull;

	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/*
 * Word by word (memcmp() is a library call for 40 bytes), family and ports
 * first: two flows between the same hosts differ there.
 */
static inline bool key_equal(const struct nt_flow_key *a, const struct nt_flow_key *b)
{
	if (load_word(a, 0) != load_word(b, 0))
		return false;
	return ((load_word(a, 1) ^ load_word(b, 1)) | (load_word(a, 2) ^ load_word(b, 2)) |
		(load_word(a, 3) ^ load_word(b, 3)) | (load_word(a, 4) ^ load_word(b, 4))) == 0;
}

/*
 * A lookup ends in the entry's first line and the caller goes on to @stall:
 * with thousands of flows each is a cache miss. Asking for all the lines up
 * to the cold part (@first_t_ns on) at once lets the misses overlap.
 */
static inline void prefetch_entry(const struct nt_flow_entry *e)
{
	nt_prefetch_write(e, &e->first_t_ns);
}

/* A new, empty bucket array of @nb chains, in @pg (empty before). */
static uint32_t *buckets_new(struct nt_pages *pg, uint32_t nb)
{
	if (nt_pages_grow(pg, (size_t)nb * sizeof(uint32_t)) < 0)
		return NULL;
	return memset(pg->p, 0xff, (size_t)nb * sizeof(uint32_t));
}

int nt_flowtab_init(struct nt_flowtab *tab, uint32_t max_flows, int64_t idle_ns,
		    nt_flowtab_evict_fn evict, void *ctx)
{
	uint32_t nb = BUCKETS_PER_SLOT * INITIAL_ENTRIES;

	memset(tab, 0, sizeof(*tab));
	if (max_flows == 0)
		max_flows = 1;
	tab->bucket = buckets_new(&tab->bucket_pages, nb);
	if (!tab->bucket)
		return -ENOMEM;
	tab->mask = nb - 1;
	tab->max_flows = max_flows;
	tab->free_head = NT_FLOWTAB_NIL;
	tab->lru_head = tab->lru_tail = NT_FLOWTAB_NIL;
	tab->idle_ns = idle_ns;
	tab->evict = evict;
	tab->ctx = ctx;
	return 0;
}

void nt_flowtab_fini(struct nt_flowtab *tab)
{
	nt_pages_free(&tab->e_pages);
	nt_pages_free(&tab->ring_pages);
	nt_pages_free(&tab->lru_pages);
	nt_pages_free(&tab->bucket_pages);
	memset(tab, 0, sizeof(*tab));
}

/* @n bytes at @p as the start of a word, the rest zero: what the key holds in memory there. */
static inline uint64_t word_of(const void *p, size_t n)
{
	uint64_t w = 0;

	memcpy(&w, p, n);
	return w;
}

/*
 * The key is written a whole word at a time: the hash and the compares read
 * it back by words, and a word read over several narrower stores cannot be
 * forwarded from the store buffer (it waits for them to reach the cache).
 * The empty asm hides where each word came from, so the compiler does not
 * gather the five into vector stores through the stack (the same problem).
 */
static inline void store_word(struct nt_flow_key *key, size_t i, uint64_t w)
{
	__asm__("" : "+r"(w));
	memcpy((char *)key + 8 * i, &w, sizeof(w));
}

void nt_flow_key_of(const struct nt_tcp_packet *pkt, struct nt_flow_key *key, bool *src_is_first)
{
	const uint8_t *first, *second;
	uint32_t head[2];
	uint16_t port[2];
	bool src_first;
	int c;

	/*
	 * memcmp() order is big-endian order: for IPv4 compare the addresses
	 * as numbers, and copy fixed sizes, so no library call is left.
	 */
	if (pkt->family == AF_INET6) {
		c = memcmp(pkt->src_addr, pkt->dst_addr, 16);
	} else {
		uint32_t s = (uint32_t)pkt->src_addr[0] << 24 | (uint32_t)pkt->src_addr[1] << 16 |
			     (uint32_t)pkt->src_addr[2] << 8 | pkt->src_addr[3];
		uint32_t d = (uint32_t)pkt->dst_addr[0] << 24 | (uint32_t)pkt->dst_addr[1] << 16 |
			     (uint32_t)pkt->dst_addr[2] << 8 | pkt->dst_addr[3];

		c = (s > d) - (s < d);
	}
	src_first = c < 0 || (c == 0 && pkt->src_port <= pkt->dst_port);
	first = src_first ? pkt->src_addr : pkt->dst_addr;
	second = src_first ? pkt->dst_addr : pkt->src_addr;
	port[0] = src_first ? pkt->src_port : pkt->dst_port;
	port[1] = src_first ? pkt->dst_port : pkt->src_port;

	head[0] = (uint32_t)pkt->family;
	memcpy(&head[1], port, sizeof(port));
	store_word(key, 0, word_of(head, 8));
	if (pkt->family == AF_INET6) {
		store_word(key, 1, word_of(first, 8));
		store_word(key, 2, word_of(first + 8, 8));
		store_word(key, 3, word_of(second, 8));
		store_word(key, 4, word_of(second + 8, 8));
	} else {
		store_word(key, 1, word_of(first, 4));
		store_word(key, 2, 0);
		store_word(key, 3, word_of(second, 4));
		store_word(key, 4, 0);
	}
	*src_is_first = src_first;
}

static void lru_unlink(struct nt_flowtab *tab, uint32_t i)
{
	struct nt_flowtab_lru *l = &tab->lru[i];

	if (l->prev != NT_FLOWTAB_NIL)
		tab->lru[l->prev].next = l->next;
	else
		tab->lru_head = l->next;
	if (l->next != NT_FLOWTAB_NIL)
		tab->lru[l->next].prev = l->prev;
	else
		tab->lru_tail = l->prev;
}

static void lru_push_head(struct nt_flowtab *tab, uint32_t i)
{
	struct nt_flowtab_lru *l = &tab->lru[i];

	l->prev = NT_FLOWTAB_NIL;
	l->next = tab->lru_head;
	if (tab->lru_head != NT_FLOWTAB_NIL)
		tab->lru[tab->lru_head].prev = i;
	tab->lru_head = i;
	if (tab->lru_tail == NT_FLOWTAB_NIL)
		tab->lru_tail = i;
}

static void evict_one(struct nt_flowtab *tab, uint32_t i, enum nt_evict_reason why)
{
	struct nt_flow_entry *e = &tab->e[i];
	uint32_t *link = &tab->bucket[e->hash & tab->mask];

	while (*link != i)
		link = &tab->e[*link].hnext;
	*link = e->hnext;
	lru_unlink(tab, i);
	if (why == NT_EVICT_IDLE)
		tab->evicted_idle++;
	else if (why == NT_EVICT_FULL)
		tab->evicted_full++;
	if (tab->evict)
		tab->evict(tab->ctx, e, why);
	e->used = false;
	e->hnext = tab->free_head;
	tab->free_head = i;
	tab->n_used--;
}

/*
 * The bucket array grows with the entries: sized for the cap up front (64 Ki
 * buckets by default) it was a cache miss on every packet of a capture with a
 * few thousand flows. Four buckets a slot keep chains short, and each entry
 * a chain walks past is one more cache miss.
 */
static void rehash(struct nt_flowtab *tab, struct nt_pages *pg, uint32_t nb)
{
	uint32_t *bucket = pg->p;

	for (uint32_t i = 0; i < tab->n_touched; i++) {
		struct nt_flow_entry *e = &tab->e[i];

		if (!e->used)
			continue;
		e->hnext = bucket[e->hash & (nb - 1)];
		bucket[e->hash & (nb - 1)] = i;
	}
	nt_pages_free(&tab->bucket_pages);
	tab->bucket_pages = *pg;
	tab->bucket = bucket;
	tab->mask = nb - 1;
}

/*
 * The arrays grow by doubling, each in pages of its own (nt/pages.h): a
 * block is moved by its pages (mremap()), never copied, and the new part is
 * untouched until used. A new array and a copy made the old and the new
 * array's pages fault in at every doubling: 2x the final table's memory, and
 * 16 % of analyze --brief's CPU at 100,000 flows (issue 31). Pages keep the
 * entries on a cache line.
 */
static int grow(struct nt_flowtab *tab)
{
	uint32_t n = tab->n_alloc ? tab->n_alloc * 2 : INITIAL_ENTRIES;
	uint32_t nb = tab->mask + 1;
	struct nt_pages bucket = { 0 };

	if (n > tab->max_flows || n < tab->n_alloc)
		n = tab->max_flows;
	while (nb < BUCKETS_PER_SLOT * n && nb < (1u << 30))
		nb <<= 1;
	if (nb != tab->mask + 1 && !buckets_new(&bucket, nb))
		return -ENOMEM;
	/* Each pointer follows its block at once: a later failure leaves them valid. */
	if (nt_pages_grow(&tab->lru_pages, (size_t)n * sizeof(*tab->lru)) < 0)
		goto free_bucket;
	tab->lru = tab->lru_pages.p;
	if (nt_pages_grow(&tab->ring_pages, (size_t)n * sizeof(*tab->ring)) < 0)
		goto free_bucket;
	tab->ring = tab->ring_pages.p;
	if (nt_pages_grow(&tab->e_pages, (size_t)n * sizeof(*tab->e)) < 0)
		goto free_bucket;
	tab->e = tab->e_pages.p;
	if (bucket.p)
		rehash(tab, &bucket, nb);
	/* The new slots stay untouched until used (@n_touched): on no free list. */
	tab->n_alloc = n;
	return 0;

free_bucket:
	nt_pages_free(&bucket);
	return -ENOMEM;
}

void nt_flowtab_prefetch_bucket(const struct nt_flowtab *tab, uint32_t hash)
{
	__builtin_prefetch(&tab->bucket[hash & tab->mask]);
}

void nt_flowtab_prefetch_entry(const struct nt_flowtab *tab, uint32_t hash)
{
	uint32_t i = tab->bucket[hash & tab->mask];

	/*
	 * Chains are short (four buckets a slot): the head is the flow, or
	 * the first entry the walk reads. Its LRU links are what a move to
	 * the head reads first; the neighbours they name are a third step
	 * nobody waits for.
	 */
	if (i == NT_FLOWTAB_NIL)
		return;
	prefetch_entry(&tab->e[i]);
	__builtin_prefetch(&tab->lru[i], 1);
}

const struct nt_flow_entry *nt_flowtab_peek(const struct nt_flowtab *tab, uint32_t hash)
{
	uint32_t i = tab->bucket[hash & tab->mask];

	if (i == NT_FLOWTAB_NIL || !tab->e[i].used || tab->e[i].hash != hash)
		return NULL;
	return &tab->e[i];
}

struct nt_flow_entry *nt_flowtab_lookup(struct nt_flowtab *tab, const struct nt_flow_key *key,
					int64_t t_ns, bool *created)
{
	return nt_flowtab_lookup_hashed(tab, key, nt_flowtab_hash(key), t_ns, created);
}

struct nt_flow_entry *nt_flowtab_lookup_hashed(struct nt_flowtab *tab,
					       const struct nt_flow_key *key, uint32_t h,
					       int64_t t_ns, bool *created)
{
	uint32_t i;

	*created = false;
	while (tab->idle_ns > 0 && tab->lru_tail != NT_FLOWTAB_NIL &&
	       t_ns - tab->lru[tab->lru_tail].last_t_ns > tab->idle_ns)
		evict_one(tab, tab->lru_tail, NT_EVICT_IDLE);

	/* The flow of the previous packet: already at the head, nothing to splice. */
	i = tab->lru_head;
	if (i != NT_FLOWTAB_NIL && key_equal(&tab->e[i].key, key)) {
		tab->e[i].last_t_ns = tab->lru[i].last_t_ns = t_ns;
		return &tab->e[i];
	}

	for (i = tab->bucket[h & tab->mask]; i != NT_FLOWTAB_NIL; i = tab->e[i].hnext) {
		struct nt_flow_entry *e = &tab->e[i];

		prefetch_entry(e);
		if (e->hash == h && key_equal(&e->key, key)) {
			if (tab->lru_head != i) {
				lru_unlink(tab, i);
				lru_push_head(tab, i);
			}
			e->last_t_ns = tab->lru[i].last_t_ns = t_ns;
			return e;
		}
	}

	if (tab->n_used >= tab->max_flows)
		evict_one(tab, tab->lru_tail, NT_EVICT_FULL);
	if (tab->free_head == NT_FLOWTAB_NIL && tab->n_touched == tab->n_alloc && grow(tab) < 0)
		return NULL;
	if (tab->free_head != NT_FLOWTAB_NIL) {
		i = tab->free_head;
		tab->free_head = tab->e[i].hnext;
	} else {
		i = tab->n_touched++;
	}

	struct nt_flow_entry *e = &tab->e[i];

	memset(e, 0, sizeof(*e));
	e->key = *key;
	e->hash = h;
	e->used = true;
	e->first_t_ns = e->last_t_ns = tab->lru[i].last_t_ns = t_ns;
	e->hnext = tab->bucket[h & tab->mask];
	tab->bucket[h & tab->mask] = i;
	lru_push_head(tab, i);
	tab->n_used++;
	tab->created++;
	*created = true;
	return e;
}

/* Entries asked for ahead of the one leaving, in nt_flowtab_flush(). */
#define FLUSH_AHEAD 4

/*
 * Every flow leaves, so no chain is unlinked flow by flow (a bucket and the
 * entries before it in its chain, cache misses each at 100,000 flows): the
 * buckets are emptied at once when all have left. The flows leave in
 * evict_one()'s order, from the least recent, and their entries go to the
 * free list in that order, as evict_one() would put them. The entries
 * FLUSH_AHEAD flows on are asked for ahead, and the callback's data of the
 * next one (struct nt_flow_entry @res): the LRU order is not the memory order.
 */
void nt_flowtab_flush(struct nt_flowtab *tab)
{
	uint32_t ahead = tab->lru_tail;

	for (int k = 0; k < FLUSH_AHEAD && ahead != NT_FLOWTAB_NIL; k++) {
		__builtin_prefetch(&tab->e[ahead]);
		ahead = tab->lru[ahead].prev;
	}
	for (uint32_t i = tab->lru_tail, next; i != NT_FLOWTAB_NIL; i = next) {
		struct nt_flow_entry *e = &tab->e[i];

		next = tab->lru[i].prev;
		if (ahead != NT_FLOWTAB_NIL) {
			__builtin_prefetch(&tab->e[ahead]);
			ahead = tab->lru[ahead].prev;
		}
		if (next != NT_FLOWTAB_NIL && tab->e[next].res)
			__builtin_prefetch(tab->e[next].res);
		if (tab->evict)
			tab->evict(tab->ctx, e, NT_EVICT_FLUSH);
		e->used = false;
		e->hnext = tab->free_head;
		tab->free_head = i;
	}
	memset(tab->bucket, 0xff, ((size_t)tab->mask + 1) * sizeof(uint32_t));
	tab->lru_head = tab->lru_tail = NT_FLOWTAB_NIL;
	tab->n_used = 0;
}
