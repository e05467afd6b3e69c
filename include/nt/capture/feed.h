/* SPDX-License-Identifier: MIT */
/*
 * feed.h - a capture file through the analysis: the offline source of
 * `nagle-trace analyze` (reader -> decoder -> flow table -> stall rule).
 */
#ifndef NT_CAPTURE_FEED_H
#define NT_CAPTURE_FEED_H

#include <stdbool.h>

#include "nt/capture/pcap_file.h"
#include "nt/err.h"
#include "nt/model/analysis.h"

/* How reading a file ended. */
enum nt_feed_end {
	NT_FEED_COMPLETE = 0, /* read to its end, or to @max_frames (tcpdump -c) */
	NT_FEED_DAMAGED,      /* a damaged or truncated file: read up to the damage */
	NT_FEED_BAD_FILTER,   /* the filter does not compile for the file's link type */
};

/**
 * nt_feed_file() - run one open capture through the analysis
 * @an: the analysis; nt_analysis_file_begin() already called for this input
 * @f: the reader (not closed here)
 * @filter: a filter expression, NULL for none
 * @max_frames: read at most this many frames (that pass the filter), 0 for all
 * @two_threads: read and decode on a thread of its own while the caller's
 *               thread settles the frames into their flows (feed.c); the
 *               results are the same. One thread when a thread cannot start.
 * @frames_read: set to how many were read (NULL: not wanted)
 * @err: why reading stopped early
 *
 * Ends the file in @an (nt_analysis_file_end()) in every case, recording the
 * error text when reading stopped early.
 *
 * Return: how reading ended.
 */
enum nt_feed_end nt_feed_file(struct nt_analysis *an, struct nt_pcap_file *f, const char *filter,
			      uint64_t max_frames, bool two_threads, uint64_t *frames_read,
			      struct nt_err *err);

#endif
