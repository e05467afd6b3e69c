// SPDX-License-Identifier: MIT
/*
 * pcap_file.c - the capture file reader (see nt/capture/pcap_file.h).
 *
 * libpcap reads both pcap and pcapng (pcap_open_offline_with_tstamp_precision
 * sniffs the magic number), from a path or a stream. Asking for nanosecond
 * precision makes libpcap scale microsecond files, so frames always carry
 * ns. pcap_next_ex() returns PCAP_ERROR for a truncated record or a record
 * header whose caplen exceeds the file's snaplen limit; its text already says
 * what was wrong, we add which frame and where in the stream.
 *
 * libpcap reads each record with two fread() calls, and glibc's fread() takes
 * the FILE's lock: a locked instruction, which waits for every store still
 * in flight. Behind the analysis's stores to a flow table larger than the
 * cache that wait was half the time spent reading. The stream is private to
 * its pcap_t and we use it from one thread, so we turn the locking off
 * (__fsetlocking(), FSETLOCKING_BYCALLER).
 *
 * A pcapng file is not read by libpcap at all (nt/capture/pcapng_read.h
 * says why: it refuses interfaces of different link types or snapshot
 * lengths, and its timestamps wrap): its first four bytes, a Section Header
 * Block's type, send it to our own block reader, and each frame comes with
 * its own interface's link type. Every pcapng file goes that way, not only
 * those libpcap would refuse: telling them apart would mean reading the
 * file twice (impossible on standard input) or switching readers mid-file,
 * and one reader for the format gives every pcapng file the same checks,
 * times and messages. A filter is then compiled by libpcap once per link
 * type met (pcap_open_dead()) and run on each frame with
 * pcap_offline_filter(). The four bytes are read before libpcap sees the
 * stream: from a regular file we opened, with pread(2), which leaves the
 * file where it was (peek_head()); from anything else (standard input, a
 * FILE handed to us), by a stream of ours (fopencookie()) that hands them
 * out again first.
 *
 * A pcap record's seconds are unsigned 32-bit (the file format; tshark reads
 * them so), but libpcap reads them into a signed bpf_int32 (sf-pcap.c, struct
 * pcap_timeval) and hands 2038-2106 out as negative: they are taken back as
 * unsigned here, so every pcap time up to 2106-02-07 is read. A frame whose
 * time is still outside int64 nanoseconds since the epoch (a negative
 * fraction, a pcapng stamp past 2262) is damaged: it is counted and skipped,
 * the frames after it are read, and the file is reported damaged at the end
 * (exit 4) with the count and the first such frame.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt/capture/pcap_file.h"
#include "nt/capture/pcap_time.h"
#include "nt/capture/pcapng_read.h"

/* The bytes that tell pcapng from pcap: a Section Header Block's type. */
#define HEAD_BYTES 4

/* Frames a pcap_dispatch() call hands over at most. */
#define EACH_BATCH 4096u

/*
 * The stream's buffer. The file under it is unbuffered, so each refill is
 * one read(2) of this size straight into it: 256 KiB took a 149 MB file in
 * 570 reads, where glibc's default 8 KiB took 18,210 (a tenth of analyze's
 * time). glibc's setvbuf() ignores the size unless it is given the buffer.
 */
#define SOURCE_BUF_BYTES ((size_t)256 * 1024)

/* The snapshot length a filter is compiled for when an interface has none. */
#define FILTER_SNAPLEN 262144

/**
 * struct source - the stream the readers read
 * @fp: the file or stream it comes from
 * @head: its first bytes, read to tell pcapng from pcap, handed out again first
 * @n_head: how many
 * @given: of @head, how many were handed out again
 * @pos: bytes handed out so far (the stream's offset)
 */
struct source {
	FILE *fp;
	uint8_t head[HEAD_BYTES];
	size_t n_head;
	size_t given;
	uint64_t pos;
};

/**
 * struct ng_filter - the filter compiled for one link type of a pcapng file
 * @linktype: the link type
 * @ok: it compiled (else no frame of this link type matches)
 * @prog: the program
 */
struct ng_filter {
	int linktype;
	bool ok;
	struct bpf_program prog;
};

/**
 * struct nt_pcap_file - one capture file being read
 * @p: libpcap's reader of a pcap file, or NULL for pcapng
 * @ng: our reader of a pcapng file, or NULL for pcap
 * @cf: the stream both read (owned)
 * @name: the file's name, for messages
 * @buf: @cf's buffer
 * @linktype: a pcap file's link type (pcapng: the first interface's)
 * @snaplen: the snapshot length of the last frame's interface
 * @frames: frames read, damaged ones included
 * @bad_frames: frames skipped for a time out of range
 * @zero_frames: pcapng frames whose time is 0
 * @first_bad: the first skipped frame, described
 * @filter: a pcapng file's filter expression, or NULL
 * @filters: it compiled per link type met
 * @n_filters: how many
 */
struct nt_pcap_file {
	pcap_t *p;
	struct nt_pcapng_reader *ng;
	FILE *cf;
	const char *name;
	char *buf;
	int linktype;
	unsigned snaplen;
	uint64_t frames;
	uint64_t bad_frames;
	uint64_t zero_frames;
	struct nt_err first_bad;
	char *filter;
	struct ng_filter *filters;
	size_t n_filters;
};

static ssize_t src_read(void *cookie, char *buf, size_t size)
{
	struct source *s = cookie;
	size_t n;

	if (s->given < s->n_head) {
		n = s->n_head - s->given < size ? s->n_head - s->given : size;
		memcpy(buf, s->head + s->given, n);
		s->given += n;
	} else {
		n = fread(buf, 1, size, s->fp);
		if (n == 0 && ferror(s->fp))
			return -1;
	}
	s->pos += n;
	return (ssize_t)n;
}

/* Only ftell(): the byte offset libpcap has reached, for messages. */
static int src_seek(void *cookie, off64_t *off, int whence)
{
	struct source *s = cookie;

	if (whence != SEEK_CUR || *off != 0) {
		errno = ESPIPE;
		return -1;
	}
	*off = (off64_t)s->pos;
	return 0;
}

static int src_close(void *cookie)
{
	struct source *s = cookie;
	/* Standard input stays open: a later file must not take descriptor 0. */
	int ret = s->fp == stdin ? 0 : fclose(s->fp);

	free(s);
	return ret;
}

/*
 * Wraps @fp (owned from now on, even on failure) in our stream, buffered by
 * @buf, after reading its first bytes into the source's @head; the caller
 * gets a copy of them in @head and their count in @n_head.
 */
static FILE *source_open(FILE *fp, char *buf, uint8_t head[HEAD_BYTES], size_t *n_head)
{
	static const cookie_io_functions_t io = { .read = src_read,
						  .seek = src_seek,
						  .close = src_close };
	struct source *s = calloc(1, sizeof(*s));
	FILE *cf;

	if (!s)
		goto fail;
	s->fp = fp;
	setvbuf(fp, NULL, _IONBF, 0);
	__fsetlocking(fp, FSETLOCKING_BYCALLER);
	s->n_head = fread(s->head, 1, sizeof(s->head), fp);
	cf = fopencookie(s, "r", io);
	if (!cf)
		goto fail;
	setvbuf(cf, buf, _IOFBF, SOURCE_BUF_BYTES);
	__fsetlocking(cf, FSETLOCKING_BYCALLER);
	memcpy(head, s->head, s->n_head);
	*n_head = s->n_head;
	return cf;
fail:
	free(s);
	if (fp != stdin) /* standard input stays open, as in src_close() */
		fclose(fp);
	return NULL;
}

/* A file's name as messages show it: "-" is standard input. */
static const char *shown_name(const char *name, char pb[NT_ERR_PATH_MAX])
{
	return strcmp(name, "-") ? nt_err_path(name, pb, NT_ERR_PATH_MAX) : "standard input";
}

/*
 * A pcapng interface's LINKTYPE_ value as the DLT_ value libpcap hands out
 * for it, so a frame's link type means the same whatever the file's format:
 * libpcap converts both formats' values on reading (linktype_to_dlt() in
 * pcap-common.c, not exported), and pcap_compile() and the names take DLT_
 * values. They differ on Linux only for these, below LINKTYPE_MATCHING_MIN.
 */
static int dlt_of(int linktype)
{
	switch (linktype) {
	case 100:
		return DLT_ATM_RFC1483;
	case 101:
		return DLT_RAW;
	case 102:
		return DLT_SLIP_BSDOS;
	case 103:
		return DLT_PPP_BSDOS;
	case 106:
		return DLT_ATM_CLIP;
	default:
		return linktype;
	}
}

/* @f->cf is a pcapng stream: our reader on it. */
static int open_ng(struct nt_pcap_file *f, const char *shown, struct nt_err *err)
{
	struct nt_err why = { "" };
	int ret;

	f->ng = malloc(sizeof(*f->ng));
	if (!f->ng)
		return nt_err_set(err, -ENOMEM, "read \"%s\"", shown);
	ret = nt_pcapng_read_open(f->ng, f->cf, &why);
	if (ret < 0) {
		nt_pcapng_read_fini(f->ng);
		free(f->ng);
		f->ng = NULL;
		return nt_err_set(err, ret == -ENOMEM ? ret : 0, "cannot read \"%s\": %s", shown,
				  why.msg);
	}
	f->linktype = dlt_of(nt_pcapng_read_first(f->ng)->linktype);
	f->snaplen = nt_pcapng_read_first(f->ng)->snaplen;
	return 0;
}

/* @f->cf is anything else: libpcap's reader, which says what it is not. */
static int open_pcap(struct nt_pcap_file *f, const char *shown, struct nt_err *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	int n;

	f->p = pcap_fopen_offline_with_tstamp_precision(f->cf, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	/* An empty file fails with libpcap's truncated-header message. */
	if (!f->p)
		return nt_err_set(err, 0, "cannot read \"%s\": %s", shown, errbuf);
	f->linktype = pcap_datalink(f->p);
	n = pcap_snapshot(f->p);
	f->snaplen = n > 0 ? (unsigned)n : 0;
	return 0;
}

/*
 * A regular file we opened and have not read from: its first bytes come
 * from pread(2), which leaves the offset where it is, so the readers read
 * the FILE itself from its start, in our buffer, unlocked. Through the
 * cookie stream every fread() goes through glibc's generic
 * _IO_default_xsgetn(), which copies a piece of 20 bytes or less a byte at
 * a time: libpcap's 16-byte record header, every frame. That was 156 of the
 * 1,611 instructions a frame of analyze --brief (callgrind), where the read
 * loop's own fread() copies it with memcpy(). Returns the bytes read.
 */
static size_t peek_head(FILE *fp, uint8_t head[HEAD_BYTES])
{
	int fd = fileno(fp);
	off_t at = lseek(fd, 0, SEEK_CUR);
	ssize_t n = at < 0 ? -1 : pread(fd, head, HEAD_BYTES, at);

	return n > 0 ? (size_t)n : 0;
}

/*
 * @fp as a capture stream: itself when @fresh (a regular file we opened and
 * have not read: peek_head()), else our cookie stream over it.
 */
static FILE *stream_of(FILE *fp, bool fresh, char *buf, uint8_t head[HEAD_BYTES], size_t *n_head)
{
	if (!fresh)
		return source_open(fp, buf, head, n_head);
	*n_head = peek_head(fp, head);
	setvbuf(fp, buf, _IOFBF, SOURCE_BUF_BYTES);
	__fsetlocking(fp, FSETLOCKING_BYCALLER);
	return fp;
}

static int wrap(FILE *fp, bool fresh, const char *name, struct nt_pcap_file **out,
		struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];
	const char *shown = shown_name(name, pb);
	struct nt_pcap_file *f = calloc(1, sizeof(*f));
	char *buf = malloc(SOURCE_BUF_BYTES);
	uint8_t head[HEAD_BYTES];
	size_t n_head = 0;
	FILE *cf = f && buf ? stream_of(fp, fresh, buf, head, &n_head) : NULL;
	int ret;

	if (!cf) {
		if ((!f || !buf) && fp != stdin) /* else stream_of() closed it */
			fclose(fp);
		free(f);
		free(buf);
		return nt_err_set(err, -ENOMEM, "read \"%s\"", shown);
	}
	f->cf = cf;
	f->buf = buf;
	f->name = name;
	ret = n_head == HEAD_BYTES && nt_pcapng_is_pcapng(head) ? open_ng(f, shown, err)
								: open_pcap(f, shown, err);
	if (ret < 0) {
		fclose(cf);
		free(buf);
		free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int nt_pcap_file_open(const char *path, struct nt_pcap_file **out, struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];
	struct stat st;
	FILE *fp;

	*out = NULL;
	if (strcmp(path, "-") == 0)
		return wrap(stdin, false, path, out, err);
	/* libpcap's message for a missing file is fine, but the errno is ours to keep. */
	fp = fopen(path, "rbe");
	if (!fp)
		return nt_err_set(err, -errno, "cannot open \"%s\"",
				  nt_err_path(path, pb, sizeof(pb)));
	if (fstat(fileno(fp), &st) < 0)
		st.st_mode = 0;
	if (S_ISDIR(st.st_mode)) {
		fclose(fp);
		return nt_err_set(err, -EISDIR, "cannot open \"%s\"",
				  nt_err_path(path, pb, sizeof(pb)));
	}
	return wrap(fp, S_ISREG(st.st_mode), path, out, err);
}

int nt_pcap_file_fopen(FILE *fp, const char *name, struct nt_pcap_file **out, struct nt_err *err)
{
	*out = NULL;
	return wrap(fp, false, name, out, err);
}

int nt_pcap_file_linktype(const struct nt_pcap_file *f)
{
	return f->linktype;
}

unsigned nt_pcap_file_snaplen(const struct nt_pcap_file *f)
{
	return f->snaplen;
}

int nt_pcap_file_check_filter(const char *expr, struct nt_err *err)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	struct bpf_program prog;
	int ret = 0;

	if (!p)
		return nt_err_set(err, -ENOMEM, "filter \"%s\"", expr);
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0)
		ret = nt_err_set(err, -EINVAL, "bad filter expression \"%s\": %s", expr,
				 pcap_geterr(p));
	else
		pcap_freecode(&prog);
	pcap_close(p);
	return ret;
}

/* @expr compiled for @linktype into @out; libpcap's reason in @why on failure. */
static int compile_for(const char *expr, int linktype, struct bpf_program *out,
		       char why[PCAP_ERRBUF_SIZE])
{
	pcap_t *p = pcap_open_dead(linktype, FILTER_SNAPLEN);
	int ret = 0;

	if (!p)
		return -ENOMEM;
	if (pcap_compile(p, out, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(why, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
		ret = -EINVAL;
	}
	pcap_close(p);
	return ret;
}

/* A pcapng file's filter for @linktype, compiled the first time it is met; NULL: no memory. */
static struct ng_filter *ng_filter_for(struct nt_pcap_file *f, int linktype,
				       char why[PCAP_ERRBUF_SIZE])
{
	struct ng_filter *nf;

	for (size_t i = 0; i < f->n_filters; i++)
		if (f->filters[i].linktype == linktype)
			return &f->filters[i];
	nf = realloc(f->filters, (f->n_filters + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	f->filters = nf;
	nf = &f->filters[f->n_filters++];
	nf->linktype = linktype;
	nf->ok = compile_for(f->filter, linktype, &nf->prog, why) == 0;
	return nf;
}

static int set_ng_filter(struct nt_pcap_file *f, const char *expr, struct nt_err *err)
{
	char why[PCAP_ERRBUF_SIZE] = "", pb[NT_ERR_PATH_MAX];
	const struct ng_filter *nf;

	f->filter = strdup(expr);
	nf = f->filter ? ng_filter_for(f, f->linktype, why) : NULL;
	if (!nf)
		return nt_err_set(err, -ENOMEM, "filter \"%s\"", expr);
	if (!nf->ok)
		return nt_err_set(err, -EINVAL, "filter \"%s\" on \"%s\": %s", expr,
				  nt_err_path(f->name, pb, sizeof(pb)), why);
	return 0;
}

int nt_pcap_file_set_filter(struct nt_pcap_file *f, const char *expr, struct nt_err *err)
{
	struct bpf_program prog;
	int ret = 0;

	char pb[NT_ERR_PATH_MAX];

	if (f->ng)
		return set_ng_filter(f, expr, err);
	if (pcap_compile(f->p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return nt_err_set(err, -EINVAL, "filter \"%s\" on \"%s\": %s", expr,
				  nt_err_path(f->name, pb, sizeof(pb)), pcap_geterr(f->p));
	if (pcap_setfilter(f->p, &prog) < 0)
		ret = nt_err_set(err, -EINVAL, "filter \"%s\" on \"%s\": %s", expr,
				 nt_err_path(f->name, pb, sizeof(pb)), pcap_geterr(f->p));
	pcap_freecode(&prog);
	return ret;
}

/*
 * A pcapng frame passes the filter: one that did not compile for its link
 * type (an "ether" test on a raw-IP interface) matches none of its frames.
 */
static bool ng_passes(struct nt_pcap_file *f, const struct nt_pcapng_frame *fr)
{
	char why[PCAP_ERRBUF_SIZE];
	const struct ng_filter *nf;
	struct pcap_pkthdr h = { .caplen = fr->caplen, .len = fr->wirelen };

	if (!f->filter)
		return true;
	nf = ng_filter_for(f, dlt_of(fr->iface->linktype), why);
	return nf && nf->ok && pcap_offline_filter(&nf->prog, &h, fr->data) != 0;
}

/* A frame whose time is outside int64 ns since the epoch: counted, the first one described. */
static void bad_time(struct nt_pcap_file *f, const char *when)
{
	if (f->bad_frames++ == 0)
		nt_err_set(&f->first_bad, 0,
			   "frame %llu (byte offset %llu): its timestamp (%s) is "
			   "outside 1970-01-01..2262-04-11",
			   (unsigned long long)f->frames, (unsigned long long)ftello(f->cf), when);
}

/* After the last frame: the damaged frames skipped, as one message; 0 when none. */
static int bad_frames_end(struct nt_pcap_file *f, struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];

	if (!f->bad_frames)
		return 0;
	if (f->bad_frames == 1)
		nt_err_set(err, 0, "\"%s\" is damaged at %s; it was skipped",
			   shown_name(f->name, pb), f->first_bad.msg);
	else
		nt_err_set(err, 0, "\"%s\" has %llu damaged frames, skipped; the first: %s",
			   shown_name(f->name, pb), (unsigned long long)f->bad_frames,
			   f->first_bad.msg);
	return -EIO;
}

/* The pcap frame libpcap just returned, with its time in ns; -EIO when the time is out of range. */
static int take_frame(struct nt_pcap_file *f, const struct pcap_pkthdr *h, const u_char *data,
		      struct nt_frame *frame)
{
	/* A pcap file's seconds are unsigned 32-bit; libpcap's bpf_int32 made them signed. */
	int64_t sec = (int64_t)(uint32_t)h->ts.tv_sec;

	f->frames++;
	if (nt_pcap_time_ns(sec, h->ts.tv_usec, &frame->t_ns) < 0) {
		char when[64];

		snprintf(when, sizeof(when), "%lld s + %lld ns", (long long)sec,
			 (long long)h->ts.tv_usec);
		bad_time(f, when);
		return -EIO;
	}
	nt_frame_read(frame, data, h->caplen, h->len, f->linktype);
	return 0;
}

/* The pcapng frame our reader just returned; -EIO when its time is out of range. */
static int take_ng_frame(struct nt_pcap_file *f, const struct nt_pcapng_frame *fr,
			 struct nt_frame *frame)
{
	f->frames++;
	if (!fr->time_ok) {
		char when[96];

		snprintf(when, sizeof(when), "%llu units of 1/%llu s, offset %lld s",
			 (unsigned long long)fr->raw_ts,
			 (unsigned long long)fr->iface->clock.units_per_s,
			 (long long)fr->iface->clock.offset_s);
		bad_time(f, when);
		return -EIO;
	}
	/* A stamp of 0 is no time (a writer that had none): said once, still read. */
	if (fr->t_ns == 0)
		f->zero_frames++;
	frame->t_ns = fr->t_ns;
	frame->data = fr->data;
	frame->caplen = fr->caplen;
	frame->wirelen = fr->wirelen;
	frame->note = fr->note;
	frame->linktype = dlt_of(fr->iface->linktype);
	f->snaplen = fr->iface->snaplen;
	return 0;
}

/* libpcap's read failed: where the file broke and what libpcap says. */
static int damaged(struct nt_pcap_file *f, const char *why, struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];
	FILE *fp = f->p ? pcap_file(f->p) : NULL;
	long off = fp ? ftell(fp) : -1;
	const char *name = shown_name(f->name, pb);

	char skipped[64] = "";

	if (f->bad_frames)
		snprintf(skipped, sizeof(skipped), " (and %llu frames with bad times skipped)",
			 (unsigned long long)f->bad_frames);
	if (off >= 0)
		nt_err_set(err, 0, "\"%s\" is damaged after frame %llu (byte offset %ld): %s%s",
			   name, (unsigned long long)f->frames, off, why, skipped);
	else
		nt_err_set(err, 0, "\"%s\" is damaged after frame %llu: %s%s", name,
			   (unsigned long long)f->frames, why, skipped);
	return -EIO;
}

/* The next pcapng frame that passes the filter: as nt_pcap_file_next(). */
static int ng_next(struct nt_pcap_file *f, struct nt_frame *frame, struct nt_err *err)
{
	struct nt_err why = { "" };
	struct nt_pcapng_frame fr;
	int ret;

	/* Bounded by the file: each turn consumes one packet block. */
	while ((ret = nt_pcapng_read_next(f->ng, &fr, &why)) == 1)
		if (ng_passes(f, &fr) && take_ng_frame(f, &fr, frame) == 0)
			return 1;
	if (ret == 0)
		return bad_frames_end(f, err) < 0 ? -EIO : 0;
	return damaged(f, why.msg, err);
}

int nt_pcap_file_next(struct nt_pcap_file *f, struct nt_frame *frame, struct nt_err *err)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int ret;

	if (f->ng)
		return ng_next(f, frame, err);
	/* Bounded by the file: each turn consumes one record. A damaged frame is skipped. */
	while ((ret = pcap_next_ex(f->p, &h, &data)) == 1)
		if (take_frame(f, h, data, frame) == 0)
			return 1;
	if (ret == PCAP_ERROR_BREAK)
		return bad_frames_end(f, err) < 0 ? -EIO : 0;
	return damaged(f, pcap_geterr(f->p), err);
}

/**
 * struct each_ctx - one nt_pcap_file_each() call, seen from libpcap's callback
 * @f: the reader
 * @fn: the caller's function
 * @ctx: its context
 * @skipped: frames of this call whose time was out of range (not given to @fn)
 */
struct each_ctx {
	struct nt_pcap_file *f;
	nt_pcap_frame_fn fn;
	void *ctx;
	uint64_t skipped;
};

static void each_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct each_ctx *c = (struct each_ctx *)user;
	struct nt_frame frame;

	if (take_frame(c->f, h, data, &frame) < 0) {
		c->skipped++;
		return;
	}
	c->fn(c->ctx, &frame);
}

/* nt_pcap_file_each() on a pcapng file: our reader has no batches to save on. */
static int ng_each(struct nt_pcap_file *f, uint64_t max_frames, nt_pcap_frame_fn fn, void *ctx,
		   uint64_t *frames_read, struct nt_err *err)
{
	struct nt_frame frame;
	uint64_t n = 0;
	int ret = 1;

	/* Bounded by the file: each turn consumes at least one block. */
	while ((!max_frames || n < max_frames) && (ret = ng_next(f, &frame, err)) == 1) {
		fn(ctx, &frame);
		n++;
	}
	*frames_read = n;
	return ret < 0 ? ret : 0;
}

/*
 * pcap_dispatch() rather than a pcap_next_ex() per frame: the frames of a
 * batch go to the callback straight from libpcap's buffer, without the
 * header copy and call set-up of each pcap_next_ex() (pcap_offline_read()
 * with a count of one).
 */
int nt_pcap_file_each(struct nt_pcap_file *f, uint64_t max_frames, nt_pcap_frame_fn fn, void *ctx,
		      uint64_t *frames_read, struct nt_err *err)
{
	struct each_ctx c = { .f = f, .fn = fn, .ctx = ctx };
	uint64_t n = 0;
	int got = 1;

	if (f->ng)
		return ng_each(f, max_frames, fn, ctx, frames_read, err);
	/* Bounded by the file: every call that returns > 0 consumed that many records. */
	while (got > 0 && (!max_frames || n < max_frames)) {
		uint64_t left = max_frames ? max_frames - n : EACH_BATCH;

		c.skipped = 0;
		got = pcap_dispatch(f->p, (int)(left < EACH_BATCH ? left : EACH_BATCH), each_frame,
				    (u_char *)&c);
		/* libpcap counted the frames whose time was bad; @fn never saw them. */
		if (got > 0)
			n += (uint64_t)got - c.skipped;
	}
	*frames_read = n;
	if (got == PCAP_ERROR)
		return damaged(f, pcap_geterr(f->p), err);
	return bad_frames_end(f, err) < 0 ? -EIO : 0;
}

uint64_t nt_pcap_file_zero_time_frames(const struct nt_pcap_file *f)
{
	return f->zero_frames;
}

void nt_pcap_file_close(struct nt_pcap_file *f)
{
	if (!f)
		return;
	if (f->p)
		pcap_close(f->p); /* closes the stream: its buffer is free to go */
	else
		fclose(f->cf);
	if (f->ng)
		nt_pcapng_read_fini(f->ng);
	free(f->ng);
	for (size_t i = 0; i < f->n_filters; i++)
		if (f->filters[i].ok)
			pcap_freecode(&f->filters[i].prog);
	free(f->filters);
	free(f->filter);
	free(f->buf);
	free(f);
}
