// SPDX-License-Identifier: MIT
/*
 * annotate.c - the frames an annotated capture comments (see
 * nt/model/annotate.h).
 *
 * Episodes are found when the held data is released, so two that overlap
 * (both directions held at once) arrive out of frame order, and their marks
 * interleave with other stalls' marks: the marks are sorted once, after the
 * analysis, and the second reading walks them with a cursor.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/annotate.h"
#include "nt/unknown.h"

int nt_annot_add(struct nt_annot_list *l, uint32_t file, const struct nt_stall_episode *ep)
{
	struct nt_annot_stall *s;

	if (l->n_stalls >= NT_ANNOT_STALLS_MAX) {
		l->dropped++;
		return 0;
	}
	if (l->n_stalls == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		s = realloc(l->stalls, cap * sizeof(*s));
		if (!s) {
			l->dropped++;
			return -ENOMEM;
		}
		l->stalls = s;
		l->cap = cap;
	}
	s = &l->stalls[l->n_stalls++];
	*s = (struct nt_annot_stall){
		.file = file,
		.frame = { ep->held_frame, ep->ack_frame, ep->release_frame },
		.ack_delay_ns = ep->ack_delay_ns,
		.release_gap_ns = ep->release_gap_ns,
		.stall_ns = ep->stall_ns,
		.held_t_ns = ep->held_t_ns,
		.dir = ep->dir,
		.held_len = ep->held_len,
		.delack = ep->delack,
	};
	return 0;
}

int nt_annot_absorb(struct nt_annot_list *l, struct nt_annot_list *part, uint32_t file_offset)
{
	size_t room = NT_ANNOT_STALLS_MAX - l->n_stalls, take = part->n_stalls;
	int ret = 0;

	/* The cap keeps the first stalls in the order of the inputs, as one list would. */
	if (take > room)
		take = room;
	if (l->n_stalls + take > l->cap) {
		struct nt_annot_stall *s = realloc(l->stalls, (l->n_stalls + take) * sizeof(*s));

		if (s) {
			l->stalls = s;
			l->cap = l->n_stalls + take;
		} else {
			take = 0;
			ret = -ENOMEM;
		}
	}
	for (size_t i = 0; i < take; i++) {
		l->stalls[l->n_stalls] = part->stalls[i];
		l->stalls[l->n_stalls++].file += file_offset;
	}
	l->dropped += part->dropped + (part->n_stalls - take);
	nt_annot_fini(part);
	return ret;
}

static int cmp_stall(const void *a, const void *b)
{
	const struct nt_annot_stall *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->frame[NT_ANNOT_HELD] != y->frame[NT_ANNOT_HELD])
		return x->frame[NT_ANNOT_HELD] < y->frame[NT_ANNOT_HELD] ? -1 : 1;
	return 0;
}

static int cmp_mark(const void *a, const void *b)
{
	const struct nt_annot_mark *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	if (x->stall != y->stall)
		return x->stall < y->stall ? -1 : 1;
	return (int)x->role - (int)y->role;
}

int nt_annot_finish(struct nt_annot_list *l)
{
	free(l->marks);
	l->marks = NULL;
	l->n_marks = 0;
	l->cursor = 0;
	if (!l->n_stalls)
		return 0;
	qsort(l->stalls, l->n_stalls, sizeof(*l->stalls), cmp_stall);
	l->marks = calloc(l->n_stalls * NT_ANNOT_ROLE_COUNT, sizeof(*l->marks));
	if (!l->marks)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_stalls; i++) {
		l->stalls[i].number = (uint32_t)(i + 1);
		for (int r = 0; r < NT_ANNOT_ROLE_COUNT; r++)
			l->marks[l->n_marks++] = (struct nt_annot_mark){
				.frame = l->stalls[i].frame[r],
				.file = l->stalls[i].file,
				.stall = (uint32_t)i,
				.role = (enum nt_annot_role)r,
			};
	}
	qsort(l->marks, l->n_marks, sizeof(*l->marks), cmp_mark);
	return 0;
}

/* Whether mark @m comes before (input @file, frame @frame). */
static bool mark_before(const struct nt_annot_mark *m, uint32_t file, uint64_t frame)
{
	return m->file < file || (m->file == file && m->frame < frame);
}

size_t nt_annot_at(struct nt_annot_list *l, uint32_t file, uint64_t frame,
		   const struct nt_annot_mark **first)
{
	size_t n = 0;

	while (l->cursor < l->n_marks && mark_before(&l->marks[l->cursor], file, frame))
		l->cursor++;
	*first = l->marks + l->cursor;
	while (l->cursor + n < l->n_marks && l->marks[l->cursor + n].file == file &&
	       l->marks[l->cursor + n].frame == frame)
		n++;
	return n;
}

void nt_annot_fini(struct nt_annot_list *l)
{
	free(l->stalls);
	free(l->marks);
	memset(l, 0, sizeof(*l));
}

_Static_assert(sizeof(struct nt_annot_round_mark) == 5 * sizeof(int64_t) + 4 * sizeof(uint32_t),
	       "a spooled record has no padding");

size_t nt_annot_round_marks(const struct nt_round_view *rv, struct nt_annot_round_mark *out)
{
	const struct nt_round *r = rv->round;
	const long at[NT_ANNOT_ROLE_COUNT] = { r->marks.h, r->marks.a, r->marks.b };
	size_t n = 0;

	for (int role = 0; role < NT_ANNOT_ROLE_COUNT; role++) {
		const struct nt_event *e;
		size_t k;

		if (at[role] < 0 || (size_t)at[role] >= rv->n)
			continue;
		e = &rv->ev[at[role]];
		/* Capture order: B leaves before A when nothing held it (unheld). */
		for (k = n; k > 0 && out[k - 1].t_ns > e->t_ns; k--)
			out[k] = out[k - 1];
		out[k] = (struct nt_annot_round_mark){
			.t_ns = e->t_ns,
			.round = r->index,
			.role = (enum nt_annot_role)role,
			.verdict = r->verdict,
			.gap_ns = r->gap_ns,
			.release_ns = r->release_ns,
			.payload_bytes = e->seg.payload_bytes,
			.late_ns = role == NT_ANNOT_HELD  ? r->marks.h_late_ns
				   : role == NT_ANNOT_ACK ? r->marks.a_late_ns
							  : 0,
			.write_lead_ns = role == NT_ANNOT_RELEASE &&
							 nt_known(r->marks.write_body_ns)
						 ? e->t_ns - r->marks.write_body_ns
						 : NT_ANNOT_NO_WRITE,
		};
		n++;
	}
	return n;
}
