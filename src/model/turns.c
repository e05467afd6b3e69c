// SPDX-License-Identifier: MIT
/*
 * turns.c - request -> answer times from the capture (see nt/model/turns.h).
 */
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

void nt_turns_packet(struct nt_turns *t, const struct nt_tcp_packet *pkt, int64_t t_ns)
{
	size_t alen = t->family == AF_INET6 ? 16 : 4;
	bool from_client;
	struct nt_turn_conn *c;
	uint16_t cport, tport;

	if (pkt->family != t->family || !pkt->payload_bytes)
		return;
	if (!t->conn) {
		t->conn = malloc(PORTS * sizeof(*t->conn));
		if (!t->conn) {
			t->oom = true;
			return;
		}
		for (size_t i = 0; i < PORTS; i++)
			t->conn[i] = (struct nt_turn_conn){ 0, -1 };
	}
	from_client = memcmp(pkt->src_addr, t->client_addr, alen) == 0;
	if (!from_client && memcmp(pkt->dst_addr, t->client_addr, alen) != 0)
		return;
	cport = from_client ? pkt->src_port : pkt->dst_port;
	tport = from_client ? pkt->dst_port : pkt->src_port;
	c = &t->conn[cport];
	if (c->target_port != tport)
		*c = (struct nt_turn_conn){ tport, -1 };
	if (from_client) {
		if (c->open_t_ns < 0)
			c->open_t_ns = t_ns;
	} else if (c->open_t_ns >= 0) {
		keep(t, t_ns - c->open_t_ns);
		c->open_t_ns = -1;
	}
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
	t->conn = NULL;
	t->gap_ns = NULL;
}
