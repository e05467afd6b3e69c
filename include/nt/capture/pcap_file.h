/* SPDX-License-Identifier: MIT */
/*
 * pcap_file.h - reading capture files: pcap through libpcap, pcapng
 * through our own block reader (nt/capture/pcapng_read.h).
 *
 * The only offline reader; it keeps <pcap/pcap.h> out of everything else.
 * Timestamps are nanoseconds whatever the file's precision (libpcap scales
 * microsecond files up). A read error names the frame and, when libpcap's
 * stream position is known, the byte offset where the file broke.
 */
#ifndef NT_CAPTURE_PCAP_FILE_H
#define NT_CAPTURE_PCAP_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "nt/capture/capture.h"
#include "nt/err.h"

struct nt_pcap_file;

/**
 * nt_pcap_file_open() - open a capture file
 * @path: the file, or "-" for standard input
 * @out: set to the reader
 * @err: filled on failure ("cannot open \"x\": ...")
 *
 * Return: 0, -ENOENT / -EACCES / ... when the file cannot be opened, or
 * -EINVAL when it is not a capture libpcap reads.
 */
int nt_pcap_file_open(const char *path, struct nt_pcap_file **out, struct nt_err *err);

/**
 * nt_pcap_file_fopen() - read a capture from an open stream
 * @fp: the stream; owned by the reader from now on, even on failure
 * @name: its name, for messages
 * @out: set to the reader
 * @err: filled on failure
 *
 * Return: 0 or -EINVAL when it is not a capture.
 */
int nt_pcap_file_fopen(FILE *fp, const char *name, struct nt_pcap_file **out, struct nt_err *err);

/**
 * nt_pcap_file_linktype() - the capture's link type (LINKTYPE_/DLT_ value)
 * @f: the reader
 *
 * A pcapng file's interfaces may each have their own; each frame carries
 * its own (struct nt_frame's @linktype).
 *
 * Return: the link type; for pcapng, its first interface's.
 */
int nt_pcap_file_linktype(const struct nt_pcap_file *f);

/**
 * nt_pcap_file_snaplen() - the capture's snapshot length
 * @f: the reader
 *
 * Return: the snapshot length from the file's header; for pcapng, that of
 * the interface of the frame last returned (before any, the first one's).
 */
unsigned nt_pcap_file_snaplen(const struct nt_pcap_file *f);

/**
 * nt_pcap_file_check_filter() - whether a filter expression compiles
 * @expr: pcap-filter(7) expression
 * @err: filled with libpcap's reason on failure
 *
 * Compiled for Ethernet, the widest link type: a syntax check done before
 * any file is read.
 *
 * Return: 0 or -EINVAL.
 */
int nt_pcap_file_check_filter(const char *expr, struct nt_err *err);

/**
 * nt_pcap_file_set_filter() - only frames matching @expr are returned
 * @f: the reader
 * @expr: pcap-filter(7) expression
 * @err: filled on failure
 *
 * For pcapng, the filter is compiled for each link type its interfaces
 * have; the frames of a link type it does not compile for (an "ether" test
 * on a raw-IP interface) match it nowhere.
 *
 * Return: 0 or -EINVAL when it does not compile for this link type (the
 * first interface's).
 */
int nt_pcap_file_set_filter(struct nt_pcap_file *f, const char *expr, struct nt_err *err);

/**
 * nt_pcap_file_next() - the next frame
 * @f: the reader
 * @frame: filled; valid until the next call
 * @err: on a damaged file, where and why it broke
 *
 * Return: 1 with a frame, 0 at the end of the file, -EIO when the file is
 * damaged or truncated.
 */
int nt_pcap_file_next(struct nt_pcap_file *f, struct nt_frame *frame, struct nt_err *err);

/* Called for each frame by nt_pcap_file_each(); @frame is valid during the call. */
typedef void (*nt_pcap_frame_fn)(void *ctx, const struct nt_frame *frame);

/**
 * nt_pcap_file_each() - every frame, in order, to @fn
 * @f: the reader
 * @max_frames: stop after this many frames (that pass the filter), 0 for all
 * @fn: called for each frame
 * @ctx: passed to @fn
 * @frames_read: set to how many frames @fn was given
 * @err: on a damaged file, where and why it broke
 *
 * Frames are those nt_pcap_file_next() returns, with the same checks; it
 * is the faster way through a whole file.
 *
 * Return: 0 at the end of the file or after @max_frames, -EIO when the file
 * is damaged or truncated (the frames before the damage were given).
 */
int nt_pcap_file_each(struct nt_pcap_file *f, uint64_t max_frames, nt_pcap_frame_fn fn, void *ctx,
		      uint64_t *frames_read, struct nt_err *err);

/**
 * nt_pcap_file_zero_time_frames() - pcapng frames read so far whose timestamp
 * is 0 (1970-01-01 00:00:00): a writer that had no time; they are read, and
 * the command warns that the file's times cannot be trusted
 * @f: the reader
 *
 * Return: the count.
 */
uint64_t nt_pcap_file_zero_time_frames(const struct nt_pcap_file *f);

/**
 * nt_pcap_file_close() - close the reader; NULL is a no-op
 * @f: the reader
 */
void nt_pcap_file_close(struct nt_pcap_file *f);

#endif
