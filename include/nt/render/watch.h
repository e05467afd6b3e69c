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
#define NT_JSON_SCHEMA_WATCH 1

/**
 * nt_watch_text_stall() - one stall, one line
 * @out: the stream
 * @st: the stall
 *
 * Return: 0 or -EIO.
 */
int nt_watch_text_stall(FILE *out, const struct nt_watch_stall *st);

/**
 * nt_watch_jsonl_stall() - one stall, one "stall" record
 * @out: the stream
 * @st: the stall
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_watch_jsonl_stall(FILE *out, const struct nt_watch_stall *st);

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
