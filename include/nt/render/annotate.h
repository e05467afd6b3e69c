/* SPDX-License-Identifier: MIT */
/*
 * annotate.h - the words of an annotated capture: the packet comments on a
 * stall's (or a round's) frames and the section comment that sums it up.
 * Plain ASCII (pcapng comments are UTF-8, and file names are sanitized), one
 * line per comment but the summary, which Wireshark shows as lines.
 */
#ifndef NT_RENDER_ANNOTATE_H
#define NT_RENDER_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>

#include "nt/model/analysis.h"
#include "nt/model/annotate.h"
#include "nt/model/record.h"

/* Enough for any one packet comment. */
#define NT_ANNOT_TEXT_LEN 256

/**
 * nt_annot_stall_text() - the comment on one frame of a stall
 * @s: the stall
 * @role: which of its frames
 * @frame_base: the output frame number of its input's frame 0 (the frames
 *              of the inputs before it), so the text names output frames
 * @buf: filled ("stall 3: held by Nagle 43.9 ms, released by the delayed
 *       ACK of frame 38")
 * @len: its size (NT_ANNOT_TEXT_LEN)
 *
 * Return: @buf.
 */
const char *nt_annot_stall_text(const struct nt_annot_stall *s, enum nt_annot_role role,
				uint64_t frame_base, char *buf, size_t len);

/**
 * nt_annot_analysis_summary() - the section comment of analyze --annotate
 * @an: the finished analysis
 * @l: its kept stalls
 * @frame_base: per input, the output frame number of its frame 0
 * @buf: filled with a few lines
 * @len: its size
 *
 * Return: @buf.
 */
const char *nt_annot_analysis_summary(const struct nt_analysis *an, const struct nt_annot_list *l,
				      const uint64_t *frame_base, char *buf, size_t len);

/**
 * nt_annot_round_text() - the comment on a live round's H, A or B
 * @m: the mark
 * @buf: filled ("round 3: B, the body's first segment, 0.021 ms after A:
 *       held by Nagle until the delayed ACK; verdict stalled")
 * @len: its size (NT_ANNOT_TEXT_LEN)
 *
 * Return: @buf.
 */
const char *nt_annot_round_text(const struct nt_annot_round_mark *m, char *buf, size_t len);

/**
 * nt_annot_run_summary() - the section comment of a live run's -w x.pcapng
 * @run: the finished run
 * @buf: filled with a few lines
 * @len: its size
 *
 * Return: @buf.
 */
const char *nt_annot_run_summary(const struct nt_record *run, char *buf, size_t len);

#endif
