// SPDX-License-Identifier: MIT
/*
 * fuzz_pcapng.c - libFuzzer target for the pcapng block reader
 * (src/capture/pcapng_read.c) as analyze reaches it: the input is a file,
 * read through nt_pcap_file_fopen() from an fmemopen() stream, every frame
 * decoded with its own interface's link type; inputs whose last byte is odd
 * also go through a filter, compiled for each link type met. Any input that
 * does not start with a Section Header Block goes to libpcap instead, so
 * the seeds all do.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/capture/pcap_file.h"
#include "nt/model/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nt_err err = { "" };
	struct nt_pcap_file *f;
	struct nt_frame fr;
	FILE *fp;

	if (size == 0)
		return 0;
	fp = fmemopen((void *)data, size, "rb");
	if (!fp || nt_pcap_file_fopen(fp, "fuzz", &f, &err) < 0)
		return 0;
	if (data[size - 1] & 1)
		(void)nt_pcap_file_set_filter(f, "tcp or ether broadcast", &err);
	/* Bounded by the input: every frame consumes one block of it. */
	while (nt_pcap_file_next(f, &fr, &err) == 1) {
		struct nt_tcp_packet pkt;

		(void)nt_decode_frame(fr.linktype, fr.data, fr.caplen, &pkt);
		(void)nt_pcap_file_snaplen(f);
	}
	nt_pcap_file_close(f);
	return 0;
}
