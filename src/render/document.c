// SPDX-License-Identifier: MIT
/*
 * document.c - the driver of a document of live runs (see
 * nt/render/render.h): the run's sink calls the format's callbacks, the
 * first write error is kept.
 */
#include <errno.h>
#include <string.h>

#include "nt/render/render.h"

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

static int sink_begin(void *ctx, const struct nt_record *run, const struct nt_round_view *hs)
{
	struct nt_renderer *r = ctx;

	return checked(r, r->doc->begin ? r->doc->begin(r, run, hs) : 0);
}

static int sink_round(void *ctx, const struct nt_record *run, const struct nt_round_view *rv)
{
	struct nt_renderer *r = ctx;

	return checked(r, r->doc->round ? r->doc->round(r, run, rv) : 0);
}

static int sink_end(void *ctx, const struct nt_record *run, const struct nt_round_view *td)
{
	struct nt_renderer *r = ctx;
	int ret = checked(r, r->doc->end ? r->doc->end(r, run, td) : 0);

	r->run++;
	return ret;
}

int nt_renderer_open(struct nt_renderer *r, const struct nt_trace_doc *doc, FILE *out,
		     const struct nt_render_opts *opts, unsigned n_runs)
{
	memset(r, 0, sizeof(*r));
	r->doc = doc;
	r->out = out;
	if (opts)
		r->opts = *opts;
	r->n_runs = n_runs ? n_runs : 1;
	r->sink = (struct nt_record_sink){
		.begin = sink_begin, .round = sink_round, .end = sink_end, .ctx = r
	};
	return doc->open ? doc->open(r) : 0;
}

const struct nt_record_sink *nt_renderer_sink(struct nt_renderer *r)
{
	return &r->sink;
}

int nt_renderer_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs)
{
	int ret;

	if (r->error)
		return r->error;
	ret = r->doc->finish ? r->doc->finish(r, runs, n_runs) : 0;
	if (ret >= 0)
		(void)fflush(r->out);
	checked(r, ret);
	return r->error;
}

void nt_renderer_close(struct nt_renderer *r)
{
	if (r->doc && r->doc->close)
		r->doc->close(r);
	r->state = NULL;
}

int nt_render_runs(const struct nt_trace_doc *doc, FILE *out, struct nt_record *runs,
		   unsigned n_runs, const struct nt_render_opts *opts)
{
	struct nt_renderer r;
	int ret = nt_renderer_open(&r, doc, out, opts, n_runs);

	for (unsigned i = 0; i < n_runs && !ret; i++)
		ret = nt_record_finish(&runs[i], nt_renderer_sink(&r));
	if (!ret)
		ret = nt_renderer_finish(&r, runs, n_runs);
	nt_renderer_close(&r);
	return ret;
}
