// SPDX-License-Identifier: MIT
/*
 * pcap_writer.c - the -w capture file through libpcap's dumper.
 *
 * pcap_open_dead_with_tstamp_precision(..., PCAP_TSTAMP_PRECISION_NANO)
 * makes the dumper write the nanosecond magic (0xa1b23c4d) and take
 * tv_usec as nanoseconds, so the file keeps the kernel timestamps the
 * timeline was built from, to the nanosecond. The temporary name is
 * reserved with mkstemp() at _new(), so a bad directory fails before the run;
 * pcap_dump_open() later reopens (and truncates) that same name.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt/capture/pcap_writer.h"

/* LINKTYPE_ETHERNET, for a writer committed before the capture opened. */
#define EMPTY_LINKTYPE 1
#define EMPTY_SNAPLEN  262144

/**
 * struct nt_pcap_writer - one -w file in the making
 * @path: the destination (a copy)
 * @tmp_path: the temporary file beside it
 * @dead: libpcap's handle describing the link type and precision
 * @dumper: the open dumper, NULL before _start()
 * @frames: frames dumped
 * @error: the first write error (negative errno), 0 if none
 * @spool: spool mode: the unnamed temporary file the frames go to (@path and
 *         @tmp_path are NULL)
 */
struct nt_pcap_writer {
	char *path;
	char *tmp_path;
	FILE *spool;
	pcap_t *dead;
	pcap_dumper_t *dumper;
	unsigned long frames;
	int error;
};

int nt_pcap_writer_new(const char *path, struct nt_pcap_writer **out, struct nt_err *err)
{
	struct nt_pcap_writer *w = calloc(1, sizeof(*w));
	mode_t mask;
	int fd, e;

	*out = NULL;
	if (!w)
		return nt_err_set(err, -ENOMEM, "write \"%s\"", path);
	w->path = strdup(path);
	if (!w->path || asprintf(&w->tmp_path, "%s.XXXXXX", path) < 0) {
		free(w->path);
		free(w);
		return nt_err_set(err, -ENOMEM, "write \"%s\"", path);
	}
	fd = mkstemp(w->tmp_path);
	if (fd < 0) {
		e = -errno;
		free(w->tmp_path);
		free(w->path);
		free(w);
		return nt_err_set(err, e, "write \"%s\"", path);
	}
	/* mkstemp() makes the file 0600; a capture file is an ordinary file: 0666 & ~umask. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	close(fd);
	*out = w;
	return 0;
}

int nt_pcap_writer_new_spool(struct nt_pcap_writer **out, struct nt_err *err)
{
	struct nt_pcap_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return nt_err_set(err, -ENOMEM, "capture spool");
	w->spool = tmpfile();
	if (!w->spool) {
		int e = -errno;

		free(w);
		return nt_err_set(err, e, "capture spool: temporary file");
	}
	*out = w;
	return 0;
}

/* The dumper closes its stream: it gets a duplicate sharing the spool's file offset. */
static pcap_dumper_t *spool_dumper(struct nt_pcap_writer *w)
{
	int fd = dup(fileno(w->spool));
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	pcap_dumper_t *d;

	if (!fp) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	d = pcap_dump_fopen(w->dead, fp);
	if (!d)
		fclose(fp);
	return d;
}

int nt_pcap_writer_start(struct nt_pcap_writer *w, int linktype, unsigned snaplen,
			 struct nt_err *err)
{
	w->dead = pcap_open_dead_with_tstamp_precision(linktype, (int)snaplen,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!w->dead)
		return nt_err_set(err, -ENOMEM, "write \"%s\": libpcap: no dead handle", w->path);
	w->dumper = w->spool ? spool_dumper(w) : pcap_dump_open(w->dead, w->tmp_path);
	if (!w->dumper) {
		int ret = nt_err_set(err, -EIO, "write \"%s\": libpcap: %s",
				     w->path ? w->path : "temporary file", pcap_geterr(w->dead));

		pcap_close(w->dead);
		w->dead = NULL;
		return ret;
	}
	return 0;
}

void nt_pcap_writer_dump(struct nt_pcap_writer *w, const struct nt_frame *frame)
{
	struct pcap_pkthdr h;

	if (!w || !w->dumper || w->error)
		return;
	memset(&h, 0, sizeof(h));
	/* With nanosecond precision the dumper stores tv_usec as the nanosecond field. */
	h.ts.tv_sec = (time_t)(frame->t_ns / 1000000000);
	h.ts.tv_usec = (suseconds_t)(frame->t_ns % 1000000000);
	h.caplen = frame->caplen;
	h.len = frame->wirelen;
	pcap_dump((unsigned char *)w->dumper, &h, frame->data);
	w->frames++;
	if (ferror(pcap_dump_file(w->dumper)))
		w->error = -EIO;
}

unsigned long nt_pcap_writer_frames(const struct nt_pcap_writer *w)
{
	return w ? w->frames : 0;
}

static void writer_free(struct nt_pcap_writer *w)
{
	if (w->dumper)
		pcap_dump_close(w->dumper);
	if (w->dead)
		pcap_close(w->dead);
	if (w->spool)
		fclose(w->spool);
	free(w->tmp_path);
	free(w->path);
	free(w);
}

int nt_pcap_writer_commit(struct nt_pcap_writer *w, struct nt_err *err)
{
	int ret;

	if (!w->dumper) {
		ret = nt_pcap_writer_start(w, EMPTY_LINKTYPE, EMPTY_SNAPLEN, err);
		if (ret < 0) {
			nt_pcap_writer_abort(w);
			return ret;
		}
	}
	ret = w->error;
	if (!ret && pcap_dump_flush(w->dumper) < 0)
		ret = -EIO;
	/* pcap_dump_close() reports nothing; the flush above caught a full disk. */
	pcap_dump_close(w->dumper);
	w->dumper = NULL;
	if (!ret && rename(w->tmp_path, w->path) < 0)
		ret = -errno;
	if (ret) {
		nt_err_set(err, ret, "write \"%s\"", w->path);
		nt_pcap_writer_abort(w);
		return ret;
	}
	writer_free(w);
	return 0;
}

void nt_pcap_writer_abort(struct nt_pcap_writer *w)
{
	if (!w)
		return;
	if (w->dumper) {
		pcap_dump_close(w->dumper);
		w->dumper = NULL;
	}
	if (w->tmp_path)
		unlink(w->tmp_path);
	writer_free(w);
}

FILE *nt_pcap_writer_finish_spool(struct nt_pcap_writer *w, struct nt_err *err)
{
	FILE *spool = w->spool;
	int ret = 0;

	if (!w->dumper)
		ret = nt_pcap_writer_start(w, EMPTY_LINKTYPE, EMPTY_SNAPLEN, err);
	if (!ret && (w->error || pcap_dump_flush(w->dumper) < 0))
		ret = nt_err_set(err, w->error ? w->error : -EIO, "capture spool");
	if (ret) {
		nt_pcap_writer_abort(w);
		return NULL;
	}
	pcap_dump_close(w->dumper);
	w->dumper = NULL;
	w->spool = NULL;
	writer_free(w);
	rewind(spool);
	return spool;
}

int nt_pcap_writer_variant_path(const char *path, const char *variant, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t stem;
	int n;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	/* A leading dot names a hidden file, not an extension: ".pcap" -> ".pcap-nodelay". */
	stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
	n = snprintf(buf, len, "%.*s-%s%s", (int)stem, path, variant, path + stem);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}
