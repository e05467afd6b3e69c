// SPDX-License-Identifier: MIT
/*
 * test_flowtab.c - the bounded flow table: both directions of a 4-tuple find
 * one flow, a full table evicts the least recently seen flow, idle flows are
 * evicted and counted, and a flush hands every flow to the callback, least
 * recent first, and leaves the table empty for new flows.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/model/flowtab.h"

#define SEC 1000000000LL

struct evictions {
	unsigned n[3];
	uint16_t last_port;
};

static void on_evict(void *ctx, struct nt_flow_entry *e, enum nt_evict_reason why)
{
	struct evictions *ev = ctx;

	ev->n[why]++;
	ev->last_port = e->key.port[0] == 80 ? e->key.port[1] : e->key.port[0];
}

static struct nt_tcp_packet pkt4(const char *src, uint16_t sport, const char *dst, uint16_t dport)
{
	struct nt_tcp_packet p;

	memset(&p, 0, sizeof(p));
	p.family = AF_INET;
	inet_pton(AF_INET, src, p.src_addr);
	inet_pton(AF_INET, dst, p.dst_addr);
	p.src_port = sport;
	p.dst_port = dport;
	return p;
}

static struct nt_flow_entry *look(struct nt_flowtab *tab, const struct nt_tcp_packet *p,
				  int64_t t_ns, bool *created, bool *src_first)
{
	struct nt_flow_key key;

	nt_flow_key_of(p, &key, src_first);
	return nt_flowtab_lookup(tab, &key, t_ns, created);
}

static void test_both_directions(void **state)
{
	struct nt_flowtab tab;
	struct nt_tcp_packet a = pkt4("10.0.0.2", 40000, "10.0.0.1", 80);
	struct nt_tcp_packet b = pkt4("10.0.0.1", 80, "10.0.0.2", 40000);
	struct nt_tcp_packet v6;
	bool created, fa, fb;
	struct nt_flow_entry *e;
	uint32_t ia;

	(void)state;
	assert_int_equal(nt_flowtab_init(&tab, 16, 0, NULL, NULL), 0);
	e = look(&tab, &a, 1, &created, &fa);
	assert_non_null(e);
	assert_true(created);
	ia = (uint32_t)(e - tab.e);
	e = look(&tab, &b, 2, &created, &fb);
	assert_false(created);
	assert_int_equal((uint32_t)(e - tab.e), ia);
	assert_true(fa != fb);
	assert_int_equal(tab.n_used, 1);

	/* Same ports and address bytes but IPv6: another flow. */
	memset(&v6, 0, sizeof(v6));
	v6 = a;
	v6.family = AF_INET6;
	e = look(&tab, &v6, 3, &created, &fa);
	assert_non_null(e);
	assert_true(created);
	assert_true((uint32_t)(e - tab.e) != ia);
	assert_int_equal(tab.n_used, 2);
	nt_flowtab_fini(&tab);
}

/*
 * The table grows by doubling (64 entries first): each entry stays on a
 * cache line, and what a flow keeps, in its entry and in its ring apart,
 * moves with it.
 */
static void test_growth_keeps_flows(void **state)
{
	enum { FLOWS = 300 };
	struct nt_flowtab tab;
	bool created, first;

	(void)state;
	assert_int_equal(nt_flowtab_init(&tab, 1024, 0, NULL, NULL), 0);
	for (unsigned i = 0; i < FLOWS; i++) {
		struct nt_tcp_packet p = pkt4("10.0.0.2", (uint16_t)(1000 + i), "10.0.0.1", 80);
		struct nt_flow_entry *e = look(&tab, &p, i, &created, &first);

		assert_non_null(e);
		assert_true(created);
		e->packets = 7u + i;
		nt_flowtab_ring(&tab, e)->seg[NT_FLOW_RING - 1].frame = 100000u + i;
	}
	assert_true(tab.n_alloc >= FLOWS && tab.n_alloc < 2 * FLOWS);
	for (unsigned i = 0; i < FLOWS; i++) {
		struct nt_tcp_packet p = pkt4("10.0.0.1", 80, "10.0.0.2", (uint16_t)(1000 + i));
		struct nt_flow_entry *e = look(&tab, &p, FLOWS + i, &created, &first);

		assert_non_null(e);
		assert_false(created);
		assert_int_equal((uintptr_t)e % 64, 0);
		assert_int_equal(e->packets, 7u + i);
		assert_int_equal(nt_flowtab_ring(&tab, e)->seg[NT_FLOW_RING - 1].frame,
				 100000u + i);
	}
	nt_flowtab_fini(&tab);
}

static void test_full_evicts_lru(void **state)
{
	struct evictions ev = { { 0 }, 0 };
	struct nt_flowtab tab;
	bool created, f;

	(void)state;
	assert_int_equal(nt_flowtab_init(&tab, 2, 0, on_evict, &ev), 0);
	struct nt_tcp_packet p1 = pkt4("10.0.0.2", 1001, "10.0.0.1", 80);
	struct nt_tcp_packet p2 = pkt4("10.0.0.2", 1002, "10.0.0.1", 80);
	struct nt_tcp_packet p3 = pkt4("10.0.0.2", 1003, "10.0.0.1", 80);

	look(&tab, &p1, 1, &created, &f);
	look(&tab, &p2, 2, &created, &f);
	look(&tab, &p1, 3, &created, &f); /* p1 is now the most recent */
	look(&tab, &p3, 4, &created, &f);
	assert_true(created);
	assert_int_equal(ev.n[NT_EVICT_FULL], 1);
	assert_int_equal(ev.last_port, 1002);
	assert_int_equal(tab.evicted_full, 1);
	assert_int_equal(tab.n_used, 2);
	look(&tab, &p1, 5, &created, &f);
	assert_false(created);

	/* Many flows through a small table: still bounded, every flow accounted for. */
	for (uint16_t port = 2000; port < 3000; port++) {
		struct nt_tcp_packet p = pkt4("10.0.0.3", port, "10.0.0.1", 80);

		assert_non_null(look(&tab, &p, 10 + port, &created, &f));
	}
	assert_int_equal(tab.n_used, 2);
	assert_true(tab.n_alloc <= 2);
	assert_int_equal(tab.created, 3 + 1000);
	nt_flowtab_flush(&tab);
	assert_int_equal(ev.n[NT_EVICT_FULL] + ev.n[NT_EVICT_FLUSH], 3 + 1000);
	assert_int_equal(tab.n_used, 0);
	nt_flowtab_fini(&tab);
}

static void test_idle_eviction(void **state)
{
	struct evictions ev = { { 0 }, 0 };
	struct nt_flowtab tab;
	bool created, f;

	(void)state;
	assert_int_equal(nt_flowtab_init(&tab, 100, 60 * SEC, on_evict, &ev), 0);
	struct nt_tcp_packet p1 = pkt4("10.0.0.2", 1001, "10.0.0.1", 80);
	struct nt_tcp_packet p2 = pkt4("10.0.0.2", 1002, "10.0.0.1", 80);

	look(&tab, &p1, 0, &created, &f);
	look(&tab, &p2, 30 * SEC, &created, &f);
	look(&tab, &p2, 59 * SEC, &created, &f);
	assert_int_equal(ev.n[NT_EVICT_IDLE], 0);
	look(&tab, &p2, 61 * SEC, &created, &f);
	assert_int_equal(ev.n[NT_EVICT_IDLE], 1);
	assert_int_equal(ev.last_port, 1001);
	assert_int_equal(tab.evicted_idle, 1);
	/* It comes back as a new flow. */
	look(&tab, &p1, 62 * SEC, &created, &f);
	assert_true(created);
	assert_int_equal(tab.n_used, 2);
	nt_flowtab_fini(&tab);
}

/* The ports of the flows a flush hands over, in its order. */
struct flushed {
	uint16_t port[8];
	unsigned n;
};

static void on_flush(void *ctx, struct nt_flow_entry *e, enum nt_evict_reason why)
{
	struct flushed *fl = ctx;

	assert_int_equal(why, NT_EVICT_FLUSH);
	assert_true(fl->n < 8);
	fl->port[fl->n++] = e->key.port[0] == 80 ? e->key.port[1] : e->key.port[0];
}

/*
 * A flush hands every flow over, the least recently seen first, and leaves
 * the table empty and usable: every flow is new again, each in an entry of
 * its own, found from either direction.
 */
static void test_flush_least_recent_first_leaves_it_empty(void **state)
{
	static const uint16_t seen[] = { 40003, 40001, 40004, 40000, 40002 };
	struct flushed fl = { { 0 }, 0 };
	struct nt_flowtab tab;
	struct nt_flow_entry *e[5];
	bool created, f;

	(void)state;
	assert_int_equal(nt_flowtab_init(&tab, 16, 0, on_flush, &fl), 0);
	for (uint16_t i = 0; i < 5; i++) {
		struct nt_tcp_packet p = pkt4("10.0.0.2", (uint16_t)(40000 + i), "10.0.0.1", 80);

		assert_non_null(look(&tab, &p, 1, &created, &f));
	}
	/* Seen again in another order: the LRU order is not the order made. */
	for (size_t i = 0; i < 5; i++) {
		struct nt_tcp_packet p = pkt4("10.0.0.1", 80, "10.0.0.2", seen[i]);

		assert_non_null(look(&tab, &p, 2 + (int64_t)i, &created, &f));
		assert_false(created);
	}
	nt_flowtab_flush(&tab);
	assert_int_equal(fl.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(fl.port[i], seen[i]);
	assert_int_equal(tab.n_used, 0);
	assert_int_equal(tab.lru_head, NT_FLOWTAB_NIL);
	assert_int_equal(tab.lru_tail, NT_FLOWTAB_NIL);

	for (uint16_t i = 0; i < 5; i++) {
		struct nt_tcp_packet p = pkt4("10.0.0.2", (uint16_t)(40000 + i), "10.0.0.1", 80);

		e[i] = look(&tab, &p, 10, &created, &f);
		assert_non_null(e[i]);
		assert_true(created);
		for (uint16_t j = 0; j < i; j++)
			assert_ptr_not_equal(e[i], e[j]);
	}
	for (uint16_t i = 0; i < 5; i++) {
		struct nt_tcp_packet p = pkt4("10.0.0.1", 80, "10.0.0.2", (uint16_t)(40000 + i));

		assert_ptr_equal(look(&tab, &p, 11, &created, &f), e[i]);
		assert_false(created);
	}
	assert_int_equal(tab.n_used, 5);
	fl.n = 0;
	nt_flowtab_flush(&tab);
	assert_int_equal(fl.n, 5);
	for (uint16_t i = 0; i < 5; i++)
		assert_int_equal(fl.port[i], 40000 + i);
	nt_flowtab_fini(&tab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_directions),
		cmocka_unit_test(test_growth_keeps_flows),
		cmocka_unit_test(test_full_evicts_lru),
		cmocka_unit_test(test_idle_eviction),
		cmocka_unit_test(test_flush_least_recent_first_leaves_it_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
