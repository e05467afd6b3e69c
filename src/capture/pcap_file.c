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
 * Timestamps are not taken from libpcap as they are (see nt/capture/
 * pcap_time.h: its pcapng conversion can wrap). libpcap reads through a
 * stream of ours (fopencookie()) that feeds every byte it hands out to a
 * pcapng tracker; after each packet, ftell() of that stream (the cookie's
 * offset less what is still buffered) says where libpcap stands, which is
 * where the packet's block ends. A pcapng frame's time is computed from
 * that block's raw timestamp and its interface's if_tsresol and
 * if_tsoffset in 128-bit arithmetic, any other frame's from libpcap's
 * tv_sec and tv_usec with checked arithmetic. (An unbuffered cookie stream
 * would show the tracker exactly libpcap's reads, but glibc then reads it a
 * byte at a time: 18 times slower.)
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

#include "nt/capture/pcap_file.h"
#include "nt/capture/pcap_time.h"

/* Frames a pcap_dispatch() call hands over at most. */
#define EACH_BATCH 4096u

/*
 * The tracking stream's buffer; the tracker runs at most this far ahead of
 * libpcap. The file under it is unbuffered, so each refill is one read(2)
 * of this size straight into it: 256 KiB took a 149 MB file in 570 reads,
 * where glibc's default 8 KiB took 18,210 (a tenth of analyze's time).
 * glibc's setvbuf() ignores the size unless it is given the buffer.
 */
#define SOURCE_BUF_BYTES ((size_t)256 * 1024)

/**
 * struct source - the stream libpcap reads, and what it has read
 * @fp: the file or stream it comes from
 * @track: the pcapng tracker fed with every byte handed to libpcap
 */
struct source {
	FILE *fp;
	struct nt_pcapng_track track;
};

struct nt_pcap_file {
	pcap_t *p;
	const char *name;
	struct source *src;
	char *buf;
	uint64_t frames;
	uint64_t bad_frames;
	uint64_t zero_frames;
	struct nt_err first_bad;
};

static ssize_t src_read(void *cookie, char *buf, size_t size)
{
	struct source *s = cookie;
	size_t n = fread(buf, 1, size, s->fp);

	if (n == 0 && ferror(s->fp))
		return -1;
	nt_pcapng_track_feed(&s->track, (const uint8_t *)buf, n);
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
	*off = (off64_t)s->track.pos;
	return 0;
}

static int src_close(void *cookie)
{
	struct source *s = cookie;
	/* Standard input stays open: a later file must not take descriptor 0. */
	int ret = s->fp == stdin ? 0 : fclose(s->fp);

	nt_pcapng_track_fini(&s->track);
	free(s);
	return ret;
}

/* Wraps @fp (owned from now on, even on failure) in the tracking stream, buffered by @buf. */
static FILE *source_open(FILE *fp, char *buf, struct source **out)
{
	static const cookie_io_functions_t io = { .read = src_read,
						  .seek = src_seek,
						  .close = src_close };
	struct source *s = calloc(1, sizeof(*s));
	FILE *cf;

	if (!s || nt_pcapng_track_init(&s->track) < 0)
		goto fail;
	s->fp = fp;
	setvbuf(fp, NULL, _IONBF, 0);
	__fsetlocking(fp, FSETLOCKING_BYCALLER);
	cf = fopencookie(s, "r", io);
	if (!cf)
		goto fail;
	setvbuf(cf, buf, _IOFBF, SOURCE_BUF_BYTES);
	__fsetlocking(cf, FSETLOCKING_BYCALLER);
	*out = s;
	return cf;
fail:
	if (s)
		nt_pcapng_track_fini(&s->track);
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

static int wrap(FILE *fp, const char *name, struct nt_pcap_file **out, struct nt_err *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "", pb[NT_ERR_PATH_MAX];
	const char *shown = shown_name(name, pb);
	struct nt_pcap_file *f = calloc(1, sizeof(*f));
	char *buf = malloc(SOURCE_BUF_BYTES);
	struct source *src = NULL;
	FILE *cf = f && buf ? source_open(fp, buf, &src) : NULL;

	if (!cf) {
		if ((!f || !buf) && fp != stdin) /* else source_open() closed it */
			fclose(fp);
		free(f);
		free(buf);
		return nt_err_set(err, -ENOMEM, "read \"%s\"", shown);
	}
	f->buf = buf;
	f->p = pcap_fopen_offline_with_tstamp_precision(cf, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!f->p) {
		fclose(cf);
		free(buf);
		free(f);
		/* An empty file fails with libpcap's truncated-header message. */
		return nt_err_set(err, 0, "cannot read \"%s\": %s", shown, errbuf);
	}
	f->name = name;
	f->src = src;
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
		return wrap(stdin, path, out, err);
	/* libpcap's message for a missing file is fine, but the errno is ours to keep. */
	fp = fopen(path, "rbe");
	if (!fp)
		return nt_err_set(err, -errno, "cannot open \"%s\"",
				  nt_err_path(path, pb, sizeof(pb)));
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(fp);
		return nt_err_set(err, -EISDIR, "cannot open \"%s\"",
				  nt_err_path(path, pb, sizeof(pb)));
	}
	return wrap(fp, path, out, err);
}

int nt_pcap_file_fopen(FILE *fp, const char *name, struct nt_pcap_file **out, struct nt_err *err)
{
	*out = NULL;
	return wrap(fp, name, out, err);
}

int nt_pcap_file_linktype(const struct nt_pcap_file *f)
{
	return pcap_datalink(f->p);
}

unsigned nt_pcap_file_snaplen(const struct nt_pcap_file *f)
{
	int n = pcap_snapshot(f->p);

	return n > 0 ? (unsigned)n : 0;
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

int nt_pcap_file_set_filter(struct nt_pcap_file *f, const char *expr, struct nt_err *err)
{
	struct bpf_program prog;
	int ret = 0;

	char pb[NT_ERR_PATH_MAX];

	if (pcap_compile(f->p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return nt_err_set(err, -EINVAL, "filter \"%s\" on \"%s\": %s", expr,
				  nt_err_path(f->name, pb, sizeof(pb)), pcap_geterr(f->p));
	if (pcap_setfilter(f->p, &prog) < 0)
		ret = nt_err_set(err, -EINVAL, "filter \"%s\" on \"%s\": %s", expr,
				 nt_err_path(f->name, pb, sizeof(pb)), pcap_geterr(f->p));
	pcap_freecode(&prog);
	return ret;
}

/* A frame whose time is outside int64 ns since the epoch: counted, the first one described. */
static int bad_time(struct nt_pcap_file *f, const struct pcap_pkthdr *h, int64_t sec)
{
	if (f->bad_frames++ == 0)
		nt_err_set(&f->first_bad, 0,
			   "frame %llu (byte offset %llu): its timestamp (%lld s + %lld ns) is "
			   "outside 1970-01-01..2262-04-11",
			   (unsigned long long)f->frames,
			   (unsigned long long)ftello(pcap_file(f->p)), (long long)sec,
			   (long long)h->ts.tv_usec);
	return -EIO;
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

/* The frame libpcap just returned, with its time in ns; -EIO when the time is out of range. */
static int take_frame(struct nt_pcap_file *f, const struct pcap_pkthdr *h, const u_char *data,
		      struct nt_frame *frame)
{
	bool ng = f->src->track.state == NT_PCAPNG_YES;
	/* A pcap file's seconds are unsigned 32-bit; libpcap's bpf_int32 made them signed. */
	int64_t sec = ng ? (int64_t)h->ts.tv_sec : (int64_t)(uint32_t)h->ts.tv_sec;
	int ret;

	f->frames++;
	ret = ng ? nt_pcapng_track_at(&f->src->track, (uint64_t)ftello(pcap_file(f->p)),
				      &frame->t_ns)
		 : 0;
	if (ret == 0)
		ret = nt_pcap_time_ns(sec, h->ts.tv_usec, &frame->t_ns);
	if (ret < 0)
		return bad_time(f, h, sec);
	/* pcapng: a stamp of 0 is no time (a writer that had none); said once, still read. */
	if (frame->t_ns == 0 && ng)
		f->zero_frames++;
	frame->data = data;
	frame->caplen = h->caplen;
	frame->wirelen = h->len;
	return 0;
}

/* libpcap's read failed: where the file broke and what libpcap says. */
static int damaged(struct nt_pcap_file *f, struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];
	FILE *fp = pcap_file(f->p);
	long off = fp ? ftell(fp) : -1;
	const char *name = shown_name(f->name, pb);

	char skipped[64] = "";

	if (f->bad_frames)
		snprintf(skipped, sizeof(skipped), " (and %llu frames with bad times skipped)",
			 (unsigned long long)f->bad_frames);
	if (off >= 0)
		nt_err_set(err, 0, "\"%s\" is damaged after frame %llu (byte offset %ld): %s%s",
			   name, (unsigned long long)f->frames, off, pcap_geterr(f->p), skipped);
	else
		nt_err_set(err, 0, "\"%s\" is damaged after frame %llu: %s%s", name,
			   (unsigned long long)f->frames, pcap_geterr(f->p), skipped);
	return -EIO;
}

int nt_pcap_file_next(struct nt_pcap_file *f, struct nt_frame *frame, struct nt_err *err)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int ret;

	/* Bounded by the file: each turn consumes one record. A damaged frame is skipped. */
	while ((ret = pcap_next_ex(f->p, &h, &data)) == 1)
		if (take_frame(f, h, data, frame) == 0)
			return 1;
	if (ret == PCAP_ERROR_BREAK)
		return bad_frames_end(f, err) < 0 ? -EIO : 0;
	return damaged(f, err);
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
		return damaged(f, err);
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
	pcap_close(f->p); /* closes the stream: its buffer is free to go */
	free(f->buf);
	free(f);
}
