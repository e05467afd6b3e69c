// SPDX-License-Identifier: MIT
/*
 * feed.c - a capture file through the analysis (see nt/capture/feed.h).
 */
#include "nt/capture/feed.h"

static void feed_frame(void *ctx, const struct nt_frame *fr)
{
	nt_analysis_frame(ctx, fr->t_ns, fr->data, fr->caplen);
}

enum nt_feed_end nt_feed_file(struct nt_analysis *an, struct nt_pcap_file *f, const char *filter,
			      uint64_t max_frames, uint64_t *frames_read, struct nt_err *err)
{
	int linktype = nt_pcap_file_linktype(f);
	struct nt_err local = { "" };
	uint64_t n = 0;
	char name[64];
	int ret;

	nt_analysis_set_linktype(an, linktype,
				 nt_capture_linktype_name(linktype, name, sizeof(name)));
	if (filter && nt_pcap_file_set_filter(f, filter, &local) < 0) {
		nt_analysis_file_end(an, local.msg);
		nt_err_set(err, 0, "%s", local.msg);
		return NT_FEED_BAD_FILTER;
	}
	ret = nt_pcap_file_each(f, max_frames, feed_frame, an, &n, &local);
	if (frames_read)
		*frames_read = n;
	nt_analysis_file_end(an, ret < 0 ? local.msg : NULL);
	if (ret == 0)
		return NT_FEED_COMPLETE;
	nt_err_set(err, 0, "%s", local.msg);
	return NT_FEED_DAMAGED;
}
