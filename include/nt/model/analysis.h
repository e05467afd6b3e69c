/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - offline analysis of captured frames: decode, track flows,
 * apply the stall rule, keep a report per flow that stalled.
 *
 * Pure: frames come in as bytes with a timestamp and a link type, results
 * come out as structs for the renderers. Knows nothing of pcap files.
 * Memory is bounded by the flow cap plus one report per flow that stalled
 * (the flow cap alone when the report shows one flow or none: enum
 * nt_analysis_keep).
 */
#ifndef NT_MODEL_ANALYSIS_H
#define NT_MODEL_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/model/annotate.h"
#include "nt/model/arena.h"
#include "nt/model/blocks.h"
#include "nt/model/decode.h"
#include "nt/model/flowtab.h"
#include "nt/model/pool.h"
#include "nt/model/stall.h"
#include "nt/model/stall_recs.h"
#include "nt/model/stats.h"

#define NT_TIMELINE_MAX (NT_FLOW_RING + NT_FLOW_AFTER)
/* Stall durations a report holds before moving them to the heap: one cache line. */
#define NT_STALL_BATCH 8

/*
 * Stall durations a flow's report keeps, for its median: every one up to
 * this many stalls (an exact median), a uniform sample of this many beyond
 * (reservoir sampling, the median of the sample, marked as such). 8 KiB a
 * flow at most: memory follows the flows, not the capture's length. With
 * 1024 values the sample median's rank is within about 1.6 % of the true
 * one in 95 % of cases; delayed-ACK stalls cluster within a few ms, so the
 * value moves by far less.
 */
#define NT_STALL_KEPT 1024

/*
 * Frames decoded at once and then settled into their flows together: a
 * batch is the look-ahead that lets the flow table's cache misses overlap
 * (analysis.c), and the unit a second thread hands over (capture/feed.c).
 * 256 frames of about 170 bytes stay in the L2 cache of the core settling
 * them; fewer gave up measured time to the per-batch hand-over.
 */
#define NT_ANALYSIS_BATCH 256

/**
 * struct nt_analysis_pending - a frame decoded, waiting for its flow
 * @pkt: the decoded packet (when @status is NT_DECODE_OK)
 * @t_ns: capture time
 * @note: what a -w file noted on the frame (nt_analysis_frame_of())
 * @status: an enum nt_decode_status: frames that are not TCP are counted
 *
 * What nt_analysis_decode() makes of a frame without the analysis: no
 * counter, no frame number, so that decoding can run on another thread.
 */
struct nt_analysis_pending {
	int64_t t_ns;
	struct nt_frame_note note;
	struct nt_tcp_packet pkt;
	uint8_t status;
};

/* A batch's flow keys, made where it is settled (analysis.c). */
struct nt_analysis_keyed;

/**
 * struct nt_analysis_batch - frames decoded, in capture order
 * @n: how many
 * @p: the frames
 */
struct nt_analysis_batch {
	unsigned n;
	struct nt_analysis_pending p[NT_ANALYSIS_BATCH];
};

/*
 * Which reports of flows that stalled are kept once their flows leave the
 * table, for what the report shows. A flow's report lives while the flow is
 * in the table in every case: the totals (&nt_analysis_summary) come from
 * it as the stalls come.
 */
enum nt_analysis_keep {
	/* Every one (the reports that list flows) */
	NT_KEEP_ALL = 0,
	/*
	 * The worst alone: the most wall-clock time lost (&nt_flow_result.wall),
	 * the first in the reports' order among equals (nt_analysis_worse(), as
	 * nt_pick_worst_flow() picks among all for the SVG ladder): one report
	 * per analysis
	 */
	NT_KEEP_WORST,
	/* None (analyze --brief): no timeline, no median either */
	NT_KEEP_NONE,
};

/**
 * struct nt_analysis_params - the analysis knobs
 * @stall: the episode rule's thresholds
 * @max_flows: flow table cap
 * @idle_ns: idle eviction timeout, capture time
 * @keep_stalls: keep every stall of a flow (&nt_flow_result.all), for the
 *               reports that list them; without it only the counts, the
 *               first and last stall and the durations' sample are kept
 * @keep: which flows' reports outlive their flows (enum nt_analysis_keep)
 */
struct nt_analysis_params {
	struct nt_stall_params stall;
	uint32_t max_flows;
	int64_t idle_ns;
	bool keep_stalls;
	uint8_t keep;
};

/**
 * struct nt_flow_result - the report of one flow with at least one stall
 * @file: index of its file in &nt_analysis.files
 * @family: AF_INET or AF_INET6
 * @client_addr: client address (the SYN's sender, else the first packet's)
 * @target_addr: target address
 * @client_port: client port
 * @target_port: target port
 * @syn_seen: the handshake was captured
 * @mss: MSS option per direction's SYN (index enum nt_dir), 0 unseen
 * @rtt_ns: round trip from the capture point to the client and to the
 *          target (index NT_DIR_C2T: client side), -1 unknown
 * @packets: packets of the flow
 * @first_t_ns: its first packet
 * @last_t_ns: its last packet
 * @evicted: left the table before the end of its file (idle or full)
 * @p50_sampled: more than NT_STALL_KEPT stalls: @p50_ns is a sample's median
 * @stalls: stall episodes
 * @think_time: think-time episodes
 * @by_delack: stalls per enum nt_delack_class
 * @stall_ns: each stall's duration (R - H), in order, but for the latest
 *            @stalls % NT_STALL_BATCH (in @recent_ns); NULL until the first
 *            NT_STALL_BATCH. Past NT_STALL_KEPT stalls, a uniform sample
 *            of NT_STALL_KEPT of them.
 * @stall_ns_cap: allocated slots of @stall_ns (a block of
 *                &nt_analysis.blocks of that many)
 * @out_of_order: segments out of order, both directions (nt/model/reorder.h)
 * @total_ns: sum of the durations
 * @max_ns: longest
 * @sample_state: the sample's random numbers (a fixed seed: reports repeat)
 * @recent_ns: the durations not yet in @stall_ns, @stalls % NT_STALL_BATCH
 * @last: the last stall (next to the fields every stall updates)
 * @p50_ns: nearest-rank median (of the sample when @p50_sampled), set when
 *          the flow leaves the table
 * @first: the first stall
 * @first_held_seq_rel: relative sequence number of the first stall's H
 * @wall: the union of the stalls' [H, R] intervals: the wall-clock time at
 *        least one segment of the flow waited (@total_ns sums the episodes,
 *        which overlap when both directions wait at once)
 * @wall_min: the union of [R - lost_min, R]: the time surely lost, when the
 *            other side's data may explain part of a wait
 * @all: every stall, in the order found (by R), @stalls of them, packed
 *       (nt/model/stall_recs.h); none unless
 *       &nt_analysis_params.keep_stalls. Beside @wall_min, in the lines a
 *       stall writes, which are asked for before it is found (analysis.c,
 *       prefetch_report()): in the line @wall_min ends in, no line more.
 * @timeline: segments around the first stall
 * @n_timeline: how many
 */
struct nt_flow_result {
	uint32_t file;
	int family;
	uint8_t client_addr[16];
	uint8_t target_addr[16];
	uint16_t client_port;
	uint16_t target_port;
	bool syn_seen;
	uint16_t mss[2];
	int64_t rtt_ns[2];
	uint64_t packets;
	int64_t first_t_ns;
	int64_t last_t_ns;
	bool evicted;
	bool p50_sampled;
	uint32_t stalls;
	uint32_t think_time;
	uint32_t by_delack[3];
	int64_t *stall_ns;
	uint32_t stall_ns_cap;
	uint32_t out_of_order;
	int64_t total_ns;
	int64_t max_ns;
	uint64_t sample_state;
	int64_t recent_ns[NT_STALL_BATCH];
	struct nt_stall_episode last;
	int64_t p50_ns;
	struct nt_stall_episode first;
	uint32_t first_held_seq_rel;
	struct nt_spans wall;
	struct nt_spans wall_min;
	struct nt_stall_recs all;
	struct nt_tl_seg timeline[NT_TIMELINE_MAX];
	uint8_t n_timeline;
};

/**
 * struct nt_analysis_file - what was read from one input
 * @path: as given ("-" for standard input)
 * @linktype: the capture's link type, -1 before it was opened
 * @linktype_name: its name as tcpdump prints it ("EN10MB (Ethernet)"), ""
 *                 before it was opened
 * @packets: frames read
 * @tcp_packets: frames decoded to TCP
 * @not_decoded: frames not decoded, per enum nt_decode_status
 * @first_t_ns: first frame's time, -1 when none
 * @last_t_ns: last frame's time, -1 when none
 * @flows: TCP flows seen
 * @flows_with_stalls: of which stalled
 * @stalls: stall episodes
 * @out_of_order: segments out of order (nt/model/reorder.h)
 * @late_frames: frames a nagle-trace -w file notes the delay line forwarded
 *               late (NT_PCAPNG_LATE_PREFIX)
 * @late_ns: their lateness, summed: what the stall rule took off the ACK
 *           delays of the headers and ACKs among them
 * @error: why reading stopped early (one line), NULL when read completely
 * @sub_us: some frame's time has digits below the microsecond: times are
 *          printed with nine decimals, else six (a microsecond capture)
 */
struct nt_analysis_file {
	char *path;
	int linktype;
	char linktype_name[64];
	uint64_t packets;
	uint64_t tcp_packets;
	uint64_t not_decoded[NT_DECODE_STATUS_COUNT];
	int64_t first_t_ns;
	int64_t last_t_ns;
	uint64_t flows;
	uint64_t flows_with_stalls;
	uint64_t stalls;
	uint64_t out_of_order;
	uint64_t late_frames;
	int64_t late_ns;
	char *error;
	bool sub_us;
};

/**
 * struct nt_analysis_summary - totals over all files
 * @packets: frames read
 * @tcp_packets: decoded to TCP
 * @not_decoded: per enum nt_decode_status
 * @flows: TCP flows
 * @flows_with_stalls: flows with at least one stall
 * @stalls: stall episodes
 * @think_time: think-time episodes
 * @out_of_order: segments out of order (nt/model/reorder.h), both directions
 * @flows_out_of_order: flows with at least one
 * @by_delack: stalls per enum nt_delack_class
 * @by_dir: stalls per direction of the held data (enum nt_dir: NT_DIR_C2T,
 *          the flow's client held)
 * @total_stall_ns: the stalls' durations summed
 * @stalled_wall_ns: wall-clock time a connection waited: each flow's union of
 *                   its stall intervals (struct nt_flow_result @wall), summed
 *                   over flows: every connection that waits loses that time
 * @stalled_wall_min_ns: likewise of the surely lost parts (@wall_min)
 * @evicted_idle: flows evicted for idleness
 * @evicted_full: flows evicted because the table was full
 * @files_damaged: files that could not be read to the end
 */
struct nt_analysis_summary {
	uint64_t packets;
	uint64_t tcp_packets;
	uint64_t not_decoded[NT_DECODE_STATUS_COUNT];
	uint64_t flows;
	uint64_t flows_with_stalls;
	uint64_t stalls;
	uint64_t think_time;
	uint64_t out_of_order;
	uint64_t flows_out_of_order;
	uint64_t by_delack[3];
	uint64_t by_dir[2];
	int64_t total_stall_ns;
	int64_t stalled_wall_ns;
	int64_t stalled_wall_min_ns;
	uint64_t evicted_idle;
	uint64_t evicted_full;
	uint64_t files_damaged;
};

/**
 * typedef nt_analysis_stall_fn - told of each stall the moment it is found
 * @ctx: the hook's context
 * @e: the flow's entry (its report @e->res holds the stall already); valid
 *     only during the call
 * @ep: the stall
 * @release: R, the segment that completed it
 *
 * Called from nt_analysis_settle(), in capture order (nagle-trace watch).
 */
typedef void (*nt_analysis_stall_fn)(void *ctx, const struct nt_flow_entry *e,
				     const struct nt_stall_episode *ep,
				     const struct nt_tcp_packet *release);

/**
 * struct nt_analysis - one analysis over one or more files
 * @params: the knobs
 * @tab: flow table of the current file
 * @files: inputs, in order
 * @n_files: how many
 * @flows: reports of the flows that stalled, in order of their first stall
 *         once nt_analysis_finish() ran; each from @reports
 * @n_flows: how many
 * @flows_cap: allocated slots
 * @sum: totals
 * @cur_linktype: link type of the current file
 * @oom: an allocation failed; results are incomplete
 * @annot: when set, every stall is also kept here (--annotate); NULL: not kept
 * @batch: frames given to nt_analysis_frame() not yet settled (allocated by
 *         nt_analysis_init())
 * @keyed: nt_analysis_settle()'s own, for the batch it settles (allocated
 *         by nt_analysis_init())
 * @on_stall: when set, told of every stall as it is found; NULL: not told
 * @on_stall_ctx: its context
 * @reports: the memory of the reports, one struct nt_flow_result each
 *           (nt/model/pool.h: huge pages once there are many)
 * @blocks: the memory of the reports' growing arrays (their @stall_ns and
 *          @all: nt/model/blocks.h)
 * @arena: where @reports and @blocks take their small chunks
 *         (nt/model/arena.h)
 * @files_pages: @files' memory: pages of its own, since the settling
 *               thread counts every frame into it (nt_analysis_settle())
 *               and a neighbour in malloc()'s heap (the reader thread's
 *               FILE, say) sharing its cache lines would make the two
 *               threads take the lines from each other at every frame
 */
struct nt_analysis {
	struct nt_analysis_params params;
	struct nt_flowtab tab;
	struct nt_analysis_file *files;
	size_t n_files;
	struct nt_flow_result **flows;
	size_t n_flows;
	size_t flows_cap;
	struct nt_analysis_summary sum;
	int cur_linktype;
	bool oom;
	struct nt_annot_list *annot;
	struct nt_analysis_batch *batch;
	struct nt_analysis_keyed *keyed;
	nt_analysis_stall_fn on_stall;
	void *on_stall_ctx;
	struct nt_pool reports;
	struct nt_blocks blocks;
	struct nt_arena arena;
	struct nt_pages files_pages;
};

/**
 * nt_analysis_init() - start an analysis
 * @an: the analysis
 * @params: the knobs (copied)
 *
 * Return: 0 or -ENOMEM.
 */
int nt_analysis_init(struct nt_analysis *an, const struct nt_analysis_params *params);

/**
 * nt_analysis_fini() - free everything; safe on a zeroed analysis
 * @an: the analysis
 */
void nt_analysis_fini(struct nt_analysis *an);

/**
 * nt_analysis_file_begin() - the next input starts
 * @an: the analysis
 * @path: its name as the user gave it (copied)
 *
 * Return: 0 or -ENOMEM.
 */
int nt_analysis_file_begin(struct nt_analysis *an, const char *path);

/**
 * nt_analysis_set_linktype() - the current input's link type, once known
 * @an: the analysis
 * @linktype: a LINKTYPE_ or DLT_ value
 * @name: its name as the reports print it (copied, cut to fit)
 */
void nt_analysis_set_linktype(struct nt_analysis *an, int linktype, const char *name);

/**
 * nt_analysis_frame() - analyse one frame of the current input
 * @an: the analysis
 * @t_ns: capture time, ns since the epoch
 * @frame: captured bytes
 * @caplen: how many
 *
 * nt_analysis_decode() into @an->batch, and nt_analysis_settle() when it is
 * full: a frame reaches its flow and the counts up to NT_ANALYSIS_BATCH
 * frames later (nt_analysis_file_end() settles the rest).
 *
 * Return: 0 or -ENOMEM, for this frame or one before it (counted in
 * @an->oom; analysis goes on).
 */
int nt_analysis_frame(struct nt_analysis *an, int64_t t_ns, const uint8_t *frame, size_t caplen);

/**
 * nt_analysis_frame_of() - nt_analysis_frame() for a frame of its own link type
 * @an: the analysis
 * @linktype: the frame's link type (a pcapng file's interfaces may differ)
 * @t_ns: capture time, ns since the epoch
 * @note: what a nagle-trace -w file noted on it (struct nt_frame_note:
 *        the delay line's lateness, when its write returned), NULL when
 *        nothing
 * @frame: captured bytes
 * @caplen: how many
 *
 * Return: as nt_analysis_frame().
 */
int nt_analysis_frame_of(struct nt_analysis *an, int linktype, int64_t t_ns,
			 const struct nt_frame_note *note, const uint8_t *frame, size_t caplen);

/**
 * nt_analysis_decode() - a frame, decoded for the analysis
 * @linktype: the input's link type
 * @t_ns: capture time, ns since the epoch
 * @note: as nt_analysis_frame_of()
 * @frame: captured bytes (not kept)
 * @caplen: how many
 * @p: the result
 *
 * Pure: touches no analysis, so one thread can decode while another settles.
 */
void nt_analysis_decode(int linktype, int64_t t_ns, const struct nt_frame_note *note,
			const uint8_t *frame, size_t caplen, struct nt_analysis_pending *p);

/**
 * nt_analysis_settle() - count decoded frames in and run them through their flows
 * @an: the analysis (frames given to nt_analysis_frame() before were settled)
 * @p: frames of the current input, in capture order, next after those settled
 * @n: how many, at most NT_ANALYSIS_BATCH
 *
 * Frame numbers are given here, in order of settling. The flow keys are
 * made here too, a batch at a time, before any of them is looked up: the
 * buckets can be asked for ahead of the lookups.
 *
 * Return: 0 or -ENOMEM (counted in @an->oom; analysis goes on).
 */
int nt_analysis_settle(struct nt_analysis *an, const struct nt_analysis_pending *p, size_t n);

/**
 * nt_analysis_file_end() - the current input ended; its flows are closed
 * @an: the analysis
 * @error: why it ended early (one line, copied), NULL when read completely
 */
void nt_analysis_file_end(struct nt_analysis *an, const char *error);

/**
 * nt_analysis_drop_closed() - free the reports of flows that left the table
 * @an: the analysis
 *
 * For a capture that never ends (nagle-trace watch): a flow's report is kept
 * in @an->flows once the flow is evicted, so memory would follow every flow
 * that ever stalled; a caller that keeps what it needs of each stall (through
 * @an->on_stall) drops them, and memory follows the flows in the table.
 * The totals (@an->sum, the file's counts) stay.
 */
void nt_analysis_drop_closed(struct nt_analysis *an);

/**
 * nt_analysis_absorb() - append an analysis of the inputs that come next
 * @an: the analysis, between files (no file open), not finished
 * @part: an analysis of later inputs, with the same params, between files,
 *        not finished; its files and reports move to @an (its annotation
 *        list, when both have one, too), and it is left to nt_analysis_fini()
 *
 * Analyses of files made apart (in worker threads, say) and absorbed in the
 * order of the files give what one analysis reading them in that order
 * gives, once finished.
 *
 * Return: 0, or -ENOMEM (nothing moved).
 */
int nt_analysis_absorb(struct nt_analysis *an, struct nt_analysis *part);

/**
 * nt_analysis_complete() - whether the report holds every stall the rule finds
 * @an: the analysis, finished
 *
 * Not when memory ran out, a file could not be read to its end, or the flow
 * table was full and evicted flows that were still active (their state went
 * with them: a stall under way, the handshake's MSS and round trip).
 *
 * Return: true when complete.
 */
bool nt_analysis_complete(const struct nt_analysis *an);

/**
 * nt_analysis_worse() - whether report @a is to be shown before @b as the
 * worst flow: more wall-clock time lost (&nt_flow_result.wall), else first in
 * the reports' order (nt_analysis_finish()). The one rule for NT_KEEP_WORST
 * and for nt_pick_worst_flow().
 * @a: a closed report
 * @b: another
 *
 * Return: true when @a is the worse.
 */
bool nt_analysis_worse(const struct nt_flow_result *a, const struct nt_flow_result *b);

/**
 * nt_analysis_finish() - order the flows (by file, then first stall)
 * @an: the analysis
 */
void nt_analysis_finish(struct nt_analysis *an);

#endif
