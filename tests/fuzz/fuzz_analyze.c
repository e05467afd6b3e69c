// SPDX-License-Identifier: MIT
/*
 * fuzz_analyze.c - libFuzzer target for the whole offline pipeline: the
 * input is a capture file, read by libpcap through nt_pcap_file_fopen() from
 * an fmemopen() stream, analysed, and rendered in both formats to /dev/null.
 * The pcap reader, the decoder, the flow table (a small cap, so eviction
 * runs), the stall rule and the renderers are all in the path.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/capture/feed.h"
#include "nt/render/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nt_analysis_params params = {
		.stall = { .threshold_ns = 10000000, .release_ns = 1000000 },
		.max_flows = 4,
		.idle_ns = 60000000000LL,
	};
	struct nt_analysis_view view = { .filter = NULL };
	struct nt_err err = { "" };
	struct nt_pcap_file *f;
	struct nt_analysis an;
	FILE *fp, *out;

	if (size == 0)
		return 0;
	fp = fmemopen((void *)data, size, "rb");
	if (!fp)
		return 0;
	if (nt_analysis_init(&an, &params) < 0) {
		fclose(fp);
		return 0;
	}
	if (nt_analysis_file_begin(&an, "fuzz") == 0) {
		if (nt_pcap_file_fopen(fp, "fuzz", &f, &err) == 0) {
			nt_feed_file(&an, f, NULL, 0, false, NULL, &err);
			nt_pcap_file_close(f);
		} else {
			nt_analysis_file_end(&an, err.msg);
		}
	} else {
		fclose(fp);
	}
	nt_analysis_finish(&an);
	out = fopen("/dev/null", "w");
	if (out) {
		nt_render_analysis_text(out, &an, &view);
		nt_render_analysis_json(out, &an, &view);
		fclose(out);
	}
	nt_analysis_fini(&an);
	return 0;
}
