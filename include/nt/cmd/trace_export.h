/* SPDX-License-Identifier: MIT */
/*
 * trace_export.h - what a live run writes beside its report, per variant:
 * -w's capture as pcap, or as pcapng with each round's H, A and B
 * commented (a -w name ending in .pcapng), and --export-packetdrill's
 * script of the stalled round.
 *
 * -w x.pcapng: the frames go to an unnamed temporary pcap while the run
 * goes (nt_pcap_writer_new_spool()), each retired round's H, A, B to a
 * second one as fixed-size records; once the run is over, the summary is
 * known and becomes the section comment, and the frames are copied into
 * the pcapng, each commented frame found again by its capture timestamp.
 * Memory stays flat however many rounds run. Both destinations are
 * reserved before the lab is built, so a bad directory fails at once, and
 * are complete or absent.
 */
#ifndef NT_CMD_TRACE_EXPORT_H
#define NT_CMD_TRACE_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/capture/pcap_writer.h"
#include "nt/err.h"
#include "nt/output.h"
#include "nt/live/variant.h"
#include "nt/model/record.h"
#include "nt/render/packetdrill.h"
#include "nt/render/pick.h"

/**
 * struct nt_trace_export - one variant's extra files
 * @pcapng: -w names a .pcapng
 * @ng: its destination
 * @marks: the retired rounds' H, A, B records (struct nt_annot_round_mark)
 * @pkt: --export-packetdrill was given
 * @pkt_out: its destination
 * @client: the variant's socket use, for the script
 * @pick: the round the script shows
 * @hs: the handshake's events
 * @n_hs: how many
 * @error: the first failure while the run went (reported at commit)
 * @sink: the sink handed to the run: these, then @next
 * @next: the report's sink
 */
struct nt_trace_export {
	bool pcapng;
	struct nt_output ng;
	FILE *marks;
	bool pkt;
	struct nt_output pkt_out;
	struct nt_pkt_client client;
	struct nt_pick pick;
	struct nt_event *hs;
	size_t n_hs;
	int error;
	struct nt_record_sink sink;
	const struct nt_record_sink *next;
};

/**
 * nt_trace_export_open_pcap() - -w: the writer the run dumps its frames to
 * @x: the variant's exports (zeroed at first)
 * @path: the -w file for this variant (.pcapng: pcapng with comments)
 * @w: set to the writer to hand the run
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_trace_export_open_pcap(struct nt_trace_export *x, const char *path,
			      struct nt_pcap_writer **w, struct nt_err *err);

/**
 * nt_trace_export_open_pkt() - --export-packetdrill: reserve the script's file
 * @x: the variant's exports
 * @path: the script for this variant
 * @v: the variant (its socket options and write steps)
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_trace_export_open_pkt(struct nt_trace_export *x, const char *path,
			     const struct nt_variant *v, struct nt_err *err);

/**
 * nt_trace_export_sink() - the sink to give the run
 * @x: the variant's exports
 * @next: the report's sink
 *
 * Return: @next itself when nothing is exported.
 */
const struct nt_record_sink *nt_trace_export_sink(struct nt_trace_export *x,
						  const struct nt_record_sink *next);

/**
 * nt_trace_export_commit() - the run is over: write and commit the files
 * @x: the variant's exports
 * @w: the -w writer (committed or finished here, freed), or NULL
 * @run: the finished run
 * @err: filled on failure
 *
 * Return: 0 or a negative errno; every file not committed is removed.
 */
int nt_trace_export_commit(struct nt_trace_export *x, struct nt_pcap_writer *w,
			   const struct nt_record *run, struct nt_err *err);

/**
 * nt_trace_export_abort() - remove everything; safe on a zeroed @x
 * @x: the variant's exports
 * @w: the -w writer (aborted), or NULL
 */
void nt_trace_export_abort(struct nt_trace_export *x, struct nt_pcap_writer *w);

#endif
