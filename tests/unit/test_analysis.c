// SPDX-License-Identifier: MIT
/*
 * test_analysis.c - frames through the analysis: decoding apart from
 * settling gives what nt_analysis_frame() gives, whatever the batches'
 * sizes; a flow's median is exact up to NT_STALL_KEPT stalls and a sample's
 * beyond, with memory that stops growing; the maximum is always exact;
 * keeping the worst flow's report alone, or none, the totals are the same
 * and no other report outlives its flow.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/analysis.h"
#include "nt/model/tcp.h"

#define MS 1000000LL

/* A raw IPv4 frame (LINKTYPE_RAW): 20 bytes of IP, 20 of TCP, @len of payload. */
struct frame {
	uint8_t b[40 + 64];
	size_t len;
};

static struct frame tcp4(uint16_t client_port, bool from_client, uint32_t seq, uint32_t ack,
			 uint8_t flags, size_t len)
{
	struct frame f = { .len = 40 + len };
	uint8_t *ip = f.b, *tcp = f.b + 20;
	uint16_t tot = htons((uint16_t)f.len), cport = htons(client_port), tport = htons(5001);
	uint32_t nseq = htonl(seq), nack = htonl(ack);

	memset(f.b, 0, sizeof(f.b));
	ip[0] = 0x45;
	memcpy(ip + 2, &tot, 2);
	ip[8] = 64;
	ip[9] = 6;
	inet_pton(AF_INET, from_client ? "192.0.2.1" : "192.0.2.2", ip + 12);
	inet_pton(AF_INET, from_client ? "192.0.2.2" : "192.0.2.1", ip + 16);
	memcpy(tcp, from_client ? &cport : &tport, 2);
	memcpy(tcp + 2, from_client ? &tport : &cport, 2);
	memcpy(tcp + 4, &nseq, 4);
	memcpy(tcp + 8, &nack, 4);
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	return f;
}

/**
 * struct stream - one flow's frames, as a client stalled by Nagle sends them
 * @f: the frames
 * @t_ns: their times
 * @n: how many
 */
struct stream {
	struct frame *f;
	int64_t *t_ns;
	size_t n;
};

#define T0 (1700000000LL * 1000000000LL)

/*
 * @stalls rounds of: the client's 10-byte header H, the target's pure ACK of
 * it @delay_ns(i) later, the 10-byte body right behind the ACK, and the
 * target's 10-byte answer, from client port @port from @t on. Stall i
 * lasts delay_ns(i) + 0.1 ms.
 */
static void make_flow(struct stream *s, unsigned stalls, int64_t (*delay_ns)(unsigned),
		      uint16_t port, int64_t t)
{
	uint32_t cseq = 1000, tseq = 5000;

	s->n = 0;
	s->f = calloc(4 * (size_t)stalls, sizeof(*s->f));
	s->t_ns = calloc(4 * (size_t)stalls, sizeof(*s->t_ns));
	assert_non_null(s->f);
	assert_non_null(s->t_ns);
	for (unsigned i = 0; i < stalls; i++) {
		int64_t d = delay_ns(i);

		s->t_ns[s->n] = t;
		s->f[s->n++] = tcp4(port, true, cseq, tseq, NT_TCP_ACK | NT_TCP_PSH, 10);
		s->t_ns[s->n] = t + d;
		s->f[s->n++] = tcp4(port, false, tseq, cseq + 10, NT_TCP_ACK, 0);
		s->t_ns[s->n] = t + d + MS / 10;
		s->f[s->n++] = tcp4(port, true, cseq + 10, tseq, NT_TCP_ACK | NT_TCP_PSH, 10);
		s->t_ns[s->n] = t + d + MS / 5;
		s->f[s->n++] = tcp4(port, false, tseq, cseq + 20, NT_TCP_ACK | NT_TCP_PSH, 10);
		cseq += 20;
		tseq += 10;
		t += d + 10 * MS;
	}
}

static void make_stream(struct stream *s, unsigned stalls, int64_t (*delay_ns)(unsigned))
{
	make_flow(s, stalls, delay_ns, 40000, T0);
}

static void free_stream(struct stream *s)
{
	free(s->f);
	free(s->t_ns);
}

static const struct nt_analysis_params params = {
	.stall = { .threshold_ns = 10 * MS, .release_ns = MS },
	.max_flows = 16,
	.idle_ns = 3600LL * 1000000000LL,
};

static void begin(struct nt_analysis *an)
{
	assert_int_equal(nt_analysis_init(an, &params), 0);
	assert_int_equal(nt_analysis_file_begin(an, "test"), 0);
	nt_analysis_set_linktype(an, NT_LINKTYPE_RAW, "RAW");
}

/* 40 ms plus i % 97 us: a spread of values, in no sorted order. */
static int64_t spread(unsigned i)
{
	return 40 * MS + (int64_t)((i * 37u) % 97u) * 1000;
}

static void test_batches_of_any_size(void **state)
{
	struct nt_analysis one, parts;
	struct nt_analysis_pending p[NT_ANALYSIS_BATCH];
	struct stream s;
	size_t i = 0, sizes[] = { 1, 255, 256, 7, 100 };

	(void)state;
	make_stream(&s, 700, spread);
	begin(&one);
	for (size_t k = 0; k < s.n; k++)
		nt_analysis_frame(&one, s.t_ns[k], s.f[k].b, s.f[k].len);
	nt_analysis_file_end(&one, NULL);
	nt_analysis_finish(&one);

	begin(&parts);
	for (unsigned b = 0; i < s.n; b++) {
		size_t n = sizes[b % 5];

		if (n > s.n - i)
			n = s.n - i;
		for (size_t k = 0; k < n; k++)
			nt_analysis_decode(NT_LINKTYPE_RAW, s.t_ns[i + k], NULL, s.f[i + k].b,
					   s.f[i + k].len, &p[k]);
		assert_int_equal(nt_analysis_settle(&parts, p, n), 0);
		i += n;
	}
	nt_analysis_file_end(&parts, NULL);
	nt_analysis_finish(&parts);

	assert_int_equal(one.sum.packets, 2800);
	assert_int_equal(one.sum.stalls, 700);
	assert_memory_equal(&one.sum, &parts.sum, sizeof(one.sum));
	assert_int_equal(one.n_flows, 1);
	assert_int_equal(parts.n_flows, 1);
	assert_int_equal(one.flows[0]->p50_ns, parts.flows[0]->p50_ns);
	assert_int_equal(one.flows[0]->first.release_frame, 3);
	assert_int_equal(parts.flows[0]->last.release_frame, 2799);
	nt_analysis_fini(&one);
	nt_analysis_fini(&parts);
	free_stream(&s);
}

static const struct nt_flow_result *analyse(struct nt_analysis *an, unsigned stalls,
					    int64_t (*delay_ns)(unsigned))
{
	struct stream s;

	make_stream(&s, stalls, delay_ns);
	begin(an);
	for (size_t k = 0; k < s.n; k++)
		nt_analysis_frame(an, s.t_ns[k], s.f[k].b, s.f[k].len);
	nt_analysis_file_end(an, NULL);
	nt_analysis_finish(an);
	free_stream(&s);
	assert_int_equal(an->n_flows, 1);
	assert_int_equal(an->flows[0]->stalls, stalls);
	return an->flows[0];
}

/* Up to NT_STALL_KEPT stalls every duration is kept: the nearest-rank median, exactly. */
static void test_median_exact(void **state)
{
	struct nt_analysis an;
	const struct nt_flow_result *r;
	int64_t v[NT_STALL_KEPT];

	(void)state;
	r = analyse(&an, NT_STALL_KEPT, spread);
	for (unsigned i = 0; i < NT_STALL_KEPT; i++)
		v[i] = spread(i) + MS / 10;
	/* Rank 512 of 1024: count the values below and at it. */
	unsigned below = 0, at_or_below = 0;

	for (unsigned i = 0; i < NT_STALL_KEPT; i++) {
		below += v[i] < r->p50_ns;
		at_or_below += v[i] <= r->p50_ns;
	}
	assert_true(below < NT_STALL_KEPT / 2 && at_or_below >= NT_STALL_KEPT / 2);
	assert_false(r->p50_sampled);
	assert_int_equal(r->max_ns, 40 * MS + 96000 + MS / 10);
	nt_analysis_fini(&an);
}

/* Odd stalls 200 ms, even ones 40 ms plus i us: each even one says when it came. */
static int64_t two_timers(unsigned i)
{
	return i % 2 ? 200 * MS : 40 * MS + (int64_t)i * 1000;
}

static int64_t slow_tail(unsigned i)
{
	return i == 2999 ? 210 * MS : 40 * MS + (int64_t)((i * 37u) % 97u) * 1000;
}

/* Past NT_STALL_KEPT: a sample, marked; memory stops at NT_STALL_KEPT values; max exact. */
static void test_median_sampled(void **state)
{
	struct nt_analysis an;
	const struct nt_flow_result *r;

	(void)state;
	r = analyse(&an, 3000, slow_tail);
	assert_true(r->p50_sampled);
	assert_true(r->stall_ns_cap <= NT_STALL_KEPT);
	assert_int_equal(r->max_ns, 210 * MS + MS / 10);
	/* Every value but one is 40.1-40.2 ms: so is any sample's median. */
	assert_true(r->p50_ns >= 40 * MS + MS / 10 && r->p50_ns <= 40 * MS + 97000 + MS / 10);
	nt_analysis_fini(&an);

	/*
	 * 20,000 stalls, half near 40-60 ms and half 200 ms. A uniform sample
	 * holds both groups in near-equal shares, and stalls from the whole
	 * capture; a sample of the first NT_STALL_KEPT (or the last) would hold
	 * only one end's.
	 */
	r = analyse(&an, 20000, two_timers);
	assert_true(r->p50_sampled);
	unsigned slow = 0, early = 0, late = 0;

	for (unsigned i = 0; i < NT_STALL_KEPT; i++) {
		int64_t v = r->stall_ns[i] - MS / 10;

		slow += v == 200 * MS;
		early += v < 50 * MS;		      /* stall 0 .. 9,999 */
		late += v >= 50 * MS && v < 200 * MS; /* stall 10,000 .. 19,999 */
	}
	assert_true(slow > NT_STALL_KEPT * 2 / 5 && slow < NT_STALL_KEPT * 3 / 5);
	assert_true(early > NT_STALL_KEPT / 6 && late > NT_STALL_KEPT / 6);
	/* The median: the fast group's top or the slow group, as the sample fell. */
	assert_true(r->p50_ns >= 55 * MS);
	nt_analysis_fini(&an);
}

/* The flow test_keep() makes now: flows 3, 10, 17, ... stall 5 ms longer than the rest. */
static unsigned serial_flow;

static int64_t by_flow(unsigned i)
{
	return spread(i) + (serial_flow % 7 == 3 ? 5 * MS : 0);
}

/*
 * The worst-flow rule itself: more time lost wins; among equals the first in
 * the reports' order (file, then the first stall's time, then its frame);
 * a report is not worse than itself, so the first of equals stays.
 */
static void test_worse(void **state)
{
	struct nt_flow_result a = { 0 }, b = { 0 };

	(void)state;
	a.wall.total_ns = 2 * MS;
	b.wall.total_ns = 1 * MS;
	a.file = 1; /* a later file loses only to equal time */
	assert_true(nt_analysis_worse(&a, &b));
	assert_false(nt_analysis_worse(&b, &a));

	b.wall.total_ns = a.wall.total_ns;
	assert_true(nt_analysis_worse(&b, &a));
	b.file = 1;
	a.first.held_t_ns = T0 + MS;
	b.first.held_t_ns = T0;
	assert_true(nt_analysis_worse(&b, &a));
	a.first.held_t_ns = b.first.held_t_ns;
	a.first.held_frame = 7;
	b.first.held_frame = 8;
	assert_true(nt_analysis_worse(&a, &b));
	assert_false(nt_analysis_worse(&b, &a));
	assert_false(nt_analysis_worse(&a, &a));
}

/*
 * 200 flows one after another, each idle long enough to leave the table
 * before the next begins, then the last one still in it at the end: frames
 * through three analyses, one keeping every report (the reports that list
 * flows), one the worst flow's alone (the SVG ladder), one none (analyze
 * --brief). The totals are the same in all three. The second keeps one
 * report: the one nt_pick_worst_flow() picks from all (nt_analysis_worse()),
 * the first of the flows that stalled longest (flow 3, not the later 10,
 * 17, ... that lost exactly as long). The third keeps none, and holds one
 * only while its flow is in the table, where the first holds one per flow
 * that stalled.
 */
#define SERIAL_FLOWS 200

static void test_keep(void **state)
{
	struct nt_analysis_params p = params;
	struct nt_analysis an[3];
	size_t most = 0, worst = 0;

	(void)state;
	p.idle_ns = 1000 * MS;
	for (int k = 0; k < 3; k++) {
		p.keep = (uint8_t)(k == 0 ? NT_KEEP_ALL : k == 1 ? NT_KEEP_WORST : NT_KEEP_NONE);
		assert_int_equal(nt_analysis_init(&an[k], &p), 0);
		assert_int_equal(nt_analysis_file_begin(&an[k], "test"), 0);
		nt_analysis_set_linktype(&an[k], NT_LINKTYPE_RAW, "RAW");
	}
	for (serial_flow = 0; serial_flow < SERIAL_FLOWS; serial_flow++) {
		struct stream s;

		make_flow(&s, 3, by_flow, (uint16_t)(40000 + serial_flow),
			  T0 + (int64_t)serial_flow * 2000 * MS);
		for (int k = 0; k < 3; k++) {
			for (size_t f = 0; f < s.n; f++)
				nt_analysis_frame(&an[k], s.t_ns[f], s.f[f].b, s.f[f].len);
			/* A batch's frames settle together: settle this flow's now. */
			assert_int_equal(nt_analysis_settle(&an[k], an[k].batch->p, an[k].batch->n),
					 0);
			an[k].batch->n = 0;
		}
		free_stream(&s);
		assert_int_equal(an[0].reports.live, serial_flow + 1);
		if (an[1].reports.live > worst)
			worst = an[1].reports.live;
		if (an[2].reports.live > most)
			most = an[2].reports.live;
	}
	assert_int_equal(an[2].tab.n_used, 1);
	for (int k = 0; k < 3; k++) {
		nt_analysis_file_end(&an[k], NULL);
		nt_analysis_finish(&an[k]);
	}

	assert_int_equal(an[0].sum.flows, SERIAL_FLOWS);
	assert_int_equal(an[0].sum.flows_with_stalls, SERIAL_FLOWS);
	assert_int_equal(an[0].sum.stalls, 3 * SERIAL_FLOWS);
	assert_int_equal(an[0].sum.evicted_idle, SERIAL_FLOWS - 1);
	assert_true(an[0].sum.stalled_wall_ns > 0);
	for (int k = 1; k < 3; k++) {
		assert_memory_equal(&an[0].sum, &an[k].sum, sizeof(an[0].sum));
		/* The file's counts: all but its path, a string of each analysis's own. */
		assert_memory_equal(&an[0].files[0].linktype, &an[k].files[0].linktype,
				    sizeof(*an[0].files) -
					    offsetof(struct nt_analysis_file, linktype));
	}
	assert_int_equal(an[0].n_flows, SERIAL_FLOWS);
	assert_int_equal(an[0].flows[3]->client_port, 40003);
	assert_true(an[0].flows[3]->wall.total_ns > an[0].flows[4]->wall.total_ns);
	assert_int_equal(an[0].flows[10]->wall.total_ns, an[0].flows[3]->wall.total_ns);

	assert_int_equal(an[1].n_flows, 1);
	assert_int_equal(an[1].flows[0]->client_port, 40003);
	assert_int_equal(an[1].flows[0]->stalls, 3);
	assert_int_equal(an[1].flows[0]->n_timeline, an[0].flows[3]->n_timeline);
	assert_memory_equal(an[1].flows[0]->timeline, an[0].flows[3]->timeline,
			    sizeof(an[0].flows[3]->timeline));
	assert_int_equal(worst, 2); /* the worst so far, and the flow in the table */
	assert_int_equal(an[1].reports.live, 1);

	assert_int_equal(an[2].n_flows, 0);
	assert_int_equal(most, 1);
	assert_int_equal(an[2].reports.live, 0);
	for (int k = 0; k < 3; k++)
		nt_analysis_fini(&an[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_of_any_size),
		cmocka_unit_test(test_median_exact),
		cmocka_unit_test(test_median_sampled),
		cmocka_unit_test(test_worse),
		cmocka_unit_test(test_keep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
