// SPDX-License-Identifier: MIT
/*
 * flowtab.c - the bounded flow table (see nt/model/flowtab.h).
 *
 * Chained hashing over 32-bit indices into one entry array, plus an LRU list
 * through the same entries: a lookup moves its flow to the head, eviction
 * takes the tail. The array grows by doubling (amortised, never per packet)
 * and the bucket array is sized once for the cap, so the hot path is a hash,
 * a short chain walk and two list splices.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/flowtab.h"

#define INITIAL_ENTRIES 64u

static uint32_t hash_key(const struct nt_flow_key *k)
{
	/*
	 * Five 64-bit words, each multiplied in (wyhash-style folding): a byte
	 * loop cost more than the rest of the per-packet path together.
	 */
	uint64_t w[sizeof(*k) / 8], h = 0x9e3779b97f4a7c15ull;

	_Static_assert(sizeof(*k) % 8 == 0, "key is whole words");
	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (uint32_t)(h ^ (h >> 29));
}

int nt_flowtab_init(struct nt_flowtab *tab, uint32_t max_flows, int64_t idle_ns,
		    nt_flowtab_evict_fn evict, void *ctx)
{
	uint32_t nb = 1024;

	memset(tab, 0, sizeof(*tab));
	if (max_flows == 0)
		max_flows = 1;
	while (nb < max_flows && nb < (1u << 30))
		nb <<= 1;
	tab->bucket = malloc((size_t)nb * sizeof(*tab->bucket));
	if (!tab->bucket)
		return -ENOMEM;
	memset(tab->bucket, 0xff, (size_t)nb * sizeof(*tab->bucket));
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
	free(tab->e);
	free(tab->bucket);
	memset(tab, 0, sizeof(*tab));
}

void nt_flow_key_of(const struct nt_tcp_packet *pkt, struct nt_flow_key *key, bool *src_is_first)
{
	size_t alen = pkt->family == AF_INET6 ? 16 : 4;
	int c = memcmp(pkt->src_addr, pkt->dst_addr, alen);
	bool src_first = c < 0 || (c == 0 && pkt->src_port <= pkt->dst_port);

	memset(key, 0, sizeof(*key));
	key->family = (uint32_t)pkt->family;
	memcpy(key->addr[src_first ? 0 : 1], pkt->src_addr, alen);
	memcpy(key->addr[src_first ? 1 : 0], pkt->dst_addr, alen);
	key->port[src_first ? 0 : 1] = pkt->src_port;
	key->port[src_first ? 1 : 0] = pkt->dst_port;
	*src_is_first = src_first;
}

static void lru_unlink(struct nt_flowtab *tab, uint32_t i)
{
	struct nt_flow_entry *e = &tab->e[i];

	if (e->lru_prev != NT_FLOWTAB_NIL)
		tab->e[e->lru_prev].lru_next = e->lru_next;
	else
		tab->lru_head = e->lru_next;
	if (e->lru_next != NT_FLOWTAB_NIL)
		tab->e[e->lru_next].lru_prev = e->lru_prev;
	else
		tab->lru_tail = e->lru_prev;
}

static void lru_push_head(struct nt_flowtab *tab, uint32_t i)
{
	struct nt_flow_entry *e = &tab->e[i];

	e->lru_prev = NT_FLOWTAB_NIL;
	e->lru_next = tab->lru_head;
	if (tab->lru_head != NT_FLOWTAB_NIL)
		tab->e[tab->lru_head].lru_prev = i;
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

static int grow(struct nt_flowtab *tab)
{
	uint32_t n = tab->n_alloc ? tab->n_alloc * 2 : INITIAL_ENTRIES;
	struct nt_flow_entry *e;

	if (n > tab->max_flows || n < tab->n_alloc)
		n = tab->max_flows;
	e = realloc(tab->e, (size_t)n * sizeof(*e));
	if (!e)
		return -ENOMEM;
	tab->e = e;
	/* New slots go on the free list, lowest index first. */
	for (uint32_t i = n; i-- > tab->n_alloc;) {
		e[i].used = false;
		e[i].hnext = tab->free_head;
		tab->free_head = i;
	}
	tab->n_alloc = n;
	return 0;
}

struct nt_flow_entry *nt_flowtab_lookup(struct nt_flowtab *tab, const struct nt_flow_key *key,
					int64_t t_ns, bool *created)
{
	uint32_t h = hash_key(key);
	uint32_t i;

	*created = false;
	while (tab->idle_ns > 0 && tab->lru_tail != NT_FLOWTAB_NIL &&
	       t_ns - tab->e[tab->lru_tail].last_t_ns > tab->idle_ns)
		evict_one(tab, tab->lru_tail, NT_EVICT_IDLE);

	for (i = tab->bucket[h & tab->mask]; i != NT_FLOWTAB_NIL; i = tab->e[i].hnext) {
		struct nt_flow_entry *e = &tab->e[i];

		if (e->hash == h && memcmp(&e->key, key, sizeof(*key)) == 0) {
			if (tab->lru_head != i) {
				lru_unlink(tab, i);
				lru_push_head(tab, i);
			}
			e->last_t_ns = t_ns;
			return e;
		}
	}

	if (tab->n_used >= tab->max_flows)
		evict_one(tab, tab->lru_tail, NT_EVICT_FULL);
	if (tab->free_head == NT_FLOWTAB_NIL && grow(tab) < 0)
		return NULL;
	i = tab->free_head;
	tab->free_head = tab->e[i].hnext;

	struct nt_flow_entry *e = &tab->e[i];

	memset(e, 0, sizeof(*e));
	e->key = *key;
	e->hash = h;
	e->used = true;
	e->first_t_ns = e->last_t_ns = t_ns;
	e->hnext = tab->bucket[h & tab->mask];
	tab->bucket[h & tab->mask] = i;
	lru_push_head(tab, i);
	tab->n_used++;
	tab->created++;
	*created = true;
	return e;
}

void nt_flowtab_flush(struct nt_flowtab *tab)
{
	while (tab->lru_tail != NT_FLOWTAB_NIL)
		evict_one(tab, tab->lru_tail, NT_EVICT_FLUSH);
}
