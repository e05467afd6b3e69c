// SPDX-License-Identifier: MIT
/*
 * wire_queue.c - the delay line's FIFO, deadlines and histogram (see
 * nt/lab/wire_queue.h). Pure: memory only, every time passed in.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "nt/lab/wire_queue.h"

int nt_wire_queue_init(struct nt_wire_queue *q, uint32_t capacity, uint32_t slot_bytes)
{
	*q = (struct nt_wire_queue){ .last_deadline_ns = INT64_MIN };
	if (capacity == 0 || slot_bytes == 0)
		return -EINVAL;
	q->slots = calloc(capacity, sizeof(*q->slots));
	/* calloc() of a large block is a fresh mapping: no page is touched until used. */
	q->data = calloc(capacity, slot_bytes);
	if (!q->slots || !q->data) {
		nt_wire_queue_fini(q);
		return -ENOMEM;
	}
	q->capacity = capacity;
	q->slot_bytes = slot_bytes;
	return 0;
}

void nt_wire_queue_fini(struct nt_wire_queue *q)
{
	free(q->slots);
	free(q->data);
	q->slots = NULL;
	q->data = NULL;
	q->capacity = 0;
	q->count = 0;
	q->head = 0;
}

static uint32_t slot_index(const struct nt_wire_queue *q, uint32_t nth)
{
	uint32_t i = q->head + nth;

	return i >= q->capacity ? i - q->capacity : i;
}

uint8_t *nt_wire_queue_tail(struct nt_wire_queue *q)
{
	if (nt_wire_queue_is_full(q))
		return NULL;
	return q->data + (size_t)slot_index(q, q->count) * q->slot_bytes;
}

int64_t nt_wire_queue_commit(struct nt_wire_queue *q, uint32_t len, int64_t deadline_ns)
{
	struct nt_wire_slot *s = &q->slots[slot_index(q, q->count)];

	if (deadline_ns < q->last_deadline_ns)
		deadline_ns = q->last_deadline_ns;
	s->deadline_ns = deadline_ns;
	s->len = len;
	q->last_deadline_ns = deadline_ns;
	q->count++;
	return deadline_ns;
}

const struct nt_wire_slot *nt_wire_queue_head(const struct nt_wire_queue *q, const uint8_t **data)
{
	if (nt_wire_queue_is_empty(q))
		return NULL;
	*data = q->data + (size_t)q->head * q->slot_bytes;
	return &q->slots[q->head];
}

void nt_wire_queue_pop(struct nt_wire_queue *q)
{
	if (nt_wire_queue_is_empty(q))
		return;
	q->head = slot_index(q, 1);
	q->count--;
	/*
	 * An empty ring starts over at slot 0, so the pages touched are those of
	 * the deepest the queue has been, not the whole ring: a steady few frames
	 * in flight would otherwise walk every slot (12 MiB resident for two
	 * rings of 4,096 slots) within the first 4,096 frames.
	 */
	if (q->count == 0)
		q->head = 0;
}

int64_t nt_wire_deadline_ns(int64_t rx_real_ns, int64_t now_real_ns, int64_t now_mono_ns,
			    int64_t delay_ns)
{
	int64_t age_ns = now_real_ns - rx_real_ns;

	if (age_ns < 0)
		age_ns = 0;
	return now_mono_ns - age_ns + delay_ns;
}

void nt_wire_hist_add(struct nt_wire_hist *h, int64_t value_ns)
{
	uint64_t us;
	unsigned k = 0;

	if (value_ns < 0)
		value_ns = 0;
	us = (uint64_t)value_ns / 1000;
	/* Bucket k >= 1 holds [2^(k-1), 2^k) us: k is the bit length of us. */
	while (us && k < NT_WIRE_HIST_BUCKETS - 1) {
		us >>= 1;
		k++;
	}
	h->bucket[k]++;
	if (h->count == 0 || value_ns < h->min_ns)
		h->min_ns = value_ns;
	if (value_ns > h->max_ns)
		h->max_ns = value_ns;
	h->count++;
	h->sum_ns += value_ns;
}

int64_t nt_wire_hist_quantile_ns(const struct nt_wire_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	/* The smallest value with at least ceil(q * count) values at or below it. */
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (unsigned k = 0; k < NT_WIRE_HIST_BUCKETS; k++) {
		seen += h->bucket[k];
		if (seen >= rank) {
			int64_t edge_ns = (int64_t)(1000ULL << k);

			return edge_ns < h->max_ns ? edge_ns : h->max_ns;
		}
	}
	return h->max_ns;
}

void nt_wire_late_add(struct nt_wire_late_log *log, const struct nt_wire_late *e)
{
	log->e[log->added % NT_WIRE_LATE_LOG] = *e;
	log->added++;
}

int64_t nt_wire_late_find(const struct nt_wire_late_log *log, const struct nt_wire_late *key)
{
	uint64_t n = log->added < NT_WIRE_LATE_LOG ? log->added : NT_WIRE_LATE_LOG;

	for (uint64_t i = log->added - n; i < log->added; i++) {
		const struct nt_wire_late *e = &log->e[i % NT_WIRE_LATE_LOG];

		if (e->seq == key->seq && e->ack == key->ack && e->len == key->len &&
		    e->flags == key->flags)
			return e->late_ns;
	}
	return -1;
}
