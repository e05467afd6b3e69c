/* SPDX-License-Identifier: MIT */
/*
 * analysis_json_int.h - internals of the analyze JSON renderer, shared by its
 * files only: the template of one element of "flows" (analysis_json_flow.c)
 * that the document and the JSON Lines records (analysis_json.c) write.
 */
#ifndef NT_RENDER_ANALYSIS_JSON_INT_H
#define NT_RENDER_ANALYSIS_JSON_INT_H

#include <json-c/json.h>

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
 * @flow: set to the flow object (the template's: valid until the next call)
 *
 * Return: 0 or -ENOMEM (a string grew, the timeline lengthened).
 */
int nt_json_flow_set(struct nt_json_flow *t, const struct nt_analysis *an,
		     const struct nt_flow_result *r, struct json_object **flow);

/**
 * nt_json_flow_free() - free a template
 * @t: made by nt_json_flow_new(); NULL is a no-op
 */
void nt_json_flow_free(struct nt_json_flow *t);

#endif
