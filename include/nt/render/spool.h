/* SPDX-License-Identifier: MIT */
/*
 * spool.h - where a document keeps what it writes before its head is known
 * (markdown's rows, html's timelines): an unnamed temporary file, so a long
 * run costs disk, not memory, and nothing is left behind, even on SIGKILL.
 */
#ifndef NT_RENDER_SPOOL_H
#define NT_RENDER_SPOOL_H

#include <stdbool.h>
#include <stdio.h>

/**
 * nt_spool_new() - an unnamed temporary file (O_TMPFILE, or unlinked at once)
 *
 * Return: the stream, or NULL with errno set.
 */
FILE *nt_spool_new(void);

/**
 * nt_spool_error() - why writing to @spool failed, once ferror() says it did
 * @spool: the spool
 *
 * Return: 0 when no write failed, -EFBIG when the spool reached the file
 * size limit (`ulimit -f`), -ENOSPC when its file system is full, -EIO when
 * the file does not say.
 */
int nt_spool_error(FILE *spool);

/**
 * nt_spool_copy() - copy bytes @from .. @to of @spool to @out
 * @spool: the spool
 * @from: first offset
 * @to: end offset, -1 for the end of the spool
 * @out: where to
 * @xml_escape: escape for XML text (nt_escape_xml())
 *
 * Return: 0 or a negative errno.
 */
int nt_spool_copy(FILE *spool, long from, long to, FILE *out, bool xml_escape);

#endif
