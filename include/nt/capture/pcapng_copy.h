/* SPDX-License-Identifier: MIT */
/*
 * pcapng_copy.h - captures re-read into one pcapng file, with a packet
 * comment on the frames a caller names.
 *
 * The frames are copied as read (bytes, lengths, nanosecond timestamps), so
 * the output's packets are byte-identical to the input's. One Interface
 * Description Block is written per distinct (link type, snapshot length),
 * before the first frame that needs it (§4.2 allows an IDB anywhere before
 * the blocks that refer to it). The comments come from a callback asked once
 * per frame: the copier knows nothing of stalls or rounds.
 */
#ifndef NT_CAPTURE_PCAPNG_COPY_H
#define NT_CAPTURE_PCAPNG_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/capture/pcap_file.h"
#include "nt/capture/pcapng.h"

/* Distinct interfaces (link type, snaplen) one output holds. */
#define NT_PCAPNG_COPY_IFS 16
/* Comments one frame may carry. */
#define NT_PCAPNG_COMMENTS_MAX 8

/**
 * typedef nt_pcapng_comment_fn - the comments for one frame
 * @ctx: the caller's
 * @frame: the frame's number in its input, from 1
 * @out_frame: its number in the output, from 1
 * @f: the frame
 * @texts: filled with up to @max strings, valid until the next call
 * @max: NT_PCAPNG_COMMENTS_MAX
 *
 * Return: how many strings were put in @texts.
 */
typedef size_t (*nt_pcapng_comment_fn)(void *ctx, uint64_t frame, uint64_t out_frame,
				       const struct nt_frame *f, const char **texts, size_t max);

/**
 * struct nt_pcapng_copy - one pcapng output being written
 * @out: the destination
 * @linktype: per interface written, its link type
 * @snaplen: per interface written, its snapshot length
 * @n_ifs: interfaces written
 * @if_name: if_name for every IDB, or NULL
 * @frames: frames written
 */
struct nt_pcapng_copy {
	struct nt_pcapng_out out;
	int linktype[NT_PCAPNG_COPY_IFS];
	unsigned snaplen[NT_PCAPNG_COPY_IFS];
	uint32_t n_ifs;
	const char *if_name;
	uint64_t frames;
};

/**
 * nt_pcapng_copy_begin() - start the output: its Section Header Block
 * @c: set up here
 * @fp: the output stream
 * @comments: the section's comments (a summary), may be NULL
 * @n_comments: how many
 * @if_name: if_name for the interfaces, or NULL
 *
 * Return: 0 or -EIO.
 */
int nt_pcapng_copy_begin(struct nt_pcapng_copy *c, FILE *fp, const char *const *comments,
			 size_t n_comments, const char *if_name);

/**
 * nt_pcapng_copy_frames() - copy the frames @in still has, up to @max_frames
 * @c: the output
 * @in: the reader (filtered or not, as the caller set it up)
 * @max_frames: copy at most this many (analyze -c read no more), 0 for all
 * @comments: asked for each frame's comments, or NULL for none
 * @ctx: passed to @comments
 *
 * A damaged input ends its copy quietly where it broke: the caller's own
 * reading of that input already reported it.
 *
 * Return: frames copied, or -EIO (writing failed) or -E2BIG (more than
 * NT_PCAPNG_COPY_IFS interfaces).
 */
int64_t nt_pcapng_copy_frames(struct nt_pcapng_copy *c, struct nt_pcap_file *in,
			      uint64_t max_frames, nt_pcapng_comment_fn comments, void *ctx);

#endif
