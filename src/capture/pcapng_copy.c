// SPDX-License-Identifier: MIT
/*
 * pcapng_copy.c - captures into one pcapng file with comments (see
 * nt/capture/pcapng_copy.h).
 */
#include <errno.h>
#include <string.h>

#include "nt/capture/pcapng_copy.h"
#include "nt/version.h"

int nt_pcapng_copy_begin(struct nt_pcapng_copy *c, FILE *fp, const char *const *comments,
			 size_t n_comments, const char *if_name)
{
	memset(c, 0, sizeof(*c));
	nt_pcapng_out_file(&c->out, fp);
	c->if_name = if_name;
	return nt_pcapng_put_shb(&c->out, comments, n_comments, "nagle-trace " NT_VERSION);
}

/* The interface of @in's frames: found, or written now. -E2BIG past the table. */
static int64_t interface_of(struct nt_pcapng_copy *c, int linktype, unsigned snaplen)
{
	for (uint32_t i = 0; i < c->n_ifs; i++)
		if (c->linktype[i] == linktype && c->snaplen[i] == snaplen)
			return i;
	if (c->n_ifs == NT_PCAPNG_COPY_IFS)
		return -E2BIG;
	if (nt_pcapng_put_idb(&c->out, (uint16_t)linktype, snaplen, c->if_name) < 0)
		return c->out.error;
	c->linktype[c->n_ifs] = linktype;
	c->snaplen[c->n_ifs] = snaplen;
	return c->n_ifs++;
}

int64_t nt_pcapng_copy_frames(struct nt_pcapng_copy *c, struct nt_pcap_file *in,
			      uint64_t max_frames, nt_pcapng_comment_fn comments, void *ctx)
{
	const char *texts[NT_PCAPNG_COMMENTS_MAX];
	struct nt_err ignored = { "" };
	struct nt_frame f;
	uint64_t n = 0;

	/* The file's first interface is written even when no frame follows. */
	if (interface_of(c, nt_pcap_file_linktype(in), nt_pcap_file_snaplen(in)) < 0)
		return c->out.error ? c->out.error : -E2BIG;
	/* Each frame goes to an interface of its own link type and snapshot length. */
	while ((!max_frames || n < max_frames) && nt_pcap_file_next(in, &f, &ignored) == 1) {
		int64_t if_id = interface_of(c, f.linktype, nt_pcap_file_snaplen(in));
		struct nt_pcapng_packet p = {
			/* A pcap timestamp counts from the epoch: never negative. */
			.t_ns = f.t_ns > 0 ? (uint64_t)f.t_ns : 0,
			.data = f.data,
			.caplen = f.caplen,
			.wirelen = f.wirelen,
			.comments = texts,
		};

		if (if_id < 0)
			return if_id;
		p.if_id = (uint32_t)if_id;
		n++;
		c->frames++;
		if (comments)
			p.n_comments =
				comments(ctx, n, c->frames, &f, texts, NT_PCAPNG_COMMENTS_MAX);
		if (nt_pcapng_put_epb(&c->out, &p) < 0)
			return c->out.error;
	}
	return (int64_t)n;
}
