/* SPDX-License-Identifier: MIT */
/*
 * analyze_pipeline.h - the offline pipeline behind `nagle-trace analyze`,
 * reader -> decoder -> flow table -> stall rule -> results, exposed for the
 * fuzz target and the benchmark.
 */
#ifndef NT_ANALYZE_PIPELINE_H
#define NT_ANALYZE_PIPELINE_H

#include "nt/capture/pcap_file.h"
#include "nt/err.h"
#include "nt/model/analysis.h"

/**
 * nt_analyze_stream() - run one open capture through the analysis
 * @an: the analysis; nt_analysis_file_begin() already called for this input
 * @f: the reader (not closed here)
 * @filter: a filter expression, NULL for none
 * @err: why reading stopped early
 *
 * Ends the file in @an (nt_analysis_file_end()) in every case, recording the
 * error text when reading stopped early.
 *
 * Return: 0 when read to the end, -EIO when damaged, -EINVAL when @filter
 * does not compile for the file's link type.
 */
int nt_analyze_stream(struct nt_analysis *an, struct nt_pcap_file *f, const char *filter,
		      struct nt_err *err);

#endif
