// SPDX-License-Identifier: MIT
/*
 * format.c - the table of output formats and the explanation they share.
 */
#include <string.h>

#include "nt/render/render.h"

static const struct nt_format formats[] = {
	{ .name = "text", .render = nt_render_text },
	{ .name = "json", .render = nt_render_json },
	{ .name = "markdown", .render = nt_render_markdown },
	{ .name = "svg", .render = nt_render_svg },
	{ .name = "html", .render = nt_render_html },
};

const struct nt_format *nt_format_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const char *nt_format_names(void)
{
	return "text|json|markdown|svg|html";
}

void nt_render_explain(const struct nt_run *run, const char **why, const char **fix)
{
	*why = NULL;
	*fix = NULL;
	if (!run->summary.verdicts[NT_VERDICT_STALLED])
		return;
	*why = "the client's second small write (the body) was held by Nagle's algorithm while "
	       "the header was unacknowledged (tcp_nagle_check),\n"
	       "     and the target delayed that ACK, waiting for a reply it could not send "
	       "before the body arrived (delayed-ACK timer, TCP_DELACK_MIN)";
	*fix = "send header and body in one write (one buffer, writev or sendmsg); otherwise set "
	       "TCP_NODELAY on the client";
}
