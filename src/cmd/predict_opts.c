// SPDX-License-Identifier: MIT
/*
 * predict_opts.c - the predict command's options (see nt/cmd/predict_opts.h):
 * the exchange's knobs as trace parses them (trace_opts_int.h), the kernel
 * to model and the report.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nt/cmd/predict_opts.h"
#include "nt/live/variant.h"
#include "trace_opts_int.h"

/* `nagle-trace predict`: the knobs of the exchange, the kernel to model, the report. */
static const struct option predict_options[] = {
	EXCHANGE_OPTIONS,
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "hz", required_argument, NULL, OPT_HZ },
	{ 0 },
};

const struct option *nt_predict_opts_table(void)
{
	return predict_options;
}

void nt_predict_opts_usage(FILE *out)
{
	const struct nt_variant *v;
	unsigned n;

	fputs("usage: nagle-trace predict [options]\n"
	      "\n"
	      "The model of the kernel's decisions alone (docs/model.md): what Linux will do with\n"
	      "each round of the write-write-read exchange for these knobs, and why, rule by "
	      "rule.\n"
	      "Nothing runs: no namespaces, no privileges. `nagle-trace` checks the same\n"
	      "prediction against the real kernel (--expect auto).\n"
	      "\n"
	      "the exchange (as for nagle-trace):\n"
	      "  --rounds N  --header B  --body B  --reply B  --pause MS  --handler-ms MS\n"
	      "  --write-gap-ms MS  --pingpong-thresh N  --ipv6  --threshold MS  --rtt MS\n"
	      "  --variant LIST       one or more of (comma-separated), or all:\n",
	      out);
	v = nt_variant_all(&n);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "                         %-15s %s\n", v[i].name, v[i].summary);
	fputs("\n"
	      "the kernel (default: the running one):\n"
	      "  --kernel X.Y         a release, \"6.1\" or \"5.15.0-91-generic\": its rules\n"
	      "  --hz N               its CONFIG_HZ (24..10000)\n"
	      "\n"
	      "output:\n"
	      "  --format F           text|json|html (default text); html: the lesson's\n"
	      "                       what-if panel, the model running in the page\n"
	      "  -o, --output FILE    write the report to FILE (complete or not at all)\n"
	      "  -h, --help           this text\n"
	      "  --version            versions\n"
	      "\n"
	      "exit status: 0 predicted, 2 usage error, 4 the report could not be written\n",
	      out);
}

int nt_predict_opts_parse(int argc, char **argv, struct nt_trace_opts *opt, struct nt_err *err)
{
	int ret = nt_trace_opts_parse_table(argc, argv, predict_options, "ho:", true, opt, err);

	if (ret == 0 && opt->action == NT_CMD_RUN && strcmp(opt->out.format, "text") != 0 &&
	    strcmp(opt->out.format, "json") != 0 && strcmp(opt->out.format, "html") != 0)
		return nt_err_set(err, 0, "--format: predict writes text, json or html, not \"%s\"",
				  opt->out.format);
	return ret;
}
