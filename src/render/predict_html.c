// SPDX-License-Identifier: MIT
/*
 * predict_html.c - `nagle-trace predict --format html` (see
 * nt/render/predict.h): the lesson page's what-if panel without a lab. The
 * page carries the model as WebAssembly and each variant's knobs; its script
 * predicts and draws in the browser, so the page is the same whatever knob
 * the reader moves.
 */
#include <errno.h>
#include <stdio.h>

#include "nt/render/escape.h"
#include "nt/render/html_page.h"
#include "nt/render/lesson.h"
#include "nt/render/predict.h"

int nt_predict_html(FILE *out, const struct nt_predict_doc *docs, unsigned n)
{
	struct nt_lesson_model_run runs[64];
	char kernel[32];
	int ret;

	if (!n)
		return -EINVAL;
	for (unsigned i = 0; i < n && i < 64; i++) {
		runs[i].variant = docs[i].variant;
		runs[i].label = docs[i].summary && docs[i].summary[0] ? docs[i].summary
								      : docs[i].variant;
		runs[i].knobs = &docs[i].knobs;
		runs[i].measured = false;
	}
	snprintf(kernel, sizeof(kernel), "%u.%u", docs[0].knobs.kernel.major,
		 docs[0].knobs.kernel.minor);
	nt_html_begin(out, "nagle-trace predict", "nagle-trace predict", docs[0].variant, 1);
	fputs("<p class=\"nt-intro\">The model of the kernel's decisions, no lab: Linux ", out);
	nt_escape_xml(out, kernel);
	fprintf(out,
		" (%s), HZ %u (%s). Nothing here was measured: <code>nagle-trace</code> "
		"runs the same knobs on the real kernel and checks this prediction "
		"(<code>--expect auto</code>).</p>\n",
		docs[0].kernel_source, docs[0].knobs.hz, docs[0].hz_source);
	ret = nt_lesson_model(out, runs, n < 64 ? n : 64);
	if (ret < 0)
		return ret;
	return nt_html_end(out);
}
