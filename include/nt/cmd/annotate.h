/* SPDX-License-Identifier: MIT */
/*
 * annotate.h - analyze --annotate FILE: the inputs again, as one pcapng
 * with the findings inside: a packet comment on each stall's held segment,
 * late ACK and released segment, and a section comment with the summary.
 *
 * The analysis keeps the stalls (nt/model/annotate.h); once it is over, each
 * input is read a second time and copied, frame by frame, with the comments
 * (nt/capture/pcapng_copy.h). Standard input cannot be read twice: with
 * --annotate it is first copied to an unnamed temporary file (tmpfile(3),
 * in $TMPDIR or /tmp), which both readings use and which vanishes with the
 * process.
 */
#ifndef NT_CMD_ANNOTATE_H
#define NT_CMD_ANNOTATE_H

#include <stdio.h>

#include "nt/capture/pcap_file.h"
#include "nt/err.h"
#include "nt/model/analysis.h"
#include "nt/model/annotate.h"

/**
 * struct nt_annotate - one --annotate
 * @path: the pcapng to write, NULL when not asked for
 * @list: the stalls the analysis found
 * @stdin_spool: standard input, copied, once it was read
 */
struct nt_annotate {
	const char *path;
	struct nt_annot_list list;
	FILE *stdin_spool;
};

/**
 * nt_annotate_init() - prepare; the analysis will keep its stalls in @a
 * @a: set up here
 * @path: --annotate's file, or NULL (then nothing is kept or written)
 * @an: the analysis, initialised
 */
void nt_annotate_init(struct nt_annotate *a, const char *path, struct nt_analysis *an);

/**
 * nt_annotate_open_input() - open an input for the analysis
 * @a: the annotation
 * @path: the input ("-": standard input, spooled first when annotating)
 * @out: set to the reader
 * @err: filled on failure
 *
 * Return: as nt_pcap_file_open().
 */
int nt_annotate_open_input(struct nt_annotate *a, const char *path, struct nt_pcap_file **out,
			   struct nt_err *err);

/**
 * nt_annotate_write() - read the inputs again into @a->path, with comments
 * @a: the annotation (nothing happens without a path)
 * @an: the finished analysis
 * @filter: the filter expression the analysis read with, or NULL
 * @err: filled on failure
 *
 * Return: 0 or a negative errno (the file is then absent).
 */
int nt_annotate_write(struct nt_annotate *a, const struct nt_analysis *an, const char *filter,
		      struct nt_err *err);

/**
 * nt_annotate_fini() - free and close; safe on a zeroed @a
 * @a: the annotation
 */
void nt_annotate_fini(struct nt_annotate *a);

#endif
