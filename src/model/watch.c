// SPDX-License-Identifier: MIT
/*
 * watch.c - the summary of nagle-trace watch (see nt/model/watch.h).
 *
 * Flow rows are found through a small open-addressing index (a stall per
 * few frames on a busy host would otherwise scan a thousand rows each);
 * process rows, at most 256 and only for stalls with an end on this host,
 * by a scan.
 */
#include <string.h>
#include <sys/socket.h>

#include "nt/model/stats.h"
#include "nt/model/watch.h"
#include "nt/unknown.h"

void nt_watch_sum_init(struct nt_watch_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->flows[NT_WATCH_FLOWS_KEPT].other = true;
	s->procs[NT_WATCH_PROCS_KEPT].other = true;
	s->procs[NT_WATCH_PROCS_KEPT].pid = -1;
}

/* splitmix64, as the analysis samples its durations (analysis.c). */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Vitter's algorithm R: delay number n replaces a kept one with probability KEPT / (n + 1). */
static void delays_add(struct nt_watch_delays *d, int64_t v)
{
	if (d->kept < NT_WATCH_DELAYS_KEPT) {
		d->v[d->kept++] = v;
	} else {
		uint64_t j = next_random(&d->rng) % (d->n + 1);

		if (j < NT_WATCH_DELAYS_KEPT)
			d->v[j] = v;
	}
	d->n++;
}

int64_t nt_watch_delays_pct(const struct nt_watch_delays *d, unsigned p)
{
	int64_t tmp[NT_WATCH_DELAYS_KEPT];

	if (!d->kept)
		return NT_UNKNOWN;
	memcpy(tmp, d->v, d->kept * sizeof(tmp[0]));
	return nt_stats_select(tmp, d->kept, nt_stats_rank(d->kept, p) - 1);
}

bool nt_watch_same_flow(const struct nt_watch_stall *a, const struct nt_watch_stall *b)
{
	size_t alen = a->family == AF_INET6 ? 16 : 4;

	return a->family == b->family && a->client_port == b->client_port &&
	       a->target_port == b->target_port && !memcmp(a->client_addr, b->client_addr, alen) &&
	       !memcmp(a->target_addr, b->target_addr, alen);
}

const char *nt_watch_role_fix(enum nt_watch_role role)
{
	if (role == NT_WATCH_SENDER)
		return "set TCP_NODELAY on its socket, or write each message in one call "
		       "(writev, TCP_CORK)";
	return "acknowledge at once: TCP_QUICKACK after each read, or the route's quickack 1";
}

static void row_count(struct nt_watch_row *r, const struct nt_watch_stall *st)
{
	r->stalls++;
	r->lost_ns += st->ep.stall_ns;
	delays_add(&r->delays, st->ep.ack_delay_ns);
}

/* FNV-1a over what names a flow. */
static uint32_t flow_hash(const struct nt_watch_stall *st)
{
	size_t alen = st->family == AF_INET6 ? 16 : 4;
	uint32_t h = 2166136261u;

	h = (h ^ (uint32_t)st->family) * 16777619u;
	h = (h ^ st->client_port) * 16777619u;
	h = (h ^ st->target_port) * 16777619u;
	for (size_t i = 0; i < alen; i++) {
		h = (h ^ st->client_addr[i]) * 16777619u;
		h = (h ^ st->target_addr[i]) * 16777619u;
	}
	return h;
}

/*
 * The bucket holding @st's row, or the empty one where it would go: there is
 * one, since at most NT_WATCH_FLOWS_KEPT of the buckets are ever used.
 */
static uint32_t flow_bucket(const struct nt_watch_sum *s, const struct nt_watch_stall *st)
{
	uint32_t b = flow_hash(st) & (NT_WATCH_FLOW_BUCKETS - 1);

	for (;; b = (b + 1) & (NT_WATCH_FLOW_BUCKETS - 1)) {
		uint16_t v = s->flow_index[b];

		if (!v || nt_watch_same_flow(&s->flows[v - 1].s, st))
			return b;
	}
}

static struct nt_watch_row *flow_row(struct nt_watch_sum *s, const struct nt_watch_stall *st)
{
	uint16_t *b = &s->flow_index[flow_bucket(s, st)];
	struct nt_watch_row *r;

	if (*b)
		return &s->flows[*b - 1];
	if (s->n_flows == NT_WATCH_FLOWS_KEPT)
		return &s->flows[NT_WATCH_FLOWS_KEPT];
	r = &s->flows[s->n_flows++];
	*b = (uint16_t)s->n_flows;
	r->used = true;
	r->pid = -1;
	r->s = *st;
	return r;
}

static struct nt_watch_row *proc_row(struct nt_watch_sum *s, const struct nt_sock_state *k)
{
	struct nt_watch_row *r;

	for (uint32_t i = 0; i < s->n_procs; i++)
		if (s->procs[i].pid == k->pid && !strcmp(s->procs[i].comm, k->comm))
			return &s->procs[i];
	if (s->n_procs == NT_WATCH_PROCS_KEPT)
		return &s->procs[NT_WATCH_PROCS_KEPT];
	r = &s->procs[s->n_procs++];
	r->used = true;
	r->pid = k->pid;
	memcpy(r->comm, k->comm, sizeof(r->comm));
	return r;
}

void nt_watch_sum_recall(const struct nt_watch_sum *s, struct nt_watch_stall *st)
{
	uint16_t v = s->flow_index[flow_bucket(s, st)];

	if (!v)
		return;
	for (int d = 0; d < 2; d++) {
		struct nt_sock_state *k = &st->sock[d];
		const struct nt_sock_state *was = &s->flows[v - 1].s.sock[d];

		if (k->local && k->closed && k->pid < 0 && was->pid >= 0) {
			k->pid = was->pid;
			memcpy(k->comm, was->comm, sizeof(k->comm));
		}
	}
}

void nt_watch_sum_add(struct nt_watch_sum *s, const struct nt_watch_stall *st)
{
	struct nt_watch_row *f = flow_row(s, st);
	bool local = false;

	f->used = true;
	row_count(f, st);
	/* The flow row shows the latest state of its ends. */
	if (!f->other)
		memcpy(f->s.sock, st->sock, sizeof(f->s.sock));
	for (int d = 0; d < 2; d++) {
		const struct nt_sock_state *k = &st->sock[d];
		/* The held data's sender is the end whose direction the episode is. */
		enum nt_watch_role role = (enum nt_dir)d == st->ep.dir ? NT_WATCH_SENDER
								       : NT_WATCH_RECEIVER;
		struct nt_watch_row *p;

		if (!k->local)
			continue;
		local = true;
		if (k->pid < 0)
			continue;
		p = proc_row(s, k);
		p->used = true;
		row_count(p, st);
		p->by_role[role]++;
	}
	s->stalls++;
	s->lost_ns += st->ep.stall_ns;
	if (local)
		s->local_stalls++;
}
