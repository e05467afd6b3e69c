// SPDX-License-Identifier: MIT
/*
 * pcap_read_loop.c - the reference for bench_analyze.sh: the cheapest way to
 * read every frame of a capture with libpcap (pcap_next_ex, nanosecond
 * timestamps, touch one byte per frame so nothing is optimised away).
 */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned long long n = 0, sum = 0;
	pcap_t *p;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_read_loop FILE\n");
		return 2;
	}
	p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fprintf(stderr, "pcap_read_loop: %s\n", errbuf);
		return 4;
	}
	while (pcap_next_ex(p, &h, &d) == 1) {
		n++;
		sum += h->caplen ? d[h->caplen - 1] : 0;
	}
	pcap_close(p);
	printf("%llu packets (checksum %llu)\n", n, sum);
	return 0;
}
