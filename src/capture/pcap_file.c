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
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nt/capture/pcap_file.h"

struct nt_pcap_file {
	pcap_t *p;
	const char *name;
	uint64_t frames;
};

static int wrap(pcap_t *p, const char *name, struct nt_pcap_file **out, struct nt_err *err)
{
	struct nt_pcap_file *f = calloc(1, sizeof(*f));

	if (!f) {
		pcap_close(p);
		return nt_err_set(err, -ENOMEM, "read \"%s\"", name);
	}
	f->p = p;
	f->name = name;
	if (pcap_file(p))
		__fsetlocking(pcap_file(p), FSETLOCKING_BYCALLER);
	*out = f;
	return 0;
}

int nt_pcap_file_open(const char *path, struct nt_pcap_file **out, struct nt_err *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct stat st;
	pcap_t *p;

	*out = NULL;
	if (strcmp(path, "-") != 0) {
		/* libpcap's message for a missing file is fine, but the errno is ours to keep. */
		if (stat(path, &st) < 0)
			return nt_err_set(err, -errno, "cannot open \"%s\"", path);
		if (S_ISDIR(st.st_mode))
			return nt_err_set(err, -EISDIR, "cannot open \"%s\"", path);
	}
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		/* An empty file fails with libpcap's truncated-header message. */
		return nt_err_set(err, 0, "cannot read \"%s\": %s",
				  strcmp(path, "-") ? path : "standard input", errbuf);
	}
	return wrap(p, path, out, err);
}

int nt_pcap_file_fopen(FILE *fp, const char *name, struct nt_pcap_file **out, struct nt_err *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p;

	*out = NULL;
	p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fclose(fp);
		return nt_err_set(err, 0, "cannot read \"%s\": %s", name, errbuf);
	}
	return wrap(p, name, out, err);
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

	if (pcap_compile(f->p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return nt_err_set(err, -EINVAL, "filter \"%s\" on \"%s\": %s", expr, f->name,
				  pcap_geterr(f->p));
	if (pcap_setfilter(f->p, &prog) < 0)
		ret = nt_err_set(err, -EINVAL, "filter \"%s\" on \"%s\": %s", expr, f->name,
				 pcap_geterr(f->p));
	pcap_freecode(&prog);
	return ret;
}

int nt_pcap_file_next(struct nt_pcap_file *f, struct nt_frame *frame, struct nt_err *err)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int ret = pcap_next_ex(f->p, &h, &data);

	if (ret == 1) {
		f->frames++;
		frame->t_ns = (int64_t)h->ts.tv_sec * 1000000000LL + (int64_t)h->ts.tv_usec;
		frame->data = data;
		frame->caplen = h->caplen;
		frame->wirelen = h->len;
		return 1;
	}
	if (ret == PCAP_ERROR_BREAK)
		return 0;

	FILE *fp = pcap_file(f->p);
	long off = fp ? ftell(fp) : -1;
	const char *name = strcmp(f->name, "-") ? f->name : "standard input";

	if (off >= 0)
		nt_err_set(err, 0, "\"%s\" is damaged after frame %llu (byte offset %ld): %s", name,
			   (unsigned long long)f->frames, off, pcap_geterr(f->p));
	else
		nt_err_set(err, 0, "\"%s\" is damaged after frame %llu: %s", name,
			   (unsigned long long)f->frames, pcap_geterr(f->p));
	return -EIO;
}

void nt_pcap_file_close(struct nt_pcap_file *f)
{
	if (!f)
		return;
	pcap_close(f->p);
	free(f);
}
