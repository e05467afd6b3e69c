/* SPDX-License-Identifier: MIT */
/*
 * analyze_read.h - analyze's inputs into one analysis: one after the other,
 * or several at once, one worker thread per core.
 *
 * Either way the analysis comes out the same, and so does everything printed
 * about the inputs (in their order, once reading is over for the parallel
 * path): each worker reads whole files into an analysis of its own, and the
 * main thread absorbs them in the order the files were named
 * (nt_analysis_absorb()).
 */
#ifndef NT_CMD_ANALYZE_READ_H
#define NT_CMD_ANALYZE_READ_H

#include <stdbool.h>

#include "nt/cmd/analyze_opts.h"
#include "nt/cmd/annotate.h"
#include "nt/model/analysis.h"

/**
 * struct nt_analyze_trouble - what went wrong while reading, in the order the
 * exit status weighs it
 * @file: a file could not be read (to its end)
 * @filter: the filter did not compile for a file's link type
 */
struct nt_analyze_trouble {
	bool file;
	bool filter;
};

/**
 * nt_analyze_threads() - the threads --jobs allows
 * @o: the options
 *
 * Return: --jobs, or the cores this process may run on (sched_getaffinity()).
 */
unsigned nt_analyze_threads(const struct nt_analyze_opts *o);

/**
 * nt_analyze_workers() - how many files to read at once
 * @o: the options (--jobs, -c, the files)
 *
 * Return: 1 to read serially: one file, -c (it counts over the files in
 * their order), or --jobs 1; else --jobs, or the cores this process may run
 * on, at most one per file.
 */
unsigned nt_analyze_workers(const struct nt_analyze_opts *o);

/**
 * nt_analyze_read() - read every input into @an, printing what went wrong
 * @o: the options
 * @annotate: the --annotate state (inputs are opened through it)
 * @an: the analysis, initialised, no file read yet
 * @trouble: filled with what went wrong
 */
void nt_analyze_read(const struct nt_analyze_opts *o, struct nt_annotate *annotate,
		     struct nt_analysis *an, struct nt_analyze_trouble *trouble);

#endif
