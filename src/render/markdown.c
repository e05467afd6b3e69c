// SPDX-License-Identifier: MIT
/*
 * markdown.c - a paste-ready report for an incident writeup or an issue.
 *
 * GitHub/GitLab flavoured Markdown: a header line, a table of rounds (or of
 * variants), the representative round's text timeline in a ```text block,
 * a ```mermaid sequenceDiagram of that round, and the why and the fix.
 *
 * Mermaid message text is free text up to the end of the line, but the
 * sequence grammar still reads ';' as a statement separator and '#' as the
 * start of an entity code (#59;), and "->" or "--" inside a text can be taken
 * for an arrow in older releases: nt_escape_mermaid() replaces them all. A
 * participant's alias (`participant C as Client 192.0.2.1:40000`) is such
 * text too, so it may hold ':' and an IPv6 address's brackets. The stall,
 * from the header to the ACK that ends it, is a highlighted rect block.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/predict_words.h"
#include "nt/render/render.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/pick.h"
#include "nt/render/spool.h"
#include "nt/render/why.h"

static void header_line(FILE *out, const struct nt_record *run)
{
	const struct nt_record_config *c = &run->cfg;
	char path[128];

	fprintf(out,
		"Linux %s, variant `%s`, header %" PRIu32 " B + body %" PRIu32 " B, reply %" PRIu32
		" B, %u rounds, capture %s on %s%s%s%s\n",
		c->kernel, c->variant, c->shape.header_bytes, c->shape.body_bytes,
		c->shape.reply_bytes, c->shape.rounds, c->capture, c->ifname,
		c->rtt_ns > 0 ? "; " : "", nt_label_path(c, path, sizeof(path)),
		run->interrupted ? " (interrupted before it finished)" : "");
}

static void round_row(FILE *out, const struct nt_round *r)
{
	bool stalled = r->verdict == NT_VERDICT_STALLED;
	char a[32], b[32];

	fprintf(out, "| %u | %s%s%s | %s | %s |\n", r->index, stalled ? "**" : "",
		nt_verdict_name(r->verdict), stalled ? "**" : "",
		nt_fmt_ms(r->rtt_ns, a, sizeof(a)), nt_fmt_ms(r->gap_ns, b, sizeof(b)));
}

static void summary_line(FILE *out, const struct nt_record *run)
{
	const struct nt_summary *s = &run->summary;
	char v[128], p50[32], p90[32], p99[32], max[32];
	char reason[NT_LABEL_EXPECTATION_LEN];

	fprintf(out,
		"\n%u rounds: %s; round trip p50 %s, p90 %s, p99 %s, max %s. Expectation (%s): %s",
		s->rounds, nt_label_verdicts(s, v, sizeof(v)),
		nt_fmt_ms(s->rtt_p50_ns, p50, sizeof(p50)),
		nt_fmt_ms(s->rtt_p90_ns, p90, sizeof(p90)),
		nt_fmt_ms(s->rtt_p99_ns, p99, sizeof(p99)),
		nt_fmt_ms(s->rtt_max_ns, max, sizeof(max)), nt_expect_name(run->cfg.expect),
		run->expectation_met ? "**met**" : "**NOT met**: ");
	if (!run->expectation_met)
		nt_escape_md_cell(
			out, nt_label_expectation(&run->expectation_why, reason, sizeof(reason)));
	fputs(".\n", out);
}

static void compare_table(FILE *out, const struct nt_record *runs, unsigned n_runs)
{
	fputs("\n| variant | verdicts | p50 RTT | p90 RTT | p99 RTT | max RTT | expectation met "
	      "|\n",
	      out);
	fputs("| --- | --- | ---: | ---: | ---: | ---: | --- |\n", out);
	for (unsigned i = 0; i < n_runs; i++) {
		const struct nt_record *run = &runs[i];
		const struct nt_summary *s = &run->summary;
		char v[128], p50[32], p90[32], p99[32], max[32];

		fprintf(out, "| `%s` | ", run->cfg.variant);
		nt_escape_md_cell(out, nt_label_verdicts(s, v, sizeof(v)));
		fprintf(out, " | %s | %s | %s | %s | %s (%s) |\n",
			nt_fmt_ms(s->rtt_p50_ns, p50, sizeof(p50)),
			nt_fmt_ms(s->rtt_p90_ns, p90, sizeof(p90)),
			nt_fmt_ms(s->rtt_p99_ns, p99, sizeof(p99)),
			nt_fmt_ms(s->rtt_max_ns, max, sizeof(max)),
			run->expectation_met ? "yes" : "**no**", nt_expect_name(run->cfg.expect));
	}
}

static void mermaid_event(FILE *out, const struct nt_event *e, int64_t t0)
{
	char label[64], rel[NT_FMT_MS_LEN];

	nt_fmt_ms_digits(e->t_ns - t0, 3, rel, sizeof(rel));
	if (e->kind == NT_EVENT_SYSCALL) {
		fprintf(out, "    Note %s: ",
			e->sys.side == NT_SIDE_CLIENT ? "left of C" : "right of T");
		nt_escape_mermaid(out, nt_label_call(e->sys.call));
		fprintf(out, " = %" PRId64 " (+%s ms)\n", e->sys.bytes, rel);
		return;
	}
	fputs(e->seg.dir == NT_DIR_C2T ? "    C->>T: " : "    T->>C: ", out);
	nt_escape_mermaid(out, nt_label_segment(&e->seg, label, sizeof(label)));
	fprintf(out, " (+%s ms)\n", rel);
}

static void participant(FILE *out, const char *id, const char *name,
			const struct nt_record_config *c, const char *addr, uint16_t port)
{
	bool v6 = c->family == AF_INET6;

	fprintf(out, "    participant %s as %s %s", id, name, v6 ? "[" : "");
	nt_escape_mermaid(out, addr);
	fprintf(out, "%s:%u\n", v6 ? "]" : "", port);
}

/* The round as a sequence diagram; times are the capture point's (--capture-at: the client's end by default). */
static void mermaid_round(FILE *out, const struct nt_record *run, const struct nt_round_view *rv)
{
	const struct nt_record_config *c = &run->cfg;
	const struct nt_round *r = rv->round;
	int64_t t0 = nt_round_view_origin(rv);
	bool stalled = r->verdict == NT_VERDICT_STALLED && r->marks.h >= 0 && r->marks.a >= 0;
	char ms[NT_FMT_MS_LEN];

	fputs("\n```mermaid\nsequenceDiagram\n", out);
	participant(out, "C", "Client", c, c->client_addr, c->client_port);
	participant(out, "T", "Target", c, c->target_addr, c->target_port);
	for (size_t i = 0; i < rv->n; i++) {
		const struct nt_event *e = &rv->ev[i];

		if (stalled && (long)i == r->marks.h)
			fputs("    rect rgb(253, 227, 230)\n", out);
		if (stalled && (long)i == r->marks.a)
			fprintf(out,
				"    Note over C,T: %s ms stall<br/>body held by Nagle,<br/>ACK "
				"delayed\n",
				nt_fmt_ms_digits(r->gap_ns, 1, ms, sizeof(ms)));
		mermaid_event(out, e, t0);
		if (stalled && (long)i == r->marks.a)
			fputs("    end\n", out);
	}
	fputs("```\n", out);
}

static int round_section(FILE *out, const struct nt_record *run, const struct nt_pick *pick)
{
	struct nt_round_view rv;
	const struct nt_round *r;
	char gap[NT_FMT_MS_LEN], release[NT_FMT_MS_LEN];
	char *text;

	if (!nt_pick_get(pick, &rv))
		return 0;
	r = rv.round;
	fprintf(out, "\n### Round %u of `%s`: %s\n", r->index, run->cfg.variant,
		nt_verdict_name(r->verdict));
	if (r->verdict == NT_VERDICT_STALLED)
		fprintf(out,
			"\nThe header's ACK came %s ms after the header; the body left "
			"%s ms after that ACK.\n",
			nt_fmt_ms_digits(r->gap_ns, 3, gap, sizeof(gap)),
			nt_fmt_ms_digits(r->release_ns >= 0 ? r->release_ns : 0, 3, release,
					 sizeof(release)));
	fprintf(out,
		"\nTimes relative to the round's first write, seq/ack relative, captured at the "
		"%s.\n",
		run->cfg.capture_at ? run->cfg.capture_at : "client");
	if (nt_text_round_block(run, &rv, &text) < 0)
		return -ENOMEM;
	fprintf(out, "\n```text\n%s\n```\n", text);
	free(text);
	mermaid_round(out, run, &rv);
	return 0;
}

static void explain(FILE *out, const struct nt_record *run)
{
	const char *why, *delayed, *fix;
	struct nt_predict_words words;
	char line[512];

	nt_render_explain(run, &why, &delayed, &fix);
	if (!why) {
		fputs("\nNo round stalled: nothing held the body until a delayed ACK.\n", out);
	} else {
		fprintf(out, "\n**Why:** %s, and %s.\n", why, delayed);
		if (run->summary.verdicts[NT_VERDICT_STALLED] &&
		    nt_label_stall_cost(&run->cfg, run->summary.stall_min_ns,
					run->summary.stall_max_ns, line, sizeof(line))[0])
			fprintf(out, "\n**Stall cost:** %s.\n", line);
		fprintf(out, "\n**Fix:** %s.\n", fix);
	}
	/* The legend line of the model (docs/model.md): how it fared, and this variant's why. */
	if (run->predicting) {
		fprintf(out, "\n**Model:** %s.\n", nt_why_model_line(run, line, sizeof(line)));
		fprintf(out, "\n**This variant:** %s (`%s`).\n",
			nt_predict_words(&run->fix, &words), nt_predict_rule_name(run->fix.rule));
	}
}

/*
 * The document opens with the verdict counts, known at the end: each run's
 * rows go to a spool file meanwhile, and the one round shown is kept.
 */
struct md_doc {
	struct nt_pick *picks;
	FILE *rows;
	FILE *disturbed;
};

static int md_open(struct nt_renderer *r)
{
	struct md_doc *d = calloc(1, sizeof(*d));

	r->state = d;
	if (!d)
		return -ENOMEM;
	d->picks = nt_picks_new(r->n_runs);
	if (!d->picks)
		return -ENOMEM;
	if (r->n_runs == 1) {
		d->rows = nt_spool_new();
		if (!d->rows)
			return -errno;
		d->disturbed = nt_spool_new();
		if (!d->disturbed)
			return -errno;
	}
	return 0;
}

static void md_close(struct nt_renderer *r)
{
	struct md_doc *d = r->state;

	if (!d)
		return;
	nt_picks_free(d->picks, r->n_runs);
	if (d->rows)
		fclose(d->rows);
	if (d->disturbed)
		fclose(d->disturbed);
	free(d);
}

static int md_round(struct nt_renderer *r, const struct nt_record *run,
		    const struct nt_round_view *rv)
{
	struct md_doc *d = r->state;

	(void)run;
	if (d->rows) {
		round_row(d->rows, rv->round);
		if (ferror(d->rows))
			return nt_spool_error(d->rows);
	}
	/* A round the model replayed on the observed schedule is named below the table. */
	if (d->disturbed && rv->predicted && rv->predicted->disturbed) {
		fprintf(d->disturbed, "- round %u: %s\n", rv->round->index,
			rv->predicted->disturbed_text);
		if (ferror(d->disturbed))
			return nt_spool_error(d->disturbed);
	}
	return nt_picks_offer(d->picks, r->n_runs, r->run, rv);
}

static int md_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs)
{
	struct md_doc *d = r->state;
	FILE *out = r->out;
	const struct nt_record *shown;
	unsigned pick;
	char v[128], path[128];
	int ret;

	if (!n_runs)
		return 0;
	pick = nt_pick_first_stalling(runs, n_runs);
	shown = &runs[pick];
	if (r->n_runs == 1) {
		fprintf(out, "## nagle-trace: %s\n\n",
			nt_label_verdicts(&shown->summary, v, sizeof(v)));
		header_line(out, shown);
		fputs("\n| round | verdict | round trip | header→ACK gap |\n", out);
		fputs("| ---: | --- | ---: | ---: |\n", out);
		ret = nt_spool_copy(d->rows, 0, -1, out, false);
		if (ret < 0)
			return ret;
		summary_line(out, shown);
		if (ftell(d->disturbed) > 0) {
			fputs("\n**Disturbed rounds** (judged on the schedule the programs kept, "
			      "docs/model.md):\n\n",
			      out);
			ret = nt_spool_copy(d->disturbed, 0, -1, out, false);
			if (ret < 0)
				return ret;
		}
	} else {
		fprintf(out, "## nagle-trace: %u variants compared\n\n", n_runs);
		fprintf(out,
			"Linux %s, header %" PRIu32 " B + body %" PRIu32 " B, reply %" PRIu32
			" B, %u rounds per variant, each in its own lab%s%s\n",
			shown->cfg.kernel, shown->cfg.shape.header_bytes,
			shown->cfg.shape.body_bytes, shown->cfg.shape.reply_bytes,
			shown->cfg.shape.rounds, shown->cfg.rtt_ns > 0 ? "; " : "",
			nt_label_path(&shown->cfg, path, sizeof(path)));
		compare_table(out, runs, n_runs);
	}
	ret = round_section(out, shown, &d->picks[pick]);
	if (ret < 0)
		return ret;
	explain(out, shown);
	return ferror(out) ? -EIO : 0;
}

const struct nt_trace_doc nt_markdown_trace = {
	.open = md_open,
	.round = md_round,
	.finish = md_finish,
	.close = md_close,
};
