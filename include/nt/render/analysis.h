/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - views of an offline analysis (nagle-trace analyze). Like the
 * live renderers they read the model and write to a stream, nothing else;
 * formats are a table looked up by name.
 */
#ifndef NT_RENDER_ANALYSIS_H
#define NT_RENDER_ANALYSIS_H

#include <stdio.h>

#include "nt/model/analysis.h"

/* Bumped with any incompatible change to the JSON document (docs/analyze.md). */
#define NT_ANALYSIS_SCHEMA_VERSION 1

/**
 * struct nt_analysis_view - what the report says besides the results
 * @filter: the filter expression, NULL for none
 */
struct nt_analysis_view {
	const char *filter;
};

/**
 * struct nt_analysis_format - one output format of analyze
 * @name: its --format name
 * @render: write the report; 0 or a negative errno (write errors)
 */
struct nt_analysis_format {
	const char *name;
	int (*render)(FILE *out, const struct nt_analysis *an, const struct nt_analysis_view *v);
};

/**
 * nt_analysis_format_find() - a format by name
 * @name: "text" or "json"
 *
 * Return: the format, or NULL.
 */
const struct nt_analysis_format *nt_analysis_format_find(const char *name);

/**
 * nt_render_analysis_text() - the human report: flows with stalls, their
 * first stall's timeline, the summary
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_analysis_text(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v);

/**
 * nt_render_analysis_json() - the JSON document (schema_version 1, docs/analyze.md)
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_analysis_json(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v);

/**
 * nt_analysis_endpoint_str() - "1.2.3.4:80" or "[::1]:80"
 * @family: AF_INET or AF_INET6
 * @addr: network order
 * @port: host order
 * @buf: at least 64 bytes
 *
 * Return: @buf.
 */
char *nt_analysis_endpoint_str(int family, const uint8_t *addr, uint16_t port, char *buf);

#endif
