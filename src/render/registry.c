// SPDX-License-Identifier: MIT
/*
 * registry.c - the table of output formats (see nt/render/format.h). Adding
 * a format is adding a row here and its file(s).
 */
#include <stdio.h>
#include <string.h>

#include "nt/render/format.h"
#include "nt/render/run.h"

static const struct nt_format formats[] = {
	{ .name = "text",
	  .about = "the timeline in a terminal",
	  .trace = &nt_text_trace,
	  .analysis = nt_render_analysis_text,
	  .brief_totals = true,
	  .kernels = nt_kernels_text },
	{ .name = "json",
	  .about = "one JSON document (docs/json-schema.md)",
	  .trace = &nt_json_trace,
	  .analysis = nt_render_analysis_json,
	  .lists_stalls = true,
	  .kernels = nt_kernels_json },
	{ .name = "jsonl",
	  .about = "JSON Lines: a record per round (or flow) as it comes",
	  .trace = &nt_jsonl_trace,
	  .analysis = nt_render_analysis_jsonl,
	  .records = true,
	  .lists_stalls = true },
	{ .name = "markdown",
	  .about = "paste-ready, with a Mermaid diagram",
	  .trace = &nt_markdown_trace,
	  .analysis = nt_render_analysis_markdown,
	  .runs = nt_render_incident_markdown,
	  .kernels = nt_kernels_markdown },
	{ .name = "svg",
	  .about = "a ladder diagram",
	  .trace = &nt_svg_trace,
	  .analysis = nt_render_analysis_svg,
	  .keeps = NT_KEEP_WORST },
	{ .name = "html",
	  .about = "one self-contained page",
	  .trace = &nt_html_trace,
	  .analysis = nt_render_analysis_html,
	  .runs = nt_render_incident_html },
};

static bool renders(const struct nt_format *f, enum nt_format_kind kind)
{
	switch (kind) {
	case NT_FORMAT_TRACE:
		return f->trace != NULL;
	case NT_FORMAT_ANALYSIS:
		return f->analysis != NULL;
	case NT_FORMAT_KERNELS:
		return f->kernels != NULL;
	}
	return false;
}

const struct nt_format *nt_format_find(const char *name, enum nt_format_kind kind)
{
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0 && renders(&formats[i], kind))
			return &formats[i];
	return NULL;
}

const char *nt_format_names(enum nt_format_kind kind, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]) && used < len; i++) {
		int n;

		if (!renders(&formats[i], kind))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", formats[i].name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}
