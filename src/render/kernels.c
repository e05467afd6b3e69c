// SPDX-License-Identifier: MIT
/*
 * kernels.c - the guests' trace documents read into cells, and the table in
 * text and Markdown (see nt/render/kernels.h). The JSON report is
 * kernels_json.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "nt/render/fmt.h"
#include "nt/render/kernels.h"
#include "nt/unknown.h"

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static int64_t i64_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int)
		       ? json_object_get_int64(v)
		       : NT_UNKNOWN;
}

static struct json_object *obj_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void evidence_text(struct json_object *ev, char *buf, size_t len)
{
	struct json_object *pp = obj_of(ev, "target_pingpong"), *ato = obj_of(ev, "target_ato_ms");
	struct json_object *quick = obj_of(ev, "target_quick");

	snprintf(buf, len, "the target's ping-pong %s, quick %s, ato %s ms",
		 pp && !json_object_is_type(pp, json_type_null)
			 ? (json_object_get_boolean(pp) ? "on" : "off")
			 : "unknown",
		 quick && !json_object_is_type(quick, json_type_null)
			 ? json_object_get_string(quick)
			 : "unknown",
		 ato && !json_object_is_type(ato, json_type_null) ? json_object_get_string(ato)
								  : "unknown");
}

static void finding(struct nt_kernels_cell *c, struct json_object *r)
{
	struct nt_kernels_finding *f = &c->findings[c->n_findings++];
	struct json_object *pv = obj_of(r, "predicted_verdicts"), *why = obj_of(r, "why");
	size_t used = 0;

	f->round = (unsigned)i64_of(r, "index");
	snprintf(f->measured, sizeof(f->measured), "%s", str_of(r, "verdict") ?: "?");
	for (size_t i = 0; pv && i < json_object_array_length(pv) && used < sizeof(f->predicted);
	     i++) {
		int n = snprintf(f->predicted + used, sizeof(f->predicted) - used, "%s%s",
				 i ? "|" : "",
				 json_object_get_string(json_object_array_get_idx(pv, i)));

		used += n > 0 ? (size_t)n : 0;
	}
	f->gap_ns = i64_of(r, "header_ack_gap_ns");
	snprintf(f->why, sizeof(f->why), "%s", why ? str_of(why, "text") ?: "" : "");
	evidence_text(obj_of(r, "evidence"), f->evidence, sizeof(f->evidence));
}

static void read_rounds(struct nt_kernels_cell *c, struct json_object *rounds)
{
	for (size_t i = 0; rounds && i < json_object_array_length(rounds); i++) {
		struct json_object *r = json_object_array_get_idx(rounds, i);
		struct json_object *ap = obj_of(r, "as_predicted");

		if (ap && json_object_is_type(ap, json_type_boolean) &&
		    !json_object_get_boolean(ap) && c->n_findings < NT_KERNELS_FINDINGS_MAX)
			finding(c, r);
	}
}

static void read_summary(struct nt_kernels_cell *c, struct json_object *s)
{
	struct json_object *v = obj_of(s, "verdicts"), *m = obj_of(s, "model");
	struct json_object *ex = obj_of(s, "expectation");

	c->rounds = (unsigned)i64_of(s, "rounds");
	for (unsigned k = 0; k < NT_VERDICT_COUNT; k++) {
		int64_t n = v ? i64_of(v, nt_verdict_name((enum nt_verdict)k)) : 0;

		c->counts[k] = n > 0 ? (unsigned)n : 0;
	}
	c->stall_min_ns = i64_of(s, "stall_min_ns");
	c->stall_max_ns = i64_of(s, "stall_max_ns");
	if (m) {
		int64_t n = i64_of(m, "rounds_not_as_predicted"), hz = i64_of(m, "hz");

		c->not_as_predicted = n > 0 ? (unsigned)n : 0;
		snprintf(c->model, sizeof(c->model), "%s, HZ %" PRId64, str_of(m, "kernel") ?: "?",
			 hz);
	}
	c->met = ex && obj_of(ex, "met") && json_object_get_boolean(obj_of(ex, "met"));
}

static struct nt_kernels_cell *new_cell(struct nt_kernels_guest *g, const char *run, int status)
{
	struct nt_kernels_cell *c = realloc(g->cells, sizeof(*c) * (g->n_cells + 1));

	if (!c)
		return NULL;
	g->cells = c;
	c = &g->cells[g->n_cells++];
	memset(c, 0, sizeof(*c));
	snprintf(c->run, sizeof(c->run), "%s", run);
	c->status = status;
	c->stall_min_ns = c->stall_max_ns = NT_UNKNOWN;
	return c;
}

static int keep_run(struct nt_kernels_guest *g, const char *run, int status, const char *json,
		    size_t len)
{
	char **docs = realloc(g->docs, sizeof(*docs) * (g->n_runs + 1));
	char **args = docs ? realloc(g->run_args, sizeof(*args) * (g->n_runs + 1)) : NULL;
	int *st = args ? realloc(g->run_status, sizeof(*st) * (g->n_runs + 1)) : NULL;

	if (docs)
		g->docs = docs;
	if (args)
		g->run_args = args;
	if (!st)
		return -ENOMEM;
	g->run_status = st;
	g->docs[g->n_runs] = json && len ? strndup(json, len) : NULL;
	g->run_args[g->n_runs] = strdup(run);
	g->run_status[g->n_runs] = status;
	g->n_runs++;
	return (json && len && !g->docs[g->n_runs - 1]) || !g->run_args[g->n_runs - 1] ? -ENOMEM
										       : 0;
}

static int absorb_doc(struct nt_kernels_guest *g, const char *run, int status,
		      struct json_object *doc)
{
	struct json_object *runs = obj_of(doc, "runs");
	size_t n = runs && json_object_is_type(runs, json_type_array)
			   ? json_object_array_length(runs)
			   : 1;

	/* One variant's document is that run itself; several are {"runs": [...]}. */
	if (!runs && !obj_of(doc, "variant"))
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = runs ? json_object_array_get_idx(runs, i) : doc;
		struct nt_kernels_cell *c = new_cell(g, run, status);

		if (!c)
			return -ENOMEM;
		snprintf(c->variant, sizeof(c->variant), "%s", str_of(r, "variant") ?: "?");
		read_summary(c, obj_of(r, "summary"));
		read_rounds(c, obj_of(r, "rounds"));
	}
	return 0;
}

int nt_kernels_absorb(struct nt_kernels_guest *g, const char *run, int status, const char *json,
		      size_t len, const char *note, bool unsupported, struct nt_err *err)
{
	struct json_object *doc = NULL;
	struct nt_kernels_cell *c;
	int ret = keep_run(g, run, status, json, len);

	if (ret < 0)
		return nt_err_set(err, ret, "out of memory");
	if (json && len && !unsupported) {
		doc = json_tokener_parse(g->docs[g->n_runs - 1]);
		ret = doc ? absorb_doc(g, run, status, doc) : -EBADMSG;
		json_object_put(doc);
		if (ret < 0)
			return nt_err_set(err, ret, "kernel %s: run \"%s\": %s", g->release, run,
					  ret == -ENOMEM
						  ? "out of memory"
						  : "the guest's JSON is not a trace document");
		return 0;
	}
	c = new_cell(g, run, status);
	if (!c)
		return nt_err_set(err, -ENOMEM, "out of memory");
	snprintf(c->note, sizeof(c->note), "%s", note);
	c->unsupported = unsupported;
	return 0;
}

void nt_kernels_guest_fini(struct nt_kernels_guest *g)
{
	for (unsigned i = 0; i < g->n_runs; i++) {
		free(g->docs[i]);
		free(g->run_args[i]);
	}
	free(g->docs);
	free(g->run_args);
	free(g->run_status);
	free(g->cells);
	g->docs = g->run_args = NULL;
	g->run_status = NULL;
	g->cells = NULL;
	g->n_cells = g->n_runs = 0;
}

/* "1 held, 3 stalled" */
static const char *verdicts_text(const struct nt_kernels_cell *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < NT_VERDICT_COUNT && used < len; k++) {
		int n;

		if (!c->counts[k])
			continue;
		n = snprintf(buf + used, len - used, "%s%u %s", used ? ", " : "", c->counts[k],
			     nt_verdict_name((enum nt_verdict)k));
		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

static const char *stall_text(const struct nt_kernels_cell *c, char *buf, size_t len)
{
	char lo[NT_FMT_MS_LEN], hi[NT_FMT_MS_LEN];

	if (!nt_known(c->stall_min_ns))
		return "-";
	snprintf(buf, len, "%s-%s", nt_fmt_ms_digits(c->stall_min_ns, 1, lo, sizeof(lo)),
		 nt_fmt_ms_digits(c->stall_max_ns, 1, hi, sizeof(hi)));
	return buf;
}

static const char *model_text(const struct nt_kernels_cell *c, char *buf, size_t len)
{
	if (c->note[0])
		return c->unsupported ? "not on this kernel" : "not run";
	if (!c->not_as_predicted)
		snprintf(buf, len, "as predicted (%s)", c->model);
	else
		snprintf(buf, len, "%u of %u rounds NOT as predicted (%s)", c->not_as_predicted,
			 c->rounds, c->model);
	return buf;
}

/* One run for every kernel: its options are said once, above the table. */
static const char *one_run(const struct nt_kernels_guest *g, unsigned n)
{
	const char *run = NULL;

	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; g[i].cells && j < g[i].n_cells; j++) {
			if (run && strcmp(run, g[i].cells[j].run) != 0)
				return NULL;
			run = g[i].cells[j].run;
		}
	return run;
}

static const char *run_label(const struct nt_kernels_cell *c, bool with_run, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", c->variant[0] ? c->variant : "-",
		 with_run && c->run[0] ? " " : "", with_run ? c->run : "");
	return buf;
}

static void text_findings(FILE *out, const struct nt_kernels_guest *g, unsigned n,
			  const char *bullet)
{
	bool head = false, with_run = !one_run(g, n);

	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; g[i].cells && j < g[i].n_cells; j++) {
			const struct nt_kernels_cell *c = &g[i].cells[j];
			char label[320], ms[NT_FMT_MS_LEN];

			if (c->note[0])
				fprintf(out, "%s%s%s, %s: %s\n",
					head ? "" : "\nnotes and findings:\n", bullet, g[i].release,
					run_label(c, with_run, label, sizeof(label)), c->note);
			head = head || c->note[0];
			for (unsigned k = 0; k < c->n_findings; k++) {
				const struct nt_kernels_finding *f = &c->findings[k];

				fprintf(out,
					"%s%sfinding: %s, %s, round %u: measured %s, the model for "
					"this kernel predicted %s; header->ACK %s; %s; model: "
					"%s\n",
					head ? "" : "\nnotes and findings:\n", bullet, g[i].release,
					run_label(c, with_run, label, sizeof(label)), f->round,
					f->measured, f->predicted,
					nt_known(f->gap_ns) ? nt_fmt_ms(f->gap_ns, ms, sizeof(ms))
							    : "-",
					f->evidence, f->why);
				head = true;
			}
		}
}

static const char *secs(int64_t ns, char *buf, size_t len)
{
	if (!nt_known(ns))
		return "-";
	return nt_fmt_s_digits(ns, 1, buf, len);
}

static void text_guest(FILE *out, const struct nt_kernels_guest *g, bool with_run)
{
	char label[320], v[128], st[64], m[128], boot[32], wall[32];

	for (unsigned j = 0; g->cells && j < g->n_cells; j++) {
		const struct nt_kernels_cell *c = &g->cells[j];

		fprintf(out, "%-24s %-28s %-30s %-16s %s\n", j ? "" : g->release,
			run_label(c, with_run, label, sizeof(label)),
			c->note[0] ? "-" : verdicts_text(c, v, sizeof(v)),
			stall_text(c, st, sizeof(st)), model_text(c, m, sizeof(m)));
	}
	if (g->error[0])
		fprintf(out, "%-24s %s\n", g->n_cells ? "" : g->release, g->error);
	fprintf(out, "%-24s %s: booted in %s s, %s s in all\n", "", g->accel ? g->accel : "-",
		secs(g->boot_ns, boot, sizeof(boot)),
		nt_fmt_s_digits(g->wall_ns, 1, wall, sizeof(wall)));
}

static void options_line(FILE *out, const struct nt_kernels_guest *g, unsigned n)
{
	const char *run = one_run(g, n);

	if (run)
		fprintf(out, "trace options: %s\n", run[0] ? run : "(the defaults)");
}

int nt_kernels_text(FILE *out, const struct nt_kernels_guest *g, unsigned n)
{
	bool with_run = !one_run(g, n);

	options_line(out, g, n);
	fprintf(out, "%-24s %-28s %-30s %-16s %s\n", "kernel", "variant", "verdicts", "stall ms",
		"the model for that kernel");
	for (unsigned i = 0; i < n; i++)
		text_guest(out, &g[i], with_run);
	text_findings(out, g, n, "");
	return ferror(out) ? -EIO : 0;
}

int nt_kernels_markdown(FILE *out, const struct nt_kernels_guest *g, unsigned n)
{
	bool with_run = !one_run(g, n);

	options_line(out, g, n);
	fputs("| kernel | variant | verdicts | stall ms | the model for that kernel |\n"
	      "| --- | --- | --- | --- | --- |\n",
	      out);
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; g[i].cells && j < g[i].n_cells; j++) {
			const struct nt_kernels_cell *c = &g[i].cells[j];
			char label[320], v[128], st[64], m[128];

			fprintf(out, "| %s | `%s` | %s | %s | %s |\n", g[i].release,
				run_label(c, with_run, label, sizeof(label)),
				c->note[0] ? c->note : verdicts_text(c, v, sizeof(v)),
				stall_text(c, st, sizeof(st)), model_text(c, m, sizeof(m)));
		}
		if (g[i].error[0])
			fprintf(out, "| %s | - | %s | - | - |\n", g[i].release, g[i].error);
	}
	text_findings(out, g, n, "- ");
	return ferror(out) ? -EIO : 0;
}
