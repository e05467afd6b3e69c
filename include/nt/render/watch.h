/* SPDX-License-Identifier: MIT */
/*
 * watch.h - nagle-trace watch's output: one line (text) or one record
 * (jsonl) per stall as it happens, and the summary at the end
 * (docs/watch.md; the records: docs/nagle-trace-watch.schema.json).
 */
#ifndef NT_RENDER_WATCH_H
#define NT_RENDER_WATCH_H

#include <stdio.h>

#include "nt/model/watch.h"

/* The schema of watch's records (docs/nagle-trace-watch.schema.json). */
#define NT_JSON_SCHEMA_WATCH 2

/**
 * nt_watch_command() - a process's name as the records give it
 * @pid: the process, -1 when none was found
 * @comm: its name as read, "" when it could not be (the process gone first)
 *
 * Return: @comm, or NULL (null in JSON, "?" in text) when there is no name.
 */
static inline const char *nt_watch_command(int pid, const char *comm)
{
	return pid >= 0 && comm[0] ? comm : NULL;
}

/**
 * nt_watch_text_stall() - one stall, one line
 * @out: the stream
 * @st: the stall
 *
 * Return: 0 or -EIO.
 */
int nt_watch_text_stall(FILE *out, const struct nt_watch_stall *st);

struct nt_watch_jsonl;

/**
 * nt_watch_jsonl_new() - the template of the "stall" record (watch_jsonl.c)
 *
 * Return: the template, or NULL without memory.
 */
struct nt_watch_jsonl *nt_watch_jsonl_new(void);

/**
 * nt_watch_jsonl_free() - drop the template; NULL is fine
 * @t: the template
 */
void nt_watch_jsonl_free(struct nt_watch_jsonl *t);

/**
 * nt_watch_jsonl_stall() - one stall, one "stall" record
 * @t: the template, set to @st's values and printed
 * @out: the stream, not flushed: the caller flushes after a batch of records
 * @st: the stall
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_watch_jsonl_stall(struct nt_watch_jsonl *t, FILE *out, const struct nt_watch_stall *st);

/**
 * nt_watch_text_summary() - the summary: totals, capture counters, per process, per flow
 * @out: the stream
 * @s: the summary
 * @end: how the watch went
 *
 * Return: 0 or -EIO.
 */
int nt_watch_text_summary(FILE *out, const struct nt_watch_sum *s, const struct nt_watch_end *end);

/**
 * nt_watch_jsonl_summary() - the summary as one "summary" record
 * @out: the stream
 * @s: the summary
 * @end: how the watch went
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_watch_jsonl_summary(FILE *out, const struct nt_watch_sum *s, const struct nt_watch_end *end);

#endif
