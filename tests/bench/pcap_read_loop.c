// SPDX-License-Identifier: MIT
/*
 * pcap_read_loop.c - the reference for bench_analyze.sh: the cheapest ways to
 * read every frame of a capture with libpcap, nanosecond timestamps, one byte
 * of each frame touched so nothing is optimised away.
 *
 *   pcap_read_loop FILE              pcap_next_ex(), one call per frame
 *   pcap_read_loop --dispatch FILE   pcap_dispatch() with a callback, 4096
 *                                    frames a call (libpcap's cheapest path:
 *                                    no per-frame header copy or call setup)
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

struct tally {
	unsigned long long n;
	unsigned long long sum;
};

static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *d)
{
	struct tally *t = (struct tally *)user;

	t->n++;
	t->sum += h->caplen ? d[h->caplen - 1] : 0;
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct tally t = { 0 };
	struct pcap_pkthdr *h;
	const u_char *d;
	int dispatch = argc == 3 && strcmp(argv[1], "--dispatch") == 0;
	const char *path = argv[argc - 1];
	pcap_t *p;
	int ret;

	if (argc != 2 && !dispatch) {
		fprintf(stderr, "usage: pcap_read_loop [--dispatch] FILE\n");
		return 2;
	}
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fprintf(stderr, "pcap_read_loop: %s\n", errbuf);
		return 4;
	}
	if (dispatch) {
		while ((ret = pcap_dispatch(p, 4096, on_frame, (u_char *)&t)) > 0)
			;
	} else {
		while ((ret = pcap_next_ex(p, &h, &d)) == 1)
			on_frame((u_char *)&t, h, d);
	}
	pcap_close(p);
	printf("%llu packets (checksum %llu)\n", t.n, t.sum);
	return 0;
}
