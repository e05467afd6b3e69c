// SPDX-License-Identifier: MIT
/*
 * stall_recs.c - a flow's stalls, packed (see nt/model/stall_recs.h).
 *
 * A record, in order: H's time, the ACK's from H's, R's from the ACK's, H's
 * frame, the ACK's from H's, R's from the ACK's (each a zigzag varint of the
 * difference; H's from the previous record's in the block, from 0 for the
 * block's first), then held_len (a varint), dir and delack (a byte each).
 * Varints as protobuf's: seven bits a byte, the low ones first, the top bit
 * set on every byte but the last.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "nt/model/stall_recs.h"

/* @v - @from modulo 2^64, zigzag-coded: -1 is 1, 1 is 2, -2 is 3 ... */
static uint64_t zigzag_diff(uint64_t v, uint64_t from)
{
	uint64_t d = v - from;

	return (d << 1) ^ (0 - (d >> 63));
}

static uint64_t unzigzag_add(uint64_t from, uint64_t z)
{
	return from + ((z >> 1) ^ (0 - (z & 1)));
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	return p;
}

/* A varint from @p; the writer above made it, so it ends within ten bytes. */
static const uint8_t *get_varint(const uint8_t *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	for (; *p & 0x80; shift += 7)
		x |= (uint64_t)(*p++ & 0x7f) << shift;
	*v = x | (uint64_t)*p++ << shift;
	return p;
}

/* @x packed into @p after a record whose H and H frame were @t and @frame; returns the end. */
static uint8_t *pack(uint8_t *p, const struct nt_stall_rec *x, int64_t t, uint64_t frame)
{
	p = put_varint(p, zigzag_diff((uint64_t)x->held_t_ns, (uint64_t)t));
	p = put_varint(p, zigzag_diff((uint64_t)x->ack_t_ns, (uint64_t)x->held_t_ns));
	p = put_varint(p, zigzag_diff((uint64_t)x->release_t_ns, (uint64_t)x->ack_t_ns));
	p = put_varint(p, zigzag_diff(x->held_frame, frame));
	p = put_varint(p, zigzag_diff(x->ack_frame, x->held_frame));
	p = put_varint(p, zigzag_diff(x->release_frame, x->ack_frame));
	p = put_varint(p, x->held_len);
	*p++ = x->dir;
	*p++ = x->delack;
	return p;
}

static const uint8_t *unpack(const uint8_t *p, struct nt_stall_rec *x)
{
	uint64_t v;

	p = get_varint(p, &v);
	x->held_t_ns = (int64_t)unzigzag_add((uint64_t)x->held_t_ns, v);
	p = get_varint(p, &v);
	x->ack_t_ns = (int64_t)unzigzag_add((uint64_t)x->held_t_ns, v);
	p = get_varint(p, &v);
	x->release_t_ns = (int64_t)unzigzag_add((uint64_t)x->ack_t_ns, v);
	p = get_varint(p, &v);
	x->held_frame = unzigzag_add(x->held_frame, v);
	p = get_varint(p, &v);
	x->ack_frame = unzigzag_add(x->held_frame, v);
	p = get_varint(p, &v);
	x->release_frame = unzigzag_add(x->ack_frame, v);
	p = get_varint(p, &v);
	x->held_len = (uint32_t)v;
	x->dir = *p++;
	x->delack = *p++;
	return p;
}

size_t nt_stall_recs_block_bytes(uint32_t index)
{
	unsigned shift = (index + 1) / 2;
	size_t bytes = shift < NT_BLOCKS_CLASSES ? NT_STALL_RECS_FIRST_BLOCK << shift
						 : NT_BLOCKS_MAX;

	return bytes < NT_BLOCKS_MAX ? bytes : NT_BLOCKS_MAX;
}

/* A block after @l's last (none: the flow's first). */
static int block_add(struct nt_stall_recs *l, struct nt_blocks *mem)
{
	uint32_t index = l->tail ? l->tail->index + 1 : 0;
	size_t bytes = nt_stall_recs_block_bytes(index);
	struct nt_stall_rec_block *b;

	/* A power of two: a size class of its own, filled (nt/model/blocks.h). */
	b = nt_blocks_resize(mem, NULL, 0, bytes);
	if (!b)
		return -ENOMEM;
	b->next = NULL;
	b->used = 0;
	b->cap = (uint32_t)(bytes - sizeof(*b));
	b->index = index;
	if (l->tail) {
		l->tail->used = l->used;
		l->tail->next = b;
	} else {
		l->head = b;
	}
	l->tail = b;
	l->used = 0;
	l->cap = b->cap;
	/* A block starts its differences afresh, so it is read on its own. */
	l->last_held_t_ns = 0;
	l->last_held_frame = 0;
	return 0;
}

int nt_stall_recs_add(struct nt_stall_recs *l, struct nt_blocks *mem, const struct nt_stall_rec *x)
{
	uint8_t rec[NT_STALL_REC_PACKED_MAX];
	size_t n;

	if (l->tail && l->cap - l->used >= NT_STALL_REC_PACKED_MAX) {
		/* Room for any record: packed in place (a copy of a length known at run time is a call). */
		uint8_t *at = l->tail->data + l->used;

		n = (size_t)(pack(at, x, l->last_held_t_ns, l->last_held_frame) - at);
	} else {
		/* Near a block's end: the record goes here if it fits, else first in a new block. */
		n = l->tail ? (size_t)(pack(rec, x, l->last_held_t_ns, l->last_held_frame) - rec)
			    : 0;
		if (!l->tail || l->cap - l->used < n) {
			if (block_add(l, mem) < 0)
				return -ENOMEM;
			n = (size_t)(pack(rec, x, 0, 0) - rec);
		}
		memcpy(l->tail->data + l->used, rec, n);
	}
	l->used += (uint32_t)n;
	l->last_held_t_ns = x->held_t_ns;
	l->last_held_frame = x->held_frame;
	return 0;
}

void nt_stall_recs_free(struct nt_stall_recs *l, struct nt_blocks *mem)
{
	for (struct nt_stall_rec_block *b = l->head, *next; b; b = next) {
		next = b->next;
		nt_blocks_put(mem, b, sizeof(*b) + b->cap);
	}
	memset(l, 0, sizeof(*l));
}

void nt_stall_recs_begin(struct nt_stall_recs_iter *it, const struct nt_stall_recs *l)
{
	memset(it, 0, sizeof(*it));
	it->l = l;
	it->b = l->head;
}

/* Bytes of @b packed: the last block's are counted in the list. */
static uint32_t block_used(const struct nt_stall_recs *l, const struct nt_stall_rec_block *b)
{
	return b == l->tail ? l->used : b->used;
}

const struct nt_stall_rec *nt_stall_recs_next(struct nt_stall_recs_iter *it)
{
	while (it->b && it->off == block_used(it->l, it->b)) {
		it->b = it->b->next;
		it->off = 0;
		it->prev.held_t_ns = 0;
		it->prev.held_frame = 0;
	}
	if (!it->b)
		return NULL;
	it->off = (uint32_t)(unpack(it->b->data + it->off, &it->prev) - it->b->data);
	return &it->prev;
}
