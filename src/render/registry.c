// SPDX-License-Identifier: MIT
/*
 * registry.c - the table of output formats (see nt/render/format.h). Adding
 * a format is adding a row here and its file(s).
 */
#include <stdio.h>
#include <string.h>

#include "nt/render/format.h"

static const struct nt_format formats[] = {
	{ "text", "the timeline in a terminal", &nt_text_trace, nt_render_analysis_text },
	{ "json", "one JSON document (docs/json-schema.md)", &nt_json_trace,
	  nt_render_analysis_json },
	{ "markdown", "paste-ready, with a Mermaid diagram", &nt_markdown_trace,
	  nt_render_analysis_markdown },
	{ "svg", "a ladder diagram", &nt_svg_trace, nt_render_analysis_svg },
	{ "html", "one self-contained page", &nt_html_trace, nt_render_analysis_html },
};

static bool renders(const struct nt_format *f, enum nt_format_kind kind)
{
	return kind == NT_FORMAT_TRACE ? f->trace != NULL : f->analysis != NULL;
}

const struct nt_format *nt_format_find(const char *name, enum nt_format_kind kind)
{
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0 && renders(&formats[i], kind))
			return &formats[i];
	return NULL;
}

const struct nt_format *nt_format_all(unsigned *n)
{
	*n = sizeof(formats) / sizeof(formats[0]);
	return formats;
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
