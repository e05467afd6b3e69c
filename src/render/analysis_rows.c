// SPDX-License-Identifier: MIT
/*
 * analysis_rows.c - the rows of analyze's table of flows (see
 * analysis_rows.h).
 */
#include "analysis_rows.h"

#include "nt/prefetch.h"
#include "nt/render/chunks.h"

/**
 * struct rows_ctx - what the threads rendering the rows read
 * @an: the analysis
 * @worst: the worst flow's row
 * @row: the markup's row
 */
struct rows_ctx {
	const struct nt_analysis *an;
	size_t worst;
	flow_row_fn row;
};

static void flow_cells(const struct nt_analysis *an, const struct nt_flow_result *r,
		       struct flow_cells *c)
{
	nt_fmt_endpoint(r->family, r->client_addr, r->client_port, c->client, sizeof(c->client));
	nt_fmt_endpoint(r->family, r->target_addr, r->target_port, c->target, sizeof(c->target));
	nt_label_lost(r->wall_min.total_ns, r->wall.total_ns, c->lost, sizeof(c->lost));
	nt_label_p50(r, c->p50, sizeof(c->p50));
	nt_fmt_ms_trunc(r->max_ns, c->max, sizeof(c->max));
	nt_label_occurrence(an, r, &r->first, c->first, sizeof(c->first));
	nt_label_occurrence(an, r, &r->last, c->last, sizeof(c->last));
}

static int row_item(FILE *out, void *state, const void *ctx, size_t i)
{
	const struct rows_ctx *c = ctx;
	const struct nt_flow_result *r = c->an->flows[i];
	struct flow_cells cell;
	struct out_buf b;

	(void)state;
	flow_cells(c->an, r, &cell);
	out_buf_init(&b, out);
	c->row(&b, r, &cell, i == c->worst);
	out_buf_flush(&b);
	return 0;
}

/* Flow @i's report, up to the unions a row reads last (nt_chunks_ops.ahead). */
static void row_ahead(const void *ctx, size_t i)
{
	const struct nt_flow_result *r = ((const struct rows_ctx *)ctx)->an->flows[i];

	nt_prefetch_read(r, &r->wall_min + 1);
}

static const struct nt_chunks_ops row_ops = { .item = row_item, .ahead = row_ahead };

int analysis_rows_write(FILE *out, const struct nt_analysis *an, int worst, unsigned workers,
			flow_row_fn row)
{
	const struct rows_ctx ctx = { .an = an, .worst = (size_t)worst, .row = row };

	return nt_chunks_write(out, an->n_flows, workers, &row_ops, &ctx);
}
