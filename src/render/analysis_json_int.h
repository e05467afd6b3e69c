/* SPDX-License-Identifier: MIT */
/*
 * analysis_json_int.h - internals of the analyze JSON renderer, shared by its
 * files only: the template of one element of "flows" (analysis_json_flow.c)
 * that the document and the JSON Lines records (analysis_json.c) write.
 */
#ifndef NT_RENDER_ANALYSIS_JSON_INT_H
#define NT_RENDER_ANALYSIS_JSON_INT_H

#include <json-c/json.h>
#include <stdio.h>

#include "nt/model/analysis.h"

struct nt_json_flow;

/**
 * nt_json_flow_new() - a flow template: the flow object and its values
 *
 * json-c objects have one owner: a thread rendering flows makes its own.
 *
 * Return: the template, or NULL without memory.
 */
struct nt_json_flow *nt_json_flow_new(void);

/**
 * nt_json_flow_set() - set the template's values to one flow's
 * @t: the template
 * @an: a finished analysis
 * @r: one of its flows
 *
 * Return: 0 or -ENOMEM (a string grew, the timeline lengthened).
 */
int nt_json_flow_set(struct nt_json_flow *t, const struct nt_analysis *an,
		     const struct nt_flow_result *r);

/**
 * nt_json_flow_write() - the flow set last, as an element of "flows"
 * @t: the template
 * @out: the stream
 * @depth: the element's level: lines after the first are indented by it
 *
 * The bytes are json-c's for the flow object (nt_json_write()).
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_json_flow_write(struct nt_json_flow *t, FILE *out, int depth);

/**
 * nt_json_flow_write_record() - the flow set last, as a JSON Lines record
 * @t: the template
 * @out: the stream, flushed after the line
 *
 * {"type": "flow", then the flow's members}, as nt_json_line() prints it.
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_json_flow_write_record(struct nt_json_flow *t, FILE *out);

/**
 * nt_json_flow_free() - free a template
 * @t: made by nt_json_flow_new(); NULL is a no-op
 */
void nt_json_flow_free(struct nt_json_flow *t);

#endif
