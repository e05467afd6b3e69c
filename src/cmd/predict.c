// SPDX-License-Identifier: MIT
/*
 * predict.c - `nagle-trace predict`: the model of the kernel's decisions
 * for the exchange's knobs, no namespaces, no privileges (docs/model.md).
 * The knobs are made exactly as a live run makes them (nt_trace_knobs()), so
 * what this prints is what `--expect auto` checks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "nt/cmd/cmd.h"
#include "nt/cmd/predict_opts.h"
#include "nt/exitcode.h"
#include "nt/live/kernel.h"
#include "nt/live/trace.h"
#include "nt/output.h"
#include "nt/render/predict.h"

/* One variant's knobs: the running kernel's facts, then what the command line overrides. */
static void make_doc(const struct nt_trace_opts *o, const struct nt_kernel_facts *kf,
		     const struct nt_variant *v, struct nt_predict_doc *d)
{
	struct nt_trace_config t = o->trace;

	t.variant = v;
	memset(d, 0, sizeof(*d));
	d->variant = v->name;
	d->summary = v->summary;
	nt_trace_knobs(&t, kf, &d->knobs);
	d->kernel_source = "the running kernel";
	d->hz_source = kf->hz_source;
	if (o->kernel_set) {
		d->knobs.kernel = o->kernel;
		d->kernel_source = "--kernel";
	}
	if (o->hz) {
		d->knobs.hz = o->hz;
		d->hz_source = "--hz";
	}
}

static int render(const struct nt_trace_opts *o, const struct nt_predict_doc *docs, unsigned n)
{
	struct nt_err err = { "" };
	struct nt_output out;
	int ret;

	if (nt_output_check(o->out.path, &err) < 0 ||
	    nt_output_open(&out, o->out.path, NT_OUTPUT_DOCUMENT, &err) < 0) {
		return nt_cmd_fail(NT_EXIT_FILE, &err);
	}
	if (strcmp(o->out.format, "json") == 0)
		ret = nt_predict_json(out.fp, docs, n);
	else if (strcmp(o->out.format, "html") == 0)
		ret = nt_predict_html(out.fp, docs, n);
	else
		ret = nt_predict_text(out.fp, docs, n);
	ret = ret < 0 ? nt_output_fail(&out, ret, &err) : nt_output_commit(&out, &err);
	if (ret < 0 && !nt_output_reader_gone(&out, ret)) {
		return nt_cmd_fail(NT_EXIT_FILE, &err);
	}
	return NT_EXIT_OK;
}

int nt_cmd_predict(int argc, char **argv)
{
	struct nt_predict_doc docs[NT_TRACE_VARIANTS_MAX];
	struct nt_kernel_facts kf;
	struct nt_trace_opts o;
	struct nt_err err = { "" };

	nt_cmd_signals_install_fatal();
	if (nt_predict_opts_parse(argc, argv, &o, &err) < 0)
		return nt_cmd_usage_error("predict", err.msg);
	if (o.action == NT_CMD_HELP)
		return nt_cmd_print_info(nt_predict_opts_usage);
	if (o.action == NT_CMD_VERSION)
		return nt_cmd_print_info(nt_cmd_version);
	nt_kernel_facts_read(&kf);
	for (unsigned i = 0; i < o.n_variants; i++) {
		struct nt_predict p;

		make_doc(&o, &kf, o.variants[i], &docs[i]);
		/* The options were range-checked; what is left is the model's own limits. */
		if (nt_predict_init(&p, &docs[i].knobs, &err) < 0)
			return nt_cmd_usage_error("predict", err.msg);
	}
	return render(&o, docs, o.n_variants);
}
