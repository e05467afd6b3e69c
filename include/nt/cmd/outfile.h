/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - the extra files a command writes beside its report (analyze
 * --annotate, trace -w x.pcapng, trace --export-packetdrill), complete or
 * absent through the output policy (nt/output.h). Every use of that policy
 * by these files goes through here, so a change to it is made once.
 */
#ifndef NT_CMD_OUTFILE_H
#define NT_CMD_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/err.h"
#include "nt/output.h"

/**
 * struct nt_cmd_outfile - one file being written; all zeros is none
 * @out: the policy's stream (@out.fp is where to write); the policy knows
 *       whether it is open (commit and abort do nothing otherwise)
 */
struct nt_cmd_outfile {
	struct nt_output out;
};

/**
 * nt_cmd_outfile_open() - reserve @path (a temporary file beside it), before
 * any work is done, so a bad directory is refused at once
 * @f: set up here
 * @path: the destination
 * @err: filled on failure, the path quoted
 *
 * Return: 0 or a negative errno.
 */
int nt_cmd_outfile_open(struct nt_cmd_outfile *f, const char *path, struct nt_err *err);

/**
 * nt_cmd_outfile_commit() - put the complete file in place
 * @f: the file
 * @err: filled on failure
 *
 * Return: 0 or a negative errno (nothing is left behind).
 */
int nt_cmd_outfile_commit(struct nt_cmd_outfile *f, struct nt_err *err);

/**
 * nt_cmd_outfile_abort() - drop it; safe when not open
 * @f: the file
 */
void nt_cmd_outfile_abort(struct nt_cmd_outfile *f);

#endif
