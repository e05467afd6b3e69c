// SPDX-License-Identifier: MIT
/*
 * trace_export.c - a live run's extra files: -w as pcap or annotated
 * pcapng, --export-packetdrill (see nt/cmd/trace_export.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nt/capture/pcapng_copy.h"
#include "nt/cmd/trace_export.h"
#include "nt/model/annotate.h"
#include "nt/render/annotate.h"

#define SUMMARY_LEN 2048

static bool is_pcapng(const char *path)
{
	size_t n = strlen(path);

	return n >= 7 && strcasecmp(path + n - 7, ".pcapng") == 0;
}

int nt_trace_export_open_pcap(struct nt_trace_export *x, const char *path,
			      struct nt_pcap_writer **w, struct nt_err *err)
{
	int ret;

	*w = NULL;
	if (!is_pcapng(path))
		return nt_pcap_writer_new(path, w, err);
	x->pcapng = true;
	ret = nt_output_open(&x->ng, path, NT_OUTPUT_DOCUMENT, err);
	if (ret < 0)
		return ret;
	x->marks = tmpfile();
	if (!x->marks)
		return nt_err_set(err, -errno, "write \"%s\": a temporary file", path);
	return nt_pcap_writer_new_spool(w, err);
}

/* The variant's write steps as the script writes them (its pauses are in the times). */
static void client_of(const struct nt_variant *v, struct nt_pkt_client *c)
{
	memset(c, 0, sizeof(*c));
	c->nodelay = v->client_nodelay;
	for (unsigned i = 0; i < v->n_ops && c->n_steps < NT_PKT_STEPS_MAX; i++) {
		static const int step[] = {
			[NT_OP_WRITE_HEADER] = NT_PKT_WRITE_HEADER,
			[NT_OP_WRITE_BODY] = NT_PKT_WRITE_BODY,
			[NT_OP_WRITE_BOTH] = NT_PKT_WRITE_BOTH,
			[NT_OP_WRITEV] = NT_PKT_WRITEV,
			[NT_OP_SEND_HEADER_MORE] = NT_PKT_SEND_HEADER_MORE,
			[NT_OP_CORK_ON] = NT_PKT_CORK_ON,
			[NT_OP_CORK_OFF] = NT_PKT_CORK_OFF,
			[NT_OP_GAP] = -1,
		};

		if (step[v->ops[i]] >= 0)
			c->steps[c->n_steps++] = (enum nt_pkt_step)step[v->ops[i]];
	}
}

int nt_trace_export_open_pkt(struct nt_trace_export *x, const char *path,
			     const struct nt_variant *v, struct nt_err *err)
{
	int ret;

	ret = nt_output_open(&x->pkt_out, path, NT_OUTPUT_DOCUMENT, err);
	if (ret < 0)
		return ret;
	x->pkt = true;
	client_of(v, &x->client);
	return 0;
}

static int on_begin(void *ctx, const struct nt_record *run, const struct nt_round_view *hs)
{
	struct nt_trace_export *x = ctx;

	if (x->pkt && hs->n && !x->hs) {
		x->hs = malloc(hs->n * sizeof(*x->hs));
		if (x->hs) {
			memcpy(x->hs, hs->ev, hs->n * sizeof(*x->hs));
			x->n_hs = hs->n;
		} else if (!x->error) {
			x->error = -ENOMEM;
		}
	}
	return x->next->begin ? x->next->begin(x->next->ctx, run, hs) : 0;
}

static int on_round(void *ctx, const struct nt_record *run, const struct nt_round_view *rv)
{
	struct nt_trace_export *x = ctx;

	if (x->pcapng && !x->error) {
		struct nt_annot_round_mark m[NT_ANNOT_ROLE_COUNT];
		size_t n = nt_annot_round_marks(rv, m);

		if (n && fwrite(m, sizeof(m[0]), n, x->marks) != n)
			x->error = -EIO;
	}
	if (x->pkt && nt_pick_offer(&x->pick, rv) < 0 && !x->error)
		x->error = -ENOMEM;
	return x->next->round ? x->next->round(x->next->ctx, run, rv) : 0;
}

static int on_end(void *ctx, const struct nt_record *run, const struct nt_round_view *teardown)
{
	struct nt_trace_export *x = ctx;

	return x->next->end ? x->next->end(x->next->ctx, run, teardown) : 0;
}

const struct nt_record_sink *nt_trace_export_sink(struct nt_trace_export *x,
						  const struct nt_record_sink *next)
{
	if (!x->pcapng && !x->pkt)
		return next;
	x->next = next;
	x->sink = (struct nt_record_sink){ on_begin, on_round, on_end, x };
	return &x->sink;
}

/**
 * struct mark_cursor - the spooled marks, read along the frames
 * @fp: the spool
 * @next: the next record not yet used
 * @have: @next holds a record
 * @text: one buffer per comment of a frame
 */
struct mark_cursor {
	FILE *fp;
	struct nt_annot_round_mark next;
	bool have;
	char text[NT_PCAPNG_COMMENTS_MAX][NT_ANNOT_TEXT_LEN];
};

/*
 * The marks were spooled in capture order (a round's H, A, B sorted, and
 * every segment of round k before round k + 1's header). Each frame takes
 * the records stamped with its own timestamp; the kernel stamps each frame
 * of the connection separately, in nanoseconds.
 */
static size_t round_comments(void *ctx, uint64_t frame, uint64_t out_frame,
			     const struct nt_frame *f, const char **texts, size_t max)
{
	struct mark_cursor *c = ctx;
	size_t n = 0;

	(void)frame;
	(void)out_frame;
	for (;;) {
		if (!c->have)
			c->have = fread(&c->next, sizeof(c->next), 1, c->fp) == 1;
		if (!c->have || c->next.t_ns > f->t_ns)
			return n;
		if (c->next.t_ns == f->t_ns && n < max) {
			texts[n] = nt_annot_round_text(&c->next, c->text[n], sizeof(c->text[n]));
			n++;
		}
		if (c->next.t_ns == f->t_ns && c->next.late_ns > 0 && n < max) {
			snprintf(c->text[n], sizeof(c->text[n]),
				 NT_PCAPNG_LATE_PREFIX "%lld" NT_PCAPNG_LATE_UNIT,
				 (long long)c->next.late_ns);
			texts[n] = c->text[n];
			n++;
		}
		if (c->next.t_ns == f->t_ns && c->next.write_lead_ns != NT_ANNOT_NO_WRITE &&
		    n < max) {
			int64_t lead = c->next.write_lead_ns;

			snprintf(c->text[n], sizeof(c->text[n]), NT_PCAPNG_WRITE_PREFIX "%lld%s",
				 (long long)(lead < 0 ? -lead : lead),
				 lead < 0 ? NT_PCAPNG_WRITE_AFTER : NT_PCAPNG_WRITE_BEFORE);
			texts[n] = c->text[n];
			n++;
		}
		c->have = false;
	}
}

static int write_pcapng(struct nt_trace_export *x, struct nt_pcap_writer *w,
			const struct nt_record *run, struct nt_err *err)
{
	FILE *spool = nt_pcap_writer_finish_spool(w, err);
	struct mark_cursor *cur = calloc(1, sizeof(*cur));
	char summary[SUMMARY_LEN];
	const char *comments[] = { summary };
	struct nt_pcap_file *f = NULL;
	struct nt_pcapng_copy cp;
	int64_t n;
	int ret;

	if (!spool || !cur) {
		ret = spool ? nt_err_set(err, -ENOMEM, "-w") : -EIO;
		goto close;
	}
	ret = nt_pcap_file_fopen(spool, "capture spool", &f, err);
	spool = NULL; /* the reader owns it, even on failure */
	if (ret < 0)
		goto close;
	rewind(x->marks);
	cur->fp = x->marks;
	nt_annot_run_summary(run, summary, sizeof(summary));
	ret = nt_pcapng_copy_begin(&cp, x->ng.fp, comments, 1, run->cfg.ifname);
	n = ret < 0 ? ret : nt_pcapng_copy_frames(&cp, f, 0, round_comments, cur);
	ret = n < 0 ? nt_err_set(err, (int)n, "write the -w file") : 0;
close:
	nt_pcap_file_close(f);
	if (spool)
		fclose(spool);
	free(cur);
	return ret;
}

static int write_pkt(struct nt_trace_export *x, const struct nt_record *run, struct nt_err *err)
{
	struct nt_round_view hs = { .ev = x->hs, .n = x->n_hs }, rv;
	int ret;

	if (!nt_pick_get(&x->pick, &rv))
		return nt_err_set(err, 0, "--export-packetdrill: the run has no round to export");
	ret = nt_render_packetdrill(x->pkt_out.fp, run, &hs, &rv, &x->client);
	if (ret == -EINVAL)
		return nt_err_set(err, 0, "--export-packetdrill: the capture lacks the handshake");
	return ret < 0 ? nt_err_set(err, ret, "--export-packetdrill") : 0;
}

int nt_trace_export_commit(struct nt_trace_export *x, struct nt_pcap_writer *w,
			   const struct nt_record *run, struct nt_err *err)
{
	int ret = x->error ? nt_err_set(err, x->error, "write the run's extra files") : 0;

	if (w && ret)
		nt_pcap_writer_abort(w);
	else if (w && !x->pcapng)
		ret = nt_pcap_writer_commit(w, err);
	else if (w)
		ret = write_pcapng(x, w, run, err);
	if (!ret && x->pcapng)
		ret = nt_output_commit(&x->ng, err);
	if (!ret && x->pkt)
		ret = write_pkt(x, run, err);
	if (!ret && x->pkt)
		ret = nt_output_commit(&x->pkt_out, err);
	nt_trace_export_abort(x, NULL);
	return ret;
}

void nt_trace_export_abort(struct nt_trace_export *x, struct nt_pcap_writer *w)
{
	nt_pcap_writer_abort(w);
	nt_output_abort(&x->ng);
	nt_output_abort(&x->pkt_out);
	if (x->marks)
		fclose(x->marks);
	x->marks = NULL;
	nt_pick_fini(&x->pick);
	free(x->hs);
	x->hs = NULL;
	x->n_hs = 0;
}
