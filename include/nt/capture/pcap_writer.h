/* SPDX-License-Identifier: MIT */
/*
 * pcap_writer.h - the raw capture as a pcap file (-w), through the output
 * policy (nt/output.h).
 *
 * The file holds exactly the frames the timeline was built from (the frames
 * that decoded as segments of the traced connection), with the capture's
 * nanosecond timestamps (magic 0xa1b23c4d). A regular file is complete or
 * absent, like a report: written unnamed beside its destination and named
 * by nt_pcap_writer_commit(); nt_pcap_writer_abort() leaves nothing. "-",
 * a device or a FIFO gets each frame as it is dumped (`-w - | tshark -r -`).
 *
 * The life of a writer follows the run: _new() before the lab is built (so an
 * unwritable directory is refused before anything runs), _start() once the
 * capture's link type is known, _dump() per frame, then _commit() when the
 * run's report was written, or _abort() when it failed.
 */
#ifndef NT_CAPTURE_PCAP_WRITER_H
#define NT_CAPTURE_PCAP_WRITER_H

#include <stddef.h>
#include <stdio.h>

#include "nt/capture/capture.h"
#include "nt/err.h"

struct nt_pcap_writer;

/**
 * nt_pcap_writer_new() - open @path's temporary file (or @path itself)
 * @path: the destination; "-" is standard output
 * @out: set to the writer
 * @err: filled on failure, the path quoted
 *
 * Return: 0 or a negative errno (-ENOENT, -EACCES, ... for the directory).
 */
int nt_pcap_writer_new(const char *path, struct nt_pcap_writer **out, struct nt_err *err);

/**
 * nt_pcap_writer_new_spool() - a writer to an unnamed temporary file
 * (tmpfile(3)) instead of a path: the frames of a run that another format
 * (pcapng) is made from once the run is over
 * @out: set to the writer
 * @err: filled on failure
 *
 * _start(), _dump() and _frames() as for a file; end it with
 * nt_pcap_writer_finish_spool() or nt_pcap_writer_abort().
 *
 * Return: 0 or a negative errno.
 */
int nt_pcap_writer_new_spool(struct nt_pcap_writer **out, struct nt_err *err);

/**
 * nt_pcap_writer_finish_spool() - flush a spool writer and free it
 * @w: a writer made by nt_pcap_writer_new_spool() (freed whatever the result)
 * @err: filled on failure
 *
 * Return: the spool, a pcap file at its start, for the caller to read and
 * fclose(); NULL on failure.
 */
FILE *nt_pcap_writer_finish_spool(struct nt_pcap_writer *w, struct nt_err *err);

/**
 * nt_pcap_writer_start() - write the file header
 * @w: the writer
 * @linktype: the frames' LINKTYPE_ value
 * @snaplen: the capture's snapshot length
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_pcap_writer_start(struct nt_pcap_writer *w, int linktype, unsigned snaplen,
			 struct nt_err *err);

/**
 * nt_pcap_writer_dump() - append one frame; a no-op before _start() or on NULL
 * @w: the writer, or NULL
 * @frame: the frame and its timestamp
 *
 * A write error is kept, with its errno, and reported by
 * nt_pcap_writer_commit(); later frames are dropped.
 */
void nt_pcap_writer_dump(struct nt_pcap_writer *w, const struct nt_frame *frame);

/**
 * nt_pcap_writer_frames() - frames dumped so far
 * @w: the writer
 *
 * Return: the count.
 */
unsigned long nt_pcap_writer_frames(const struct nt_pcap_writer *w);

/**
 * nt_pcap_writer_commit() - flush, close, give the file its name, and free
 * @w: the writer (freed whatever the result); a writer never started gets a
 *     valid file with no frames (LINKTYPE_ETHERNET)
 * @err: filled on failure, the path quoted
 *
 * Return: 0 or a negative errno.
 */
int nt_pcap_writer_commit(struct nt_pcap_writer *w, struct nt_err *err);

/**
 * nt_pcap_writer_abort() - remove the temporary file and free; NULL is a no-op
 * @w: the writer
 */
void nt_pcap_writer_abort(struct nt_pcap_writer *w);

/**
 * nt_pcap_writer_variant_path() - the file name one variant writes
 * @path: the -w name, "x.pcap"
 * @variant: the variant's name, "nodelay"; NULL when there is one variant,
 *           which writes @path itself
 * @buf: filled with "x-nodelay.pcap" (the name inserted before the last
 *       extension of the last path component, or appended when it has none)
 * @len: size of @buf
 *
 * Return: 0, or -ENAMETOOLONG when @buf is too small (never a cut name).
 */
int nt_pcap_writer_variant_path(const char *path, const char *variant, char *buf, size_t len);

#endif
