// SPDX-License-Identifier: MIT
/*
 * runinfo.c - the facts of one run of the user's programs (see
 * nt/model/runinfo.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/runinfo.h"

void nt_runinfo_init(struct nt_runinfo *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->fix = "none";
	ri->fix_about = "";
	ri->end = "";
	ri->capture = "none";
	ri->delay_line = "none";
	ri->listen_wait_ns = -1;
	ri->capture_t0_ns = -1;
	ri->target.run_ns = ri->client.run_ns = -1;
	ri->target.exit_status = ri->client.exit_status = -1;
	ri->turns.p50_ns = ri->turns.p90_ns = ri->turns.p99_ns = ri->turns.max_ns = -1;
}

int nt_runinfo_add_stalled(struct nt_runinfo *ri, const struct nt_run_stalled *s)
{
	if (ri->n_stalled >= NT_RUNINFO_STALLED_MAX) {
		ri->stalled_dropped++;
		return 0;
	}
	if (ri->n_stalled == ri->stalled_cap) {
		size_t cap = ri->stalled_cap ? ri->stalled_cap * 2 : 64;
		struct nt_run_stalled *v = realloc(ri->stalled, cap * sizeof(*v));

		if (!v) {
			ri->stalled_dropped++;
			ri->oom = true;
			return -ENOMEM;
		}
		ri->stalled = v;
		ri->stalled_cap = cap;
	}
	ri->stalled[ri->n_stalled++] = *s;
	return 0;
}

void nt_runinfo_fini(struct nt_runinfo *ri)
{
	free(ri->stalled);
	ri->stalled = NULL;
	ri->n_stalled = ri->stalled_cap = 0;
	free(ri->socks);
	free(ri->client_stderr_tail);
	nt_turns_fini(&ri->turns);
	ri->socks = NULL;
	ri->client_stderr_tail = NULL;
	ri->n_socks = ri->socks_cap = 0;
}

static bool same_conn(const struct nt_sock_samples *c, const struct nt_sock_sample *s)
{
	return c->client_port == s->client_port && c->target_port == s->target_port &&
	       c->family == s->family && memcmp(c->client_addr, s->client_addr, 16) == 0;
}

/* The connection of @s, newest first: a reading is nearly always of a recent connection. */
static struct nt_sock_samples *find(struct nt_runinfo *ri, const struct nt_sock_sample *s)
{
	for (size_t i = ri->n_socks; i-- > 0;)
		if (same_conn(&ri->socks[i], s))
			return &ri->socks[i];
	return NULL;
}

static struct nt_sock_samples *add(struct nt_runinfo *ri, const struct nt_sock_sample *s)
{
	struct nt_sock_samples *c;

	if (ri->n_socks == NT_RUNINFO_SOCKS_MAX) {
		ri->socks_dropped++;
		return NULL;
	}
	if (ri->n_socks == ri->socks_cap) {
		size_t cap = ri->socks_cap ? ri->socks_cap * 2 : 8;

		c = realloc(ri->socks, cap * sizeof(*c));
		if (!c)
			return NULL;
		ri->socks = c;
		ri->socks_cap = cap;
	}
	c = &ri->socks[ri->n_socks++];
	memset(c, 0, sizeof(*c));
	c->family = s->family;
	memcpy(c->client_addr, s->client_addr, sizeof(c->client_addr));
	c->client_port = s->client_port;
	c->target_port = s->target_port;
	c->ato_min_ns = c->ato_max_ns = s->ato_ns;
	return c;
}

int nt_runinfo_sample(struct nt_runinfo *ri, const struct nt_sock_sample *s)
{
	struct nt_sock_samples *c = find(ri, s);

	if (!c) {
		bool full = ri->n_socks == NT_RUNINFO_SOCKS_MAX;

		c = add(ri, s);
		if (!c && !full) {
			ri->oom = true;
			return -ENOMEM;
		}
		if (!c)
			return 0;
	}
	c->samples++;
	c->pingpong += s->pingpong;
	c->quick += s->quick > 0;
	if (s->ato_ns < c->ato_min_ns)
		c->ato_min_ns = s->ato_ns;
	if (s->ato_ns > c->ato_max_ns)
		c->ato_max_ns = s->ato_ns;
	c->last = *s;
	return 0;
}

const struct nt_sock_samples *nt_runinfo_find(const struct nt_runinfo *ri, uint16_t client_port,
					      uint16_t target_port)
{
	for (size_t i = ri->n_socks; i-- > 0;)
		if (ri->socks[i].client_port == client_port &&
		    ri->socks[i].target_port == target_port)
			return &ri->socks[i];
	return NULL;
}

const char *nt_run_counter_name(enum nt_run_counter c)
{
	static const char *const names[NT_RUN_COUNTER_COUNT] = {
		[NT_RUN_DELAYED_ACKS] = "DelayedACKs",
		[NT_RUN_DELAYED_ACK_LOCKED] = "DelayedACKLocked",
		[NT_RUN_AUTOCORKING] = "TCPAutoCorking",
	};

	return (unsigned)c < NT_RUN_COUNTER_COUNT ? names[c] : "?";
}

const char *nt_run_ns_name(enum nt_run_ns ns)
{
	return ns == NT_RUN_NS_TARGET ? "target" : "client";
}

bool nt_run_proc_failed(const struct nt_run_proc *p)
{
	return !p->started || !p->exited || p->exit_status != 0;
}

uint64_t nt_runinfo_lost(const struct nt_runinfo *ri)
{
	return ri->cap_dropped + ri->cap_if_dropped + ri->wire_dropped;
}
