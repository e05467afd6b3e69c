// SPDX-License-Identifier: MIT
/*
 * turns.c - request -> answer times from the capture (see nt/model/turns.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/stats.h"
#include "nt/model/turns.h"

#define PORTS 65536

void nt_turns_init(struct nt_turns *t, int family, const void *client_addr)
{
	memset(t, 0, sizeof(*t));
	t->family = family;
	memcpy(t->client_addr, client_addr, family == AF_INET6 ? 16 : 4);
	t->p50_ns = t->p90_ns = t->p99_ns = t->max_ns = -1;
}

static void keep(struct nt_turns *t, int64_t gap_ns)
{
	t->n++;
	if (t->n > NT_TURNS_KEPT)
		return;
	if ((size_t)(t->n - 1) == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		int64_t *v = realloc(t->gap_ns, cap * sizeof(*v));

		if (!v) {
			t->oom = true;
			t->n--;
			return;
		}
		t->gap_ns = v;
		t->cap = cap;
	}
	t->gap_ns[t->n - 1] = gap_ns;
}

/* A new request on @c (client port @cport) at @t_ns: numbered, and listed while there is room. */
static void start_request(struct nt_turns *t, struct nt_turn_conn *c, uint16_t cport, int64_t t_ns)
{
	t->started++;
	c->open_t_ns = t_ns;
	c->open_number = 0;
	if (t->started > NT_TURNS_LISTED || t->n_req + 1 != t->started)
		return; /* past the list, or after a failed allocation: counted only */
	if (t->n_req == t->req_cap) {
		size_t cap = t->req_cap ? t->req_cap * 2 : 256;
		struct nt_turn *v = realloc(t->req, cap * sizeof(*v));

		if (!v) {
			t->oom = true;
			return;
		}
		t->req = v;
		t->req_cap = cap;
	}
	t->req[t->n_req++] = (struct nt_turn){ t_ns, -1, cport, c->target_port };
	c->open_number = (uint32_t)t->n_req;
}

static void answer(struct nt_turns *t, struct nt_turn_conn *c, int64_t t_ns)
{
	keep(t, t_ns - c->open_t_ns);
	c->open_t_ns = -1;
	if (c->open_number)
		t->req[c->open_number - 1].answer_t_ns = t_ns;
}

static bool ensure_conns(struct nt_turns *t)
{
	if (t->conn)
		return true;
	t->conn = malloc(PORTS * sizeof(*t->conn));
	if (!t->conn) {
		t->oom = true;
		return false;
	}
	for (size_t i = 0; i < PORTS; i++)
		t->conn[i] = (struct nt_turn_conn){ .open_t_ns = -1 };
	return true;
}

void nt_turns_packet(struct nt_turns *t, const struct nt_tcp_packet *pkt, int64_t t_ns)
{
	size_t alen = t->family == AF_INET6 ? 16 : 4;
	bool from_client;
	struct nt_turn_conn *c;
	uint16_t cport, tport;

	if (pkt->family != t->family || !pkt->payload_bytes || !ensure_conns(t))
		return;
	from_client = memcmp(pkt->src_addr, t->client_addr, alen) == 0;
	if (!from_client && memcmp(pkt->dst_addr, t->client_addr, alen) != 0)
		return;
	cport = from_client ? pkt->src_port : pkt->dst_port;
	tport = from_client ? pkt->dst_port : pkt->src_port;
	c = &t->conn[cport];
	if (c->target_port != tport)
		*c = (struct nt_turn_conn){ .target_port = tport, .open_t_ns = -1 };
	if (from_client) {
		if (c->open_t_ns < 0)
			start_request(t, c, cport, t_ns);
	} else if (c->open_t_ns >= 0) {
		answer(t, c, t_ns);
	}
}

uint64_t nt_turns_request_of(const struct nt_turns *t, uint16_t client_port, uint16_t target_port,
			     int64_t held_t_ns)
{
	size_t lo = 0, hi = t->n_req;

	/* The first request that started after the held segment: @hi. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->req[mid].start_t_ns <= held_t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = hi, steps = 0; i > 0 && steps < NT_TURNS_SEARCH_BACK; i--, steps++)
		if (t->req[i - 1].client_port == client_port &&
		    t->req[i - 1].target_port == target_port)
			return i;
	return 0;
}

const struct nt_turn *nt_turns_request(const struct nt_turns *t, uint64_t number)
{
	return number && number <= t->n_req ? &t->req[number - 1] : NULL;
}

void nt_turns_finish(struct nt_turns *t)
{
	size_t n = t->n < NT_TURNS_KEPT ? (size_t)t->n : NT_TURNS_KEPT;

	if (!n || !t->gap_ns)
		return;
	nt_stats_sort(t->gap_ns, n);
	t->p50_ns = nt_stats_percentile(t->gap_ns, n, 50);
	t->p90_ns = nt_stats_percentile(t->gap_ns, n, 90);
	t->p99_ns = nt_stats_percentile(t->gap_ns, n, 99);
	t->max_ns = t->gap_ns[n - 1];
}

void nt_turns_fini(struct nt_turns *t)
{
	free(t->conn);
	free(t->gap_ns);
	free(t->req);
	t->conn = NULL;
	t->gap_ns = NULL;
	t->req = NULL;
}
