/* SPDX-License-Identifier: MIT */
/*
 * output.h - report files that are complete or absent.
 *
 * A report goes to a temporary file beside its destination and is renamed
 * into place only when complete, so a refused or failed run never leaves a
 * half-written file behind.
 */
#ifndef NT_OUTPUT_H
#define NT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/err.h"

/**
 * struct nt_output - one output stream
 * @fp: where to write
 * @path: the destination, NULL for standard output
 * @tmp_path: the temporary file, NULL for standard output
 * @spooled: standard output is being written to an unnamed temporary file (@fp)
 */
struct nt_output {
	FILE *fp;
	const char *path;
	char *tmp_path;
	bool spooled;
};

/**
 * nt_output_open() - start writing @path (NULL: standard output)
 * @out: set up here
 * @path: destination file
 * @err: filled on failure, the path quoted
 *
 * Return: 0 or a negative errno.
 */
int nt_output_open(struct nt_output *out, const char *path, struct nt_err *err);

/**
 * nt_output_open_spooled() - nt_output_open(), but standard output, too, is
 * complete or absent: it is written to an unnamed temporary file (tmpfile(3))
 * and copied out by nt_output_commit()
 * @out: set up here
 * @path: destination file, NULL for standard output
 * @err: filled on failure
 *
 * For reports written while a run goes: a run that fails halfway must not
 * leave half a document on standard output either (`> file` makes that a
 * file). Without a temporary file, standard output is written directly.
 *
 * Return: 0 or a negative errno.
 */
int nt_output_open_spooled(struct nt_output *out, const char *path, struct nt_err *err);

/**
 * nt_output_commit() - flush, close and rename into place
 * @out: the stream
 * @err: filled on failure
 *
 * Return: 0 or a negative errno (-EPIPE when standard output went away).
 */
int nt_output_commit(struct nt_output *out, struct nt_err *err);

/**
 * nt_output_abort() - drop what was written; safe after commit or on a zeroed @out
 * @out: the stream
 */
void nt_output_abort(struct nt_output *out);

#endif
