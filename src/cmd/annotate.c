// SPDX-License-Identifier: MIT
/*
 * annotate.c - analyze --annotate (see nt/cmd/annotate.h): the model's
 * stalls, the renderers' words and the capture's copier, joined.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt/capture/pcapng_copy.h"
#include "nt/cmd/annotate.h"
#include "nt/output.h"
#include "nt/render/annotate.h"

/* The section comment: a few lines, one per input beyond them. */
#define SUMMARY_LEN 16384

void nt_annotate_init(struct nt_annotate *a, const char *path, struct nt_analysis *an)
{
	memset(a, 0, sizeof(*a));
	a->path = path;
	if (path)
		an->annot = &a->list;
}

/* Copies standard input to an unnamed temporary file, left at its start. */
static int spool_stdin(struct nt_annotate *a, struct nt_err *err)
{
	char buf[65536];
	ssize_t n;

	a->stdin_spool = tmpfile();
	if (!a->stdin_spool)
		return nt_err_set(err, -errno, "--annotate: a temporary copy of standard input");
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return nt_err_set(err, -errno, "read standard input");
		if (fwrite(buf, 1, (size_t)n, a->stdin_spool) != (size_t)n)
			return nt_err_set(err, -EIO,
					  "--annotate: a temporary copy of standard input");
	}
	if (fflush(a->stdin_spool) == EOF)
		return nt_err_set(err, -errno, "--annotate: a temporary copy of standard input");
	return 0;
}

/* A reader over the spool from its start; the spool itself stays open for the next. */
static int open_spool(struct nt_annotate *a, struct nt_pcap_file **out, struct nt_err *err)
{
	int fd;
	FILE *fp;

	if (lseek(fileno(a->stdin_spool), 0, SEEK_SET) < 0)
		return nt_err_set(err, -errno, "read standard input");
	fd = dup(fileno(a->stdin_spool));
	fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!fp) {
		int e = -errno;

		if (fd >= 0)
			close(fd);
		return nt_err_set(err, e, "read standard input");
	}
	return nt_pcap_file_fopen(fp, "standard input", out, err);
}

int nt_annotate_open_input(struct nt_annotate *a, const char *path, struct nt_pcap_file **out,
			   struct nt_err *err)
{
	int ret;

	*out = NULL;
	if (!a->path || strcmp(path, "-") != 0)
		return nt_pcap_file_open(path, out, err);
	if (!a->stdin_spool) {
		ret = spool_stdin(a, err);
		if (ret < 0)
			return ret;
	}
	return open_spool(a, out, err);
}

/**
 * struct copy_ctx - the comments of one input being copied
 * @list: the stalls and their marks
 * @file: the input's index
 * @base: output frame number of its frame 0
 * @text: one buffer per comment of a frame
 */
struct copy_ctx {
	struct nt_annot_list *list;
	uint32_t file;
	uint64_t base;
	char text[NT_PCAPNG_COMMENTS_MAX][NT_ANNOT_TEXT_LEN];
};

static size_t stall_comments(void *ctx, uint64_t frame, uint64_t out_frame,
			     const struct nt_frame *f, const char **texts, size_t max)
{
	struct copy_ctx *c = ctx;
	const struct nt_annot_mark *m;
	size_t n = nt_annot_at(c->list, c->file, frame, &m);

	(void)out_frame;
	(void)f;
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		texts[i] = nt_annot_stall_text(&c->list->stalls[m[i].stall], m[i].role, c->base,
					       c->text[i], sizeof(c->text[i]));
	return n;
}

/* Never write over an input: the same file under another name included. */
static int check_not_input(const char *out, const struct nt_analysis *an, struct nt_err *err)
{
	struct stat so, si;

	if (stat(out, &so) < 0)
		return 0;
	for (size_t i = 0; i < an->n_files; i++)
		if (strcmp(an->files[i].path, "-") != 0 && stat(an->files[i].path, &si) == 0 &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return nt_err_set(err, 0, "--annotate: \"%s\" is an input", out);
	return 0;
}

/* Copies input @i; the analysis's own frame count must come out again. */
static int copy_input(struct nt_annotate *a, const struct nt_analysis *an, size_t i,
		      const char *filter, struct nt_pcapng_copy *cp, struct copy_ctx *ctx,
		      struct nt_err *err)
{
	const struct nt_analysis_file *af = &an->files[i];
	struct nt_err ignored = { "" };
	struct nt_pcap_file *f;
	int64_t n;

	/* Inputs the analysis could not open or filter add no frames here either. */
	if (af->linktype < 0 || nt_annotate_open_input(a, af->path, &f, &ignored) < 0)
		return 0;
	if (filter && nt_pcap_file_set_filter(f, filter, &ignored) < 0) {
		nt_pcap_file_close(f);
		return 0;
	}
	ctx->file = (uint32_t)i;
	/* As many as the analysis read: all, or fewer under -c (none: nothing to copy). */
	n = af->packets ? nt_pcapng_copy_frames(cp, f, af->packets, stall_comments, ctx) : 0;
	nt_pcap_file_close(f);
	if (n < 0)
		return nt_err_set(err, (int)n, "write \"%s\"", a->path);
	if ((uint64_t)n != af->packets)
		return nt_err_set(err, 0, "--annotate: \"%s\" changed between its two readings",
				  af->path);
	ctx->base += (uint64_t)n;
	return 0;
}

static int write_file(struct nt_annotate *a, const struct nt_analysis *an, const char *filter,
		      const char *summary, struct nt_err *err)
{
	struct copy_ctx *ctx = calloc(1, sizeof(*ctx));
	const char *comments[] = { summary };
	struct nt_output out = { 0 };
	struct nt_pcapng_copy cp;
	int ret;

	if (!ctx)
		return nt_err_set(err, -ENOMEM, "--annotate");
	ctx->list = &a->list;
	ret = nt_output_open(&out, a->path, NT_OUTPUT_DOCUMENT, err);
	if (ret < 0)
		goto free_ctx;
	ret = nt_pcapng_copy_begin(&cp, out.fp, comments, 1, NULL);
	if (ret < 0)
		ret = nt_err_set(err, ret, "write \"%s\"", a->path);
	for (size_t i = 0; ret == 0 && i < an->n_files; i++)
		ret = copy_input(a, an, i, filter, &cp, ctx, err);
	if (ret == 0)
		ret = nt_output_commit(&out, err);
	else
		nt_output_abort(&out);
free_ctx:
	free(ctx);
	return ret;
}

int nt_annotate_write(struct nt_annotate *a, const struct nt_analysis *an, const char *filter,
		      struct nt_err *err)
{
	uint64_t *base;
	char *summary;
	int ret;

	if (!a->path)
		return 0;
	ret = check_not_input(a->path, an, err);
	if (ret < 0)
		return ret;
	if (nt_annot_finish(&a->list) < 0)
		return nt_err_set(err, -ENOMEM, "--annotate");
	base = calloc(an->n_files + 1, sizeof(*base));
	summary = malloc(SUMMARY_LEN);
	if (!base || !summary) {
		ret = nt_err_set(err, -ENOMEM, "--annotate");
		goto free_all;
	}
	for (size_t i = 0; i < an->n_files; i++)
		base[i + 1] = base[i] + an->files[i].packets;
	nt_annot_analysis_summary(an, &a->list, base, summary, SUMMARY_LEN);
	ret = write_file(a, an, filter, summary, err);
free_all:
	free(base);
	free(summary);
	return ret;
}

void nt_annotate_fini(struct nt_annotate *a)
{
	nt_annot_fini(&a->list);
	if (a->stdin_spool)
		fclose(a->stdin_spool);
	a->stdin_spool = NULL;
}
