// SPDX-License-Identifier: MIT
/*
 * kernels_json.c - `nagle-trace kernels --format json`: each kernel with its
 * cells and each run's trace document as the guest wrote it
 * (docs/nagle-trace-kernels.schema.json; the documents follow
 * docs/nagle-trace.schema.json).
 */
#include <errno.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "nt/render/json.h"
#include "nt/render/kernels.h"
#include "nt/unknown.h"

static struct json_object *finding_json(bool *oom, const struct nt_kernels_finding *f)
{
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "round", json_object_new_int64(f->round));
	nt_json_put_str(oom, o, "measured", f->measured);
	nt_json_put_str(oom, o, "predicted", f->predicted);
	nt_json_put_i64(oom, o, "header_ack_gap_ns", f->gap_ns, nt_known(f->gap_ns));
	nt_json_put_str(oom, o, "evidence", f->evidence);
	nt_json_put_str(oom, o, "why", f->why);
	return o;
}

static struct json_object *cell_json(bool *oom, const struct nt_kernels_cell *c)
{
	struct json_object *o = json_object_new_object(), *v = json_object_new_object();
	struct json_object *fs = json_object_new_array();

	nt_json_put_str(oom, o, "run", c->run);
	nt_json_put_str(oom, o, "variant", c->variant);
	nt_json_put(oom, o, "exit_status", json_object_new_int(c->status));
	if (c->note[0])
		nt_json_put_str(oom, o, "note", c->note);
	else
		nt_json_put_null(oom, o, "note");
	nt_json_put(oom, o, "unsupported", json_object_new_boolean(c->unsupported));
	nt_json_put(oom, o, "rounds", json_object_new_int64(c->rounds));
	for (unsigned k = 0; k < NT_VERDICT_COUNT; k++)
		nt_json_put(oom, v, nt_verdict_name((enum nt_verdict)k),
			    json_object_new_int64(c->counts[k]));
	nt_json_put(oom, o, "verdicts", v);
	nt_json_put_i64(oom, o, "stall_min_ns", c->stall_min_ns, nt_known(c->stall_min_ns));
	nt_json_put_i64(oom, o, "stall_max_ns", c->stall_max_ns, nt_known(c->stall_max_ns));
	nt_json_put_str(oom, o, "model", c->model);
	nt_json_put(oom, o, "rounds_not_as_predicted", json_object_new_int64(c->not_as_predicted));
	nt_json_put(oom, o, "expectation_met", json_object_new_boolean(c->met));
	for (unsigned k = 0; k < c->n_findings; k++)
		nt_json_append(oom, fs, finding_json(oom, &c->findings[k]));
	nt_json_put(oom, o, "findings", fs);
	return o;
}

static struct json_object *guest_json(bool *oom, const struct nt_kernels_guest *g)
{
	struct json_object *o = json_object_new_object(), *cells = json_object_new_array();
	struct json_object *runs = json_object_new_array();

	nt_json_put_str(oom, o, "image", g->image);
	nt_json_put_str(oom, o, "release", g->release);
	nt_json_put_str(oom, o, "accel", g->accel ? g->accel : "");
	nt_json_put_i64(oom, o, "boot_ns", g->boot_ns, nt_known(g->boot_ns));
	nt_json_put(oom, o, "wall_ns", json_object_new_int64(g->wall_ns));
	if (g->error[0])
		nt_json_put_str(oom, o, "error", g->error);
	else
		nt_json_put_null(oom, o, "error");
	for (unsigned j = 0; g->cells && j < g->n_cells; j++)
		nt_json_append(oom, cells, cell_json(oom, &g->cells[j]));
	nt_json_put(oom, o, "cells", cells);
	for (unsigned r = 0; r < g->n_runs; r++) {
		struct json_object *run = json_object_new_object();
		struct json_object *doc = g->docs[r] ? json_tokener_parse(g->docs[r]) : NULL;

		nt_json_put_str(oom, run, "args", g->run_args[r]);
		nt_json_put(oom, run, "exit_status", json_object_new_int(g->run_status[r]));
		if (doc)
			nt_json_put(oom, run, "trace", doc);
		else
			nt_json_put_null(oom, run, "trace");
		nt_json_append(oom, runs, run);
	}
	nt_json_put(oom, o, "runs", runs);
	return o;
}

int nt_kernels_json(FILE *out, const struct nt_kernels_guest *g, unsigned n)
{
	struct json_object *doc = json_object_new_object(), *ks = json_object_new_array();
	bool oom = false;
	int ret;

	nt_json_put(&oom, doc, "schema_version", json_object_new_int(NT_JSON_SCHEMA_KERNELS));
	nt_json_put(&oom, doc, "tool", nt_json_tool(&oom, "kernels"));
	for (unsigned i = 0; i < n; i++)
		nt_json_append(&oom, ks, guest_json(&oom, &g[i]));
	nt_json_put(&oom, doc, "kernels", ks);
	ret = oom ? -ENOMEM : nt_json_write(out, doc, 0);
	json_object_put(doc);
	if (ret == 0 && fputc('\n', out) == EOF)
		ret = -EIO;
	return ret;
}
