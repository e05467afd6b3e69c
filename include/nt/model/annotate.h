/* SPDX-License-Identifier: MIT */
/*
 * annotate.h - which frames of a capture get a comment, and why: the
 * findings an annotated pcapng carries (analyze --annotate, trace -w
 * x.pcapng).
 *
 * Analyze: the analysis hands every stall episode to a struct
 * nt_annot_list (nt_analysis.annot) while it reads. The list keeps a few
 * numbers per stall, so memory follows the stalls found, not the packets
 * read, and it is capped (NT_ANNOT_STALLS_MAX; the rest are counted). Once
 * the analysis is finished the list is sorted into marks (input, frame,
 * stall, role), and the capture is read again: each frame asks for its
 * marks in order, in constant time.
 *
 * Trace: each round's H, A and B become three fixed-size records, told
 * apart by their capture timestamps, that a live run can spool to a file as
 * rounds are retired (memory stays flat however many rounds run).
 *
 * Pure: no I/O; the words are the renderers' (nt/render/annotate.h).
 */
#ifndef NT_MODEL_ANNOTATE_H
#define NT_MODEL_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/model/record.h"
#include "nt/model/stall.h"

/* Stalls whose frames are commented; later ones are counted in @dropped. ~100 bytes each. */
#define NT_ANNOT_STALLS_MAX (1u << 20)

/* What a commented frame is to its stall (analyze) or round (trace). */
enum nt_annot_role {
	NT_ANNOT_HELD = 0, /* H: the held segment (trace: the header's last segment) */
	NT_ANNOT_ACK,	   /* the late ACK of H (trace: A, the first ACK of the header) */
	NT_ANNOT_RELEASE,  /* R: the data released by that ACK (trace: B, the body) */
	NT_ANNOT_ROLE_COUNT,
};

/**
 * struct nt_annot_stall - one stall episode, as its comments need it
 * @file: index of its input in the analysis
 * @number: its number in the annotated file, from 1, in the order of the
 *          inputs and then of H's frame (set by nt_annot_finish())
 * @frame: H's, the ACK's and R's frame numbers in the input, by role
 * @ack_delay_ns: H -> ACK
 * @release_gap_ns: ACK -> R
 * @stall_ns: H -> R, the time the held data lost
 * @held_len: H's payload bytes
 * @delack: which delayed-ACK timer the ACK delay matches
 * @held_t_ns: when H was seen (the incident report lists stalls by time)
 * @dir: whose data was held (enum nt_dir)
 */
struct nt_annot_stall {
	uint32_t file;
	uint32_t number;
	uint64_t frame[NT_ANNOT_ROLE_COUNT];
	int64_t ack_delay_ns;
	int64_t release_gap_ns;
	int64_t stall_ns;
	uint32_t held_len;
	enum nt_delack_class delack;
	int64_t held_t_ns;
	enum nt_dir dir;
};

/**
 * struct nt_annot_mark - one comment to write: a frame and what it is
 * @frame: the frame's number in its input
 * @file: the input
 * @stall: index in &nt_annot_list.stalls
 * @role: what the frame is to that stall
 */
struct nt_annot_mark {
	uint64_t frame;
	uint32_t file;
	uint32_t stall;
	enum nt_annot_role role;
};

/**
 * struct nt_annot_list - the stalls of an analysis, then their marks
 * @stalls: the stalls, in the order found until nt_annot_finish() sorts them
 * @n_stalls: how many
 * @cap: allocated entries
 * @dropped: stalls not kept (past NT_ANNOT_STALLS_MAX, or memory ran out)
 * @marks: after nt_annot_finish(), three per stall, sorted by (file, frame)
 * @n_marks: how many
 * @cursor: the next mark nt_annot_at() looks at
 */
struct nt_annot_list {
	struct nt_annot_stall *stalls;
	size_t n_stalls;
	size_t cap;
	uint64_t dropped;
	struct nt_annot_mark *marks;
	size_t n_marks;
	size_t cursor;
};

/**
 * nt_annot_add() - keep one stall episode
 * @l: the list
 * @file: index of the input it was found in
 * @ep: the episode
 *
 * Return: 0, or -ENOMEM (the stall is counted in @l->dropped).
 */
int nt_annot_add(struct nt_annot_list *l, uint32_t file, const struct nt_stall_episode *ep);

/**
 * nt_annot_absorb() - append the stalls another list kept for later inputs
 * @l: the list, not yet finished
 * @part: a list kept by another analysis, not finished; emptied (freed)
 * @file_offset: added to @part's input indices: how many inputs @l's come before
 *
 * The result is the list one analysis of all the inputs would have kept,
 * the cap (NT_ANNOT_STALLS_MAX) included.
 *
 * Return: 0, or -ENOMEM (@part's stalls are then counted in @l->dropped).
 */
int nt_annot_absorb(struct nt_annot_list *l, struct nt_annot_list *part, uint32_t file_offset);

/**
 * nt_annot_finish() - number the stalls and sort their marks by frame
 * @l: the list
 *
 * Return: 0 or -ENOMEM.
 */
int nt_annot_finish(struct nt_annot_list *l);

/**
 * nt_annot_at() - the marks of one frame, asked in the order of the inputs
 * and frames
 * @l: a finished list
 * @file: the input
 * @frame: the frame's number in it
 * @first: set to the first of the frame's marks
 *
 * Return: how many marks the frame has (several when one frame is, say, the
 * released segment of one stall and the held segment of the next).
 */
size_t nt_annot_at(struct nt_annot_list *l, uint32_t file, uint64_t frame,
		   const struct nt_annot_mark **first);

/**
 * nt_annot_fini() - free the list; safe on a zeroed one
 * @l: the list
 */
void nt_annot_fini(struct nt_annot_list *l);

/**
 * struct nt_annot_round_mark - one of a live round's H, A, B, as a comment
 * needs it: a fixed-size record a run can spool
 * @t_ns: the segment's capture timestamp (how the frame is found again)
 * @gap_ns: H -> A, -1 unknown
 * @release_ns: A -> B, -1 unknown
 * @round: the round, from 1
 * @role: H, A or B
 * @verdict: the round's verdict
 * @payload_bytes: the segment's payload
 * @late_ns: how late the delay line forwarded H or A (nt_verdict_marks), 0
 *           for B or when none was measured
 * @write_lead_ns: B's time less the time write(body) returned
 *                 (struct nt_frame_note); NT_ANNOT_NO_WRITE for H and A, or
 *                 when the round has no write(body)
 *
 * No padding between or after the fields: records are written whole to a
 * spool, and no byte of one is left unset.
 */
struct nt_annot_round_mark {
	int64_t t_ns;
	int64_t gap_ns;
	int64_t release_ns;
	uint32_t round;
	enum nt_annot_role role;
	enum nt_verdict verdict;
	uint32_t payload_bytes;
	int64_t late_ns;
	int64_t write_lead_ns;
};

/* &nt_annot_round_mark.write_lead_ns when there is no write to note. */
#define NT_ANNOT_NO_WRITE INT64_MIN

/**
 * nt_annot_round_marks() - a round's H, A and B, in capture order
 * @rv: the round (its marks index its events)
 * @out: filled with up to NT_ANNOT_ROLE_COUNT records
 *
 * Return: how many of H, A, B the round has.
 */
size_t nt_annot_round_marks(const struct nt_round_view *rv, struct nt_annot_round_mark *out);

#endif
