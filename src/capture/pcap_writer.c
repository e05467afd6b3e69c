// SPDX-License-Identifier: MIT
/*
 * pcap_writer.c - the -w capture file through libpcap's dumper, on the
 * output policy (nt/output.h).
 *
 * pcap_open_dead_with_tstamp_precision(..., PCAP_TSTAMP_PRECISION_NANO)
 * makes the dumper write the nanosecond magic (0xa1b23c4d) and take
 * tv_usec as nanoseconds, so the file keeps the kernel timestamps the
 * timeline was built from, to the nanosecond.
 *
 * The file is opened by nt_output_open() at _new() (so a bad directory
 * fails before the run) and handed to libpcap with pcap_dump_fopen(). The
 * FILE stays ours: for a pcap (not pcapng) dumper libpcap's dumper *is* the
 * FILE (pcap_dump_file() returns it) and pcap_dump_close() is only an
 * fclose() that reports nothing, so we never call it; nt_output_commit()
 * flushes, checks and closes the FILE and names the file. pcap_dump() drops
 * fwrite()'s result, so the stream's error flag is checked after every frame
 * and errno taken at once: a full disk is "No space left on device", not a
 * bare I/O error.
 *
 * A spool writer (-w x.pcapng) dumps to an unnamed tmpfile() instead, which
 * nt_pcap_writer_finish_spool() hands back, rewound, for the pcapng to be
 * made from once the run is over.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/capture/pcap_writer.h"
#include "nt/clock.h"
#include "nt/output.h"

/* LINKTYPE_ETHERNET, for a writer committed before the capture opened. */
#define EMPTY_LINKTYPE 1
#define EMPTY_SNAPLEN  262144

/**
 * struct nt_pcap_writer - one -w file in the making
 * @out: the destination, through the output policy
 * @dead: libpcap's handle describing the link type and precision
 * @dumper: the open dumper (our @out.fp), NULL before _start()
 * @live: flush after each frame (standard output, a FIFO, a device)
 * @spool: @out.fp is an unnamed temporary file of ours, not the policy's
 * @frames: frames dumped
 * @error: the first write error (negative errno), 0 if none
 */
struct nt_pcap_writer {
	struct nt_output out;
	pcap_t *dead;
	pcap_dumper_t *dumper;
	bool live;
	bool spool;
	unsigned long frames;
	int error;
};

int nt_pcap_writer_new(const char *path, struct nt_pcap_writer **out, struct nt_err *err)
{
	struct nt_pcap_writer *w = calloc(1, sizeof(*w));
	char pb[NT_ERR_PATH_MAX];
	int ret;

	*out = NULL;
	if (!w)
		return nt_err_set(err, -ENOMEM, "write \"%s\"", nt_err_path(path, pb, sizeof(pb)));
	ret = nt_output_open(&w->out, path, NT_OUTPUT_STREAM, err);
	if (ret < 0) {
		free(w);
		return ret;
	}
	w->live = nt_output_is_live(&w->out);
	*out = w;
	return 0;
}

int nt_pcap_writer_new_spool(struct nt_pcap_writer **out, struct nt_err *err)
{
	struct nt_pcap_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return nt_err_set(err, -ENOMEM, "capture spool");
	w->out.fd = w->out.dir_fd = w->out.dest_fd = w->out.tmp_slot = -1;
	w->out.fp = tmpfile();
	if (!w->out.fp) {
		int e = -errno;

		free(w);
		return nt_err_set(err, e, "capture spool: temporary file");
	}
	w->spool = true;
	*out = w;
	return 0;
}

/* The destination's name for messages. */
static const char *name(const struct nt_pcap_writer *w, char *buf, size_t len)
{
	if (w->spool)
		return "capture spool";
	return w->out.path ? nt_err_path(w->out.path, buf, len) : "-";
}

/* Takes the stream's error, errno and all, right after the write that failed. */
static void check_stream(struct nt_pcap_writer *w)
{
	if (!w->error && ferror(w->out.fp))
		w->error = errno ? -errno : -EIO;
}

int nt_pcap_writer_start(struct nt_pcap_writer *w, int linktype, unsigned snaplen,
			 struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];

	w->dead = pcap_open_dead_with_tstamp_precision(linktype, (int)snaplen,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!w->dead)
		return nt_err_set(err, -ENOMEM, "write \"%s\": libpcap: no dead handle",
				  name(w, pb, sizeof(pb)));
	errno = 0;
	w->dumper = pcap_dump_fopen(w->dead, w->out.fp);
	if (!w->dumper) {
		int ret = errno ? -errno : -EIO;

		/* libpcap closed the FILE (unless stdout): it and its descriptor are gone. */
		if (w->out.fp != stdout) {
			w->out.fp = NULL;
			w->out.fd = -1;
		}
		nt_err_set(err, ret, "write \"%s\": libpcap: %s", name(w, pb, sizeof(pb)),
			   pcap_geterr(w->dead));
		pcap_close(w->dead);
		w->dead = NULL;
		return ret;
	}
	check_stream(w);
	if (w->live && !w->error && fflush(w->out.fp) == EOF)
		check_stream(w);
	return 0;
}

void nt_pcap_writer_dump(struct nt_pcap_writer *w, const struct nt_frame *frame)
{
	struct pcap_pkthdr h;

	if (!w || !w->dumper || w->error)
		return;
	memset(&h, 0, sizeof(h));
	/* With nanosecond precision the dumper stores tv_usec as the nanosecond field. */
	h.ts.tv_sec = (time_t)(frame->t_ns / NT_NS_PER_SEC);
	h.ts.tv_usec = (suseconds_t)(frame->t_ns % NT_NS_PER_SEC);
	h.caplen = frame->caplen;
	h.len = frame->wirelen;
	errno = 0;
	pcap_dump((unsigned char *)w->dumper, &h, frame->data);
	w->frames++;
	check_stream(w);
	if (w->live && !w->error && fflush(w->out.fp) == EOF)
		check_stream(w);
}

unsigned long nt_pcap_writer_frames(const struct nt_pcap_writer *w)
{
	return w ? w->frames : 0;
}

static void writer_free(struct nt_pcap_writer *w)
{
	if (w->dead)
		pcap_close(w->dead);
	free(w);
}

int nt_pcap_writer_commit(struct nt_pcap_writer *w, struct nt_err *err)
{
	char pb[NT_ERR_PATH_MAX];
	int ret;

	if (!w->dumper) {
		ret = nt_pcap_writer_start(w, EMPTY_LINKTYPE, EMPTY_SNAPLEN, err);
		if (ret < 0) {
			nt_pcap_writer_abort(w);
			return ret;
		}
	}
	if (w->error) {
		ret = nt_err_set(err, w->error, "write \"%s\"", name(w, pb, sizeof(pb)));
		nt_pcap_writer_abort(w);
		return ret;
	}
	/* The dumper is our FILE: nt_output_commit() flushes, checks and closes it. */
	ret = nt_output_commit(&w->out, err);
	writer_free(w);
	return ret;
}

void nt_pcap_writer_abort(struct nt_pcap_writer *w)
{
	if (!w)
		return;
	if (w->spool && w->out.fp)
		fclose(w->out.fp);
	else if (!w->spool)
		nt_output_abort(&w->out);
	writer_free(w);
}

FILE *nt_pcap_writer_finish_spool(struct nt_pcap_writer *w, struct nt_err *err)
{
	FILE *spool;
	int ret = 0;

	if (!w->dumper)
		ret = nt_pcap_writer_start(w, EMPTY_LINKTYPE, EMPTY_SNAPLEN, err);
	if (!ret && !w->error && fflush(w->out.fp) == EOF)
		check_stream(w);
	if (!ret && w->error)
		ret = nt_err_set(err, w->error, "capture spool");
	if (ret) {
		nt_pcap_writer_abort(w);
		return NULL;
	}
	/* The dumper is our FILE (see the top of the file): nothing of libpcap's to close. */
	spool = w->out.fp;
	w->out.fp = NULL;
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

	/*
	 * One variant writes @path itself. Cut to fit, it would name another file, and that one
	 * would be written: too long is an error here as for a variant's name.
	 */
	if (!variant) {
		n = snprintf(buf, len, "%s", path);
		return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
	}
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	/* A leading dot names a hidden file, not an extension: ".pcap" -> ".pcap-nodelay". */
	stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
	n = snprintf(buf, len, "%.*s-%s%s", (int)stem, path, variant, path + stem);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}
