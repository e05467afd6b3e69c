// SPDX-License-Identifier: MIT
/*
 * flow_floor.c - the least any per-flow analysis of a capture pays, for
 * bench_percore.py: the read loop (pcap_read_loop.c's pcap_next_ex()) plus,
 * for every TCP/IPv4 frame over Ethernet, its connection found in a table
 * and LINES cache lines of that connection's state written. Nothing else:
 * no rule, no report. The table is laid out as analyze's (entries dense in
 * one array, chains from a bucket array), and its misses overlap as
 * analyze's do (src/model/analysis.c, nt_analysis_settle()): in a batch of
 * 64 frames every bucket is prefetched, then every entry the buckets name,
 * then the frames are settled in order.
 *
 *   flow_floor LINES FILE [REPORT]
 *        LINES 1..8: state a packet writes, in 64-byte lines
 *        REPORT: bytes of report each flow also keeps (0, the default: none)
 *
 * With thousands of interleaved flows each packet's lines are cache misses,
 * and what they cost grows with LINES: the ratio of this program to the read
 * loop at a given LINES is the floor for any analysis whose every packet
 * touches that much state (analyze's: six lines, NT_FLOW_HOT_LINES).
 *
 * With REPORT, each new flow also gets a block of that many bytes of its own
 * (from a pool, as analyze's report, struct nt_flow_result), every line of
 * it written once, and kept to the end: the memory a report per flow costs,
 * which on a guest whose freed pages go back to the host (free page
 * reporting) is every new page's fault and zeroing, again on each run
 * (docs/performance.md, "analyze per core").
 *
 * Its memory is taken as analyze takes it, by the same code: the table's
 * arrays from src/pages.c (huge pages once large), the reports from
 * src/model/pool.c:
 *
 *   cc -O2 -I include -o flow_floor tests/bench/flow_floor.c src/pages.c \
 *       src/model/pool.c -lpcap
 */
#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/arena.h"
#include "nt/model/pool.h"
#include "nt/pages.h"

#define BATCH	  64
#define MAX_LINES 8
#define NIL	  UINT32_MAX

/* A connection's first line; lines 2..LINES follow it, written only. */
struct entry {
	uint64_t key[2];
	uint64_t packets;
	uint32_t seq[2];
	int64_t t_ns;
	uint32_t next;
};

struct frame {
	uint64_t key[2];
	uint64_t hash;
	int64_t t_ns;
	uint32_t seq;
	int dir;
};

/*
 * As analyze's flow table (src/model/flowtab.c): entries dense in one array
 * grown in its own pages, LINES lines each, and chains of indices from a
 * bucket array four times the entries: a packet's bucket, then its entry.
 */
struct table {
	struct nt_pages e_pages;
	struct nt_pages bucket_pages;
	struct nt_pages report_pages;
	struct nt_arena arena;
	struct nt_pool pool;
	char *e;
	size_t n;
	size_t cap;
	uint32_t *bucket;
	size_t mask;
	size_t stride;
	size_t report;
	void **reports;
};

static struct entry *at(const struct table *t, uint32_t i)
{
	return (struct entry *)(t->e + (size_t)i * t->stride);
}

static uint64_t hash_of(const uint64_t key[2])
{
	uint64_t h = key[0] * 0x9e3779b97f4a7c15ull ^ key[1] * 0xc2b2ae3d27d4eb4full;

	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

static int grow(struct table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	struct nt_pages bucket = { 0 };

	if (nt_pages_grow(&t->e_pages, cap * t->stride) < 0 ||
	    nt_pages_grow(&bucket, 4 * cap * sizeof(*t->bucket)) < 0 ||
	    (t->report && nt_pages_grow(&t->report_pages, cap * sizeof(*t->reports)) < 0))
		return -1;
	t->reports = t->report_pages.p;
	nt_pages_free(&t->bucket_pages);
	t->bucket_pages = bucket;
	t->e = t->e_pages.p;
	t->bucket = bucket.p;
	t->cap = cap;
	t->mask = 4 * cap - 1;
	memset(t->bucket, 0xff, 4 * cap * sizeof(*t->bucket));
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t *b = &t->bucket[hash_of(at(t, i)->key) & t->mask];

		at(t, i)->next = *b;
		*b = i;
	}
	return 0;
}

static struct entry *lookup(struct table *t, const struct frame *f)
{
	uint32_t *b = &t->bucket[f->hash & t->mask];
	struct entry *e;

	for (uint32_t i = *b; i != NIL; i = at(t, i)->next)
		if (at(t, i)->key[0] == f->key[0] && at(t, i)->key[1] == f->key[1])
			return at(t, i);
	if (t->n == t->cap) {
		if (grow(t) < 0)
			return NULL;
		b = &t->bucket[f->hash & t->mask];
	}
	if (t->report) {
		char *r = nt_pool_get(&t->pool);

		if (!r)
			return NULL;
		for (size_t k = 0; k < t->report; k += 64)
			r[k] = 1;
		t->reports[t->n] = r;
	}
	e = at(t, (uint32_t)t->n);
	memset(e, 0, sizeof(*e));
	e->key[0] = f->key[0];
	e->key[1] = f->key[1];
	e->next = *b;
	*b = (uint32_t)t->n++;
	return e;
}

/* Buckets first, then the entries they name, then the packets in order. */
static int settle(struct table *t, const struct frame *f, int n)
{
	int lines = (int)(t->stride / 64);

	for (int j = 0; j < n; j++)
		__builtin_prefetch(&t->bucket[f[j].hash & t->mask]);
	for (int j = 0; j < n; j++) {
		uint32_t i = t->bucket[f[j].hash & t->mask];

		if (i != NIL)
			for (int l = 0; l < lines; l++)
				__builtin_prefetch((const char *)at(t, i) + 64 * l, 1);
	}
	for (int j = 0; j < n; j++) {
		struct entry *e = lookup(t, &f[j]);

		if (!e)
			return -1;
		e->packets++;
		e->seq[f[j].dir] = f[j].seq;
		e->t_ns = f[j].t_ns;
		for (int l = 1; l < lines; l++)
			((uint8_t *)e)[64 * l] = (uint8_t)f[j].seq;
	}
	return 0;
}

/* A TCP/IPv4 frame over Ethernet as a frame; 0 for any other. */
static int decode(const struct pcap_pkthdr *h, const u_char *d, struct frame *f)
{
	uint32_t a, b;
	uint16_t pa, pb;
	size_t ihl;

	if (h->caplen < 34 || d[12] != 0x08 || d[13] != 0x00 || d[23] != 6)
		return 0;
	ihl = (size_t)(d[14] & 0x0f) * 4;
	if (ihl < 20 || h->caplen < 14 + ihl + 8)
		return 0;
	memcpy(&a, d + 26, 4);
	memcpy(&b, d + 30, 4);
	memcpy(&pa, d + 14 + ihl, 2);
	memcpy(&pb, d + 16 + ihl, 2);
	memcpy(&f->seq, d + 18 + ihl, 4);
	f->dir = a > b || (a == b && pa > pb);
	f->key[0] = f->dir ? (uint64_t)b << 32 | a : (uint64_t)a << 32 | b;
	f->key[1] = f->dir ? (uint64_t)pb << 16 | pa : (uint64_t)pa << 16 | pb;
	f->hash = hash_of(f->key);
	f->t_ns = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;
	return 1;
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct table t = { 0 };
	struct frame batch[BATCH];
	unsigned long long frames = 0;
	struct pcap_pkthdr *h;
	const u_char *d;
	int n = 0, ret;
	pcap_t *p;

	int lines = argc == 3 || argc == 4 ? atoi(argv[1]) : 0;
	long report = argc == 4 ? atol(argv[3]) : 0;

	if (lines < 1 || lines > MAX_LINES || report < 0 || report > 65536) {
		fprintf(stderr, "usage: flow_floor LINES(1-%d) FILE [REPORT(0-65536)]\n",
			MAX_LINES);
		return 2;
	}
	t.report = (size_t)report;
	if (t.report)
		nt_pool_init(&t.pool, &t.arena, t.report);
	p = pcap_open_offline_with_tstamp_precision(argv[2], PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fprintf(stderr, "flow_floor: %s\n", errbuf);
		return 4;
	}
	t.stride = 64 * (size_t)lines;
	if (grow(&t) < 0)
		return 1;
	while ((ret = pcap_next_ex(p, &h, &d)) == 1) {
		frames++;
		n += decode(h, d, &batch[n]);
		if (n == BATCH) {
			if (settle(&t, batch, n) < 0)
				return 1;
			n = 0;
		}
	}
	if (settle(&t, batch, n) < 0)
		return 1;
	pcap_close(p);
	printf("%llu frames, %zu flows, %d lines a packet, %zu bytes of report a flow\n", frames,
	       t.n, lines, t.report);
	if (t.report)
		nt_pool_fini(&t.pool);
	nt_arena_fini(&t.arena);
	nt_pages_free(&t.report_pages);
	nt_pages_free(&t.e_pages);
	nt_pages_free(&t.bucket_pages);
	return 0;
}
