// SPDX-License-Identifier: MIT
/*
 * format.c - the table of output formats, the document driver and the
 * explanation they share.
 */
#include <errno.h>
#include <string.h>

#include "nt/render/render.h"

static const struct nt_format *const formats[] = {
	&nt_format_text, &nt_format_json, &nt_format_markdown, &nt_format_svg, &nt_format_html,
};

const struct nt_format *nt_format_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

const char *nt_format_names(void)
{
	return "text|json|markdown|svg|html";
}

/*
 * A callback's result: the first failure is kept in r->error (stdio keeps
 * only a flag; errno still holds the failed write's reason). A reader that
 * went away (`| head`, -EPIPE) ends the document but not the run, whose -w
 * file is still wanted.
 */
static int checked(struct nt_renderer *r, int ret)
{
	int write_errno = errno;

	if (ret >= 0 && !ferror(r->out))
		return 0;
	/* A failed write makes the format say -EIO; the stream's own reason is more precise. */
	if (!r->error && ferror(r->out))
		r->error = write_errno ? -write_errno : -EIO;
	else if (!r->error)
		r->error = ret;
	return r->error == -EPIPE ? 0 : r->error;
}

static int sink_begin(void *ctx, const struct nt_run *run, const struct nt_round_view *hs)
{
	struct nt_renderer *r = ctx;

	return checked(r, r->fmt->begin ? r->fmt->begin(r, run, hs) : 0);
}

static int sink_round(void *ctx, const struct nt_run *run, const struct nt_round_view *rv)
{
	struct nt_renderer *r = ctx;

	return checked(r, r->fmt->round ? r->fmt->round(r, run, rv) : 0);
}

static int sink_end(void *ctx, const struct nt_run *run, const struct nt_round_view *td)
{
	struct nt_renderer *r = ctx;
	int ret = checked(r, r->fmt->end ? r->fmt->end(r, run, td) : 0);

	r->run++;
	return ret;
}

int nt_renderer_open(struct nt_renderer *r, const struct nt_format *fmt, FILE *out,
		     const struct nt_render_opts *opts, unsigned n_runs)
{
	memset(r, 0, sizeof(*r));
	r->fmt = fmt;
	r->out = out;
	if (opts)
		r->opts = *opts;
	r->n_runs = n_runs ? n_runs : 1;
	r->sink = (struct nt_run_sink){
		.begin = sink_begin, .round = sink_round, .end = sink_end, .ctx = r
	};
	return fmt->open ? fmt->open(r) : 0;
}

const struct nt_run_sink *nt_renderer_sink(struct nt_renderer *r)
{
	return &r->sink;
}

int nt_renderer_finish(struct nt_renderer *r, const struct nt_run *runs, unsigned n_runs)
{
	int ret;

	if (r->error)
		return r->error;
	ret = r->fmt->finish ? r->fmt->finish(r, runs, n_runs) : 0;
	if (ret >= 0)
		(void)fflush(r->out);
	checked(r, ret);
	return r->error;
}

void nt_renderer_close(struct nt_renderer *r)
{
	if (r->fmt && r->fmt->close)
		r->fmt->close(r);
	r->state = NULL;
}

int nt_render_runs(const struct nt_format *fmt, FILE *out, struct nt_run *runs, unsigned n_runs,
		   const struct nt_render_opts *opts)
{
	struct nt_renderer r;
	int ret = nt_renderer_open(&r, fmt, out, opts, n_runs);

	for (unsigned i = 0; i < n_runs && !ret; i++)
		ret = nt_run_finish(&runs[i], nt_renderer_sink(&r));
	if (!ret)
		ret = nt_renderer_finish(&r, runs, n_runs);
	nt_renderer_close(&r);
	return ret;
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
