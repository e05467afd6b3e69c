// SPDX-License-Identifier: MIT
/*
 * lesson_model.c - the lesson page's what-if panel (see nt/render/lesson.h):
 * the knobs as controls, each variant's knob vector as the starting point,
 * and the model itself, compiled to WebAssembly (cmake/NtWasm.cmake) and
 * inlined in base64. src/render/lesson/model.js runs it on every change and
 * draws what it predicts; nothing of the model is written in JavaScript.
 */
#include <errno.h>

#include "nt/model/predict.h"
#include "nt/model/predict_wasm.h"
#include "nt/render/escape.h"
#include "nt/render/lesson.h"

/* A number control: the knob it sets, its label, the unit it shows and the factor to the knob's. */
static void number(FILE *out, const char *knob, const char *label, const char *unit, double scale,
		   double min, double max, double step)
{
	fprintf(out,
		"<label class=\"nt-knob\">%s <input type=\"number\" data-knob=\"%s\" "
		"data-scale=\"%g\" min=\"%g\" max=\"%g\" step=\"%g\"> %s</label>\n",
		label, knob, scale, min, max, step, unit);
}

static void check(FILE *out, const char *knob, const char *label)
{
	fprintf(out,
		"<label class=\"nt-knob\"><input type=\"checkbox\" data-knob=\"%s\"> %s</label>\n",
		knob, label);
}

/*
 * A choice among @n: the knob it sets and its label; each option's value is
 * its index, written out when @valued (the write pattern, TCP_QUICKACK's
 * schedule), else the option's own text is the value (HZ, the release).
 */
static void choice(FILE *out, const char *knob, const char *label, const char *const *options,
		   size_t n, bool valued)
{
	fprintf(out, "<label class=\"nt-knob\">%s <select data-knob=\"%s\">", label, knob);
	for (size_t i = 0; i < n; i++)
		if (valued)
			fprintf(out, "<option value=\"%zu\">%s</option>", i, options[i]);
		else
			fprintf(out, "<option>%s</option>", options[i]);
	fputs("</select></label>\n", out);
}

#define CHOICE(out, knob, label, options, valued) \
	choice(out, knob, label, options, sizeof(options) / sizeof((options)[0]), valued)

/* The values are the model's own (enum nt_predict_pattern, enum nt_predict_quickack). */
static const char *const patterns[NT_PREDICT_PATTERN_COUNT] = {
	[NT_PREDICT_TWO_WRITES] = "write; write; read", [NT_PREDICT_ONE_WRITE] = "one write",
	[NT_PREDICT_WRITEV] = "writev(header, body)",	[NT_PREDICT_CORK] = "TCP_CORK around both",
	[NT_PREDICT_MSG_MORE] = "send(MSG_MORE); send",
};
static const char *const quickacks[] = {
	[NT_PREDICT_QUICKACK_NEVER] = "never",
	[NT_PREDICT_QUICKACK_ONCE] = "once, after accept()",
	[NT_PREDICT_QUICKACK_REARM] = "before every read",
};
static const char *const hzs[] = { "100", "250", "300", "1000" };
static const char *const releases[] = { "4.19", "5.4", "5.10", "5.15", "6.1",
					"6.6",	"6.7", "6.11", "6.12", "6.18" };

static void knob_controls(FILE *out)
{
	fputs("<div class=\"nt-knobs\" id=\"nt-knobs\">\n", out);
	number(out, "header_bytes", "header", "B", 1, 1, 65536, 1);
	number(out, "body_bytes", "body", "B", 1, 1, 1048576, 1);
	CHOICE(out, "pattern", "write pattern", patterns, true);
	check(out, "client_nodelay", "client TCP_NODELAY");
	CHOICE(out, "server_quickack", "server TCP_QUICKACK", quickacks, true);
	check(out, "route_quickack", "route quickack 1");
	check(out, "server_nodelay", "server TCP_NODELAY");
	check(out, "client_autocork", "client autocorking");
	number(out, "pingpong_thresh", "ping-pong threshold", "(0: the kernel's)", 1, 0, 255, 1);
	number(out, "handler_ns", "handler", "ms", 1e6, 0, 10000, 0.1);
	number(out, "write_gap_ns", "write gap", "ms", 1e6, 0, 10000, 1);
	number(out, "pause_ns", "pause", "ms", 1e6, 0, 10000, 1);
	number(out, "rtt_ns", "RTT", "ms", 1e6, 0, 1000, 0.1);
	CHOICE(out, "hz", "HZ", hzs, false);
	CHOICE(out, "kernel", "kernel", releases, false);
	number(out, "rounds", "rounds", "", 1, 1, NT_PREDICT_PAGE_ROUNDS_MAX, 1);
	fputs("<button type=\"button\" id=\"nt-model-reset\">back to the recorded knobs</button>\n"
	      "</div>\n",
	      out);
}

/* A JSON string's content inside <script>: '<' as \u003c, so no "</script" can close it. */
static void escape_json(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == '<')
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

/* One variant's starting point: {"variant":..., "label":..., "measured":..., "knobs":{...}}. */
static void run_json(FILE *out, const struct nt_lesson_model_run *r)
{
	double v[NT_KNOB_COUNT];

	nt_predict_knobs_get(r->knobs, v);
	fputs("{\"variant\":\"", out);
	escape_json(out, r->variant);
	fputs("\",\"label\":\"", out);
	escape_json(out, r->label);
	fprintf(out, "\",\"measured\":%s,\"knobs\":{", r->measured ? "true" : "false");
	for (unsigned i = 0; i < NT_KNOB_COUNT; i++)
		fprintf(out, "%s\"%s\":%.0f", i ? "," : "", nt_predict_knob_name(i), v[i]);
	fputs("}}", out);
}

int nt_lesson_model(FILE *out, const struct nt_lesson_model_run *runs, unsigned n)
{
	bool measured = n && runs[0].measured;

	if (!n)
		return 0;
	fputs("<section class=\"nt-model\" id=\"nt-model\" aria-label=\"what if\">\n"
	      "<h2>What if? The model</h2>\n",
	      out);
	if (!nt_lesson_wasm_b64[0]) {
		fputs("<p>This nagle-trace was built without the model in WebAssembly "
		      "(cmake -DNT_WASM=ON; docs/hacking.md): no what-if panel.</p>\n</section>\n",
		      out);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out,
		"<p class=\"nt-model-intro\">Change a knob: the same C model as <code>nagle-trace "
		"predict</code>, compiled to WebAssembly and running in this page, predicts every "
		"round again.%s</p>\n",
		measured ? " It starts from the recorded run's knobs; whatever differs from them "
			   "is marked, because nothing was measured there."
			 : "");
	fputs("<label class=\"nt-knob\">start from <select id=\"nt-model-run\">", out);
	for (unsigned i = 0; i < n; i++) {
		fputs("<option value=\"", out);
		nt_escape_xml(out, runs[i].variant);
		fputs("\">", out);
		nt_escape_xml(out, runs[i].label);
		fputs("</option>", out);
	}
	fputs("</select></label>\n", out);
	knob_controls(out);
	fputs("<p class=\"nt-depart\" id=\"nt-depart\"></p>\n"
	      "<p class=\"nt-model-stats\" id=\"nt-model-stats\"></p>\n"
	      "<div class=\"nt-model-strips\" id=\"nt-model-strips\"></div>\n"
	      "<div class=\"nt-model-ladder\" id=\"nt-model-ladder\"></div>\n"
	      "<script type=\"application/json\" id=\"nt-model-data\">{\"runs\":[",
	      out);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? "," : "", out);
		run_json(out, &runs[i]);
	}
	fprintf(out,
		"]}</script>\n<script type=\"application/octet-stream\" "
		"id=\"nt-wasm\">%s</script>\n"
		"<script>\n%s</script>\n</section>\n",
		nt_lesson_wasm_b64, nt_lesson_model_js);
	return ferror(out) ? -EIO : 0;
}
