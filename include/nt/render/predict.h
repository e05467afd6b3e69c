/* SPDX-License-Identifier: MIT */
/*
 * predict.h - `nagle-trace predict`'s report: the model's rounds, each step
 * with the rule that decides it, in text or JSON, written as the model goes
 * (memory does not grow with rounds).
 */
#ifndef NT_RENDER_PREDICT_H
#define NT_RENDER_PREDICT_H

#include <stdio.h>

#include "nt/model/predict.h"

/* The JSON document's schema (docs/nagle-trace-predict.schema.json). */
#define NT_JSON_SCHEMA_PREDICT 2

/**
 * struct nt_predict_doc - one prediction to report
 * @variant: the variant's name
 * @summary: what it changes ("two write() calls, Nagle on")
 * @knobs: the knobs, validated by nt_predict_init()
 * @kernel_source: where the kernel release came from ("the running kernel",
 *                 "--kernel")
 * @hz_source: where HZ came from ("/proc/config.gz", "--hz", "assumed")
 */
struct nt_predict_doc {
	const char *variant;
	const char *summary;
	struct nt_predict_knobs knobs;
	const char *kernel_source;
	const char *hz_source;
};

/**
 * nt_predict_text() - the predictions as text: per round, the segments in
 * the order the model expects them, each with why
 * @out: the stream
 * @docs: the predictions, one per variant
 * @n: how many
 *
 * Return: 0, -EINVAL (knobs the model refuses: a bug, they were checked) or
 * -EIO.
 */
int nt_predict_text(FILE *out, const struct nt_predict_doc *docs, unsigned n);

/**
 * nt_predict_json() - the same as JSON (docs/json-schema.md, "predict"):
 * one object, or {"runs": [...]} for several variants
 * @out: the stream
 * @docs: the predictions
 * @n: how many
 *
 * Return: 0, -EINVAL, -ENOMEM or -EIO.
 */
int nt_predict_json(FILE *out, const struct nt_predict_doc *docs, unsigned n);

/**
 * nt_predict_html() - the lesson page's what-if panel for the predictions:
 * the model in WebAssembly, each variant's knobs its starting points
 * (src/render/predict_html.c)
 * @out: the stream
 * @docs: the predictions
 * @n: how many
 *
 * Return: 0, -EINVAL (no prediction) or -EIO.
 */
int nt_predict_html(FILE *out, const struct nt_predict_doc *docs, unsigned n);

#endif
