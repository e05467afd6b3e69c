/* SPDX-License-Identifier: MIT */
/*
 * wire_queue.h - the delay line's pure part: a FIFO of frames with release
 * deadlines, the deadline arithmetic, and a histogram of how late frames left.
 *
 * No system calls and no clocks are read here: every time is passed in, so
 * the unit tests drive the queue with made-up times. One queue carries one
 * direction. Deadlines inside a queue never decrease (a frame is never
 * released before the one received ahead of it), which is what keeps the
 * forwarder FIFO even if two receive timestamps come out of order.
 */
#ifndef NT_LAB_WIRE_QUEUE_H
#define NT_LAB_WIRE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct nt_wire_slot - one queued frame's bookkeeping
 * @deadline_ns: when it leaves, CLOCK_MONOTONIC nanoseconds
 * @len: bytes stored in the slot's buffer
 */
struct nt_wire_slot {
	int64_t deadline_ns;
	uint32_t len;
};

/**
 * struct nt_wire_queue - a fixed ring of frame buffers
 * @slots: @capacity bookkeeping entries
 * @data: @capacity buffers of @slot_bytes each
 * @capacity: frames it holds
 * @slot_bytes: size of one buffer
 * @head: index of the oldest frame
 * @count: frames queued
 * @last_deadline_ns: deadline of the newest frame ever committed (the floor
 *                    for the next one)
 */
struct nt_wire_queue {
	struct nt_wire_slot *slots;
	uint8_t *data;
	uint32_t capacity;
	uint32_t slot_bytes;
	uint32_t head;
	uint32_t count;
	int64_t last_deadline_ns;
};

/**
 * nt_wire_queue_init() - allocate an empty queue
 * @q: the queue
 * @capacity: frames it holds, at least 1
 * @slot_bytes: bytes per frame buffer, at least 1
 *
 * The buffers are allocated, not touched: pages are faulted in as slots are
 * first used, so a large queue costs nothing until traffic fills it.
 *
 * Return: 0, -EINVAL for a zero size, or -ENOMEM.
 */
int nt_wire_queue_init(struct nt_wire_queue *q, uint32_t capacity, uint32_t slot_bytes);

/**
 * nt_wire_queue_fini() - free the buffers; safe on a zeroed or finished queue
 * @q: the queue
 */
void nt_wire_queue_fini(struct nt_wire_queue *q);

static inline bool nt_wire_queue_is_empty(const struct nt_wire_queue *q)
{
	return q->count == 0;
}

static inline bool nt_wire_queue_is_full(const struct nt_wire_queue *q)
{
	return q->count == q->capacity;
}

/**
 * nt_wire_queue_tail() - the buffer the next frame is received into
 * @q: the queue
 *
 * Receiving straight into the slot saves a copy; the frame only counts once
 * nt_wire_queue_commit() is called.
 *
 * Return: @q->slot_bytes bytes to write, or NULL when the queue is full.
 */
uint8_t *nt_wire_queue_tail(struct nt_wire_queue *q);

/**
 * nt_wire_queue_commit() - append the frame written into nt_wire_queue_tail()
 * @q: the queue, not full
 * @len: bytes written, at most @q->slot_bytes
 * @deadline_ns: when it should leave
 *
 * Return: the deadline stored: @deadline_ns, raised to the previous frame's
 * deadline if it was earlier (FIFO).
 */
int64_t nt_wire_queue_commit(struct nt_wire_queue *q, uint32_t len, int64_t deadline_ns);

/**
 * nt_wire_queue_head() - the oldest frame
 * @q: the queue
 * @data: set to its bytes
 *
 * Return: its bookkeeping, or NULL when the queue is empty.
 */
const struct nt_wire_slot *nt_wire_queue_head(const struct nt_wire_queue *q, const uint8_t **data);

/**
 * nt_wire_queue_pop() - drop the oldest frame; no-op on an empty queue
 * @q: the queue
 *
 * A queue left empty starts again at its first slot: only as many slots as
 * the queue was ever deep are touched.
 */
void nt_wire_queue_pop(struct nt_wire_queue *q);

/**
 * nt_wire_deadline_ns() - when a frame received at @rx_real_ns should leave
 * @rx_real_ns: the kernel's receive timestamp, CLOCK_REALTIME
 * @now_real_ns: CLOCK_REALTIME read just now
 * @now_mono_ns: CLOCK_MONOTONIC read just now, next to @now_real_ns
 * @delay_ns: the one-way delay to add
 *
 * The frame's age is measured on the clock it was stamped with and carried
 * over to CLOCK_MONOTONIC, so the deadline is immune to a step of the wall
 * clock while the frame waits, and the time the frame spent in the socket
 * before it was read is not added to the delay. A timestamp in the future (a
 * wall clock stepped back since) counts as age 0.
 *
 * Return: the deadline, CLOCK_MONOTONIC nanoseconds.
 */
int64_t nt_wire_deadline_ns(int64_t rx_real_ns, int64_t now_real_ns, int64_t now_mono_ns,
			    int64_t delay_ns);

/* Buckets of struct nt_wire_hist: [0, 1 us), [1, 2 us), [2, 4 us) ... [2^30 us, inf). */
#define NT_WIRE_HIST_BUCKETS 32

/**
 * struct nt_wire_hist - a base-2 histogram of nanosecond values
 * @bucket: counts; bucket 0 holds values under 1 us, bucket k >= 1 holds
 *          [2^(k-1), 2^k) microseconds, the last one everything above
 * @count: values added
 * @sum_ns: their sum
 * @min_ns: the smallest (0 when @count is 0)
 * @max_ns: the largest
 */
struct nt_wire_hist {
	uint64_t bucket[NT_WIRE_HIST_BUCKETS];
	uint64_t count;
	int64_t sum_ns;
	int64_t min_ns;
	int64_t max_ns;
};

/**
 * nt_wire_hist_add() - count one value
 * @h: the histogram
 * @value_ns: the value; a negative one is counted as 0
 */
void nt_wire_hist_add(struct nt_wire_hist *h, int64_t value_ns);

/**
 * nt_wire_hist_quantile_ns() - an upper bound of a quantile
 * @h: the histogram
 * @q: the quantile, 0..1
 *
 * Return: the upper edge of the bucket holding the @q quantile, clamped to
 * the largest value seen (so within a factor of two); 0 when empty.
 */
int64_t nt_wire_hist_quantile_ns(const struct nt_wire_hist *h, double q);

/* Forwarded frames whose lateness one direction remembers: a few rounds' worth. */
#define NT_WIRE_LATE_LOG 256

/**
 * struct nt_wire_late - how late one forwarded TCP segment left, by its header
 * @seq: its sequence number (network order undone)
 * @ack: its acknowledgment number
 * @len: its payload bytes
 * @flags: its TCP flags
 * @late_ns: release time minus deadline (0 when on time)
 */
struct nt_wire_late {
	uint32_t seq;
	uint32_t ack;
	uint32_t len;
	uint8_t flags;
	int64_t late_ns;
};

/**
 * struct nt_wire_late_log - the last NT_WIRE_LATE_LOG segments one direction
 * forwarded, oldest overwritten first
 * @e: the entries
 * @added: segments ever added (the next entry is @added % NT_WIRE_LATE_LOG)
 */
struct nt_wire_late_log {
	struct nt_wire_late e[NT_WIRE_LATE_LOG];
	uint64_t added;
};

/**
 * nt_wire_late_add() - remember one forwarded segment
 * @log: the log
 * @e: the segment and its lateness
 */
void nt_wire_late_add(struct nt_wire_late_log *log, const struct nt_wire_late *e);

/**
 * nt_wire_late_find() - how late a segment was forwarded
 * @log: the log of its direction
 * @key: the segment's seq, ack, len and flags (@key->late_ns is not read)
 *
 * A retransmission has the header of the segment it repeats: the oldest
 * entry that matches is the first transmission, the one a round's marks
 * name.
 *
 * Return: its lateness, or -1 when the log does not hold it (never
 * forwarded, or overwritten).
 */
int64_t nt_wire_late_find(const struct nt_wire_late_log *log, const struct nt_wire_late *key);

#endif
