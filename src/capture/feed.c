// SPDX-License-Identifier: MIT
/*
 * feed.c - a capture file through the analysis (see nt/capture/feed.h).
 */
#include "nt/capture/feed.h"

enum nt_feed_end nt_feed_file(struct nt_analysis *an, struct nt_pcap_file *f, const char *filter,
			      struct nt_err *err)
{
	struct nt_err local = { "" };
	struct nt_frame fr;
	int ret;

	nt_analysis_set_linktype(an, nt_pcap_file_linktype(f));
	if (filter && nt_pcap_file_set_filter(f, filter, &local) < 0) {
		nt_analysis_file_end(an, local.msg);
		nt_err_set(err, 0, "%s", local.msg);
		return NT_FEED_BAD_FILTER;
	}
	while ((ret = nt_pcap_file_next(f, &fr, &local)) == 1)
		nt_analysis_frame(an, fr.t_ns, fr.data, fr.caplen);
	nt_analysis_file_end(an, ret < 0 ? local.msg : NULL);
	if (ret == 0)
		return NT_FEED_COMPLETE;
	nt_err_set(err, 0, "%s", local.msg);
	return NT_FEED_DAMAGED;
}
