/* SPDX-License-Identifier: MIT */
/*
 * labels.h - words for what the documents show: a segment by its role or
 * its flags, a system call, the verdict counts, an explanation on one line,
 * and where a stall of analyze happened. Pure functions writing into
 * (buf, len); nothing here touches a stream.
 */
#ifndef NT_RENDER_LABELS_H
#define NT_RENDER_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "nt/model/analysis.h"
#include "nt/model/event.h"
#include "nt/model/record.h"
#include "nt/model/stats.h"

/**
 * nt_label_segment() - a live segment by its role: "header 4 B", "pure ACK",
 * "SYN", "reply 2 B"
 * @seg: the segment
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_label_segment(const struct nt_segment *seg, char *buf, size_t len);

/**
 * nt_label_tcp() - a segment by its flags and length: "SYN", "SYN-ACK",
 * "FIN", "RST", "pure ACK", "data 19 B" ("FIN 19 B" with data)
 * @flags: NT_TCP_* flags
 * @payload_bytes: payload length
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_label_tcp(uint8_t flags, uint32_t payload_bytes, char *buf, size_t len);

/**
 * nt_label_call() - "write(header)", "read(request)", ...
 * @call: the call
 *
 * Return: a static string.
 */
const char *nt_label_call(enum nt_call call);

/**
 * nt_label_verdicts() - the verdict counts in words: "1 held, 3 stalled"
 * @s: the summary
 * @buf: filled ("no rounds" when empty)
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_label_verdicts(const struct nt_summary *s, char *buf, size_t len);

/**
 * nt_plural() - "s" unless @n is 1, for "1 flow", "2 flows"
 * @n: the count
 *
 * Return: "" or "s".
 */
const char *nt_plural(uint64_t n);

/**
 * nt_label_lost() - time lost as analyze prints it: "43.967", or
 * "38.200-58.100" when the least and the most it can have been differ
 * @min_ns: the least (the surely lost part)
 * @max_ns: the most
 * @buf: filled
 * @len: size of @buf (2 * NT_FMT_MS_LEN suffices)
 *
 * Return: @buf.
 */
const char *nt_label_lost(int64_t min_ns, int64_t max_ns, char *buf, size_t len);

/**
 * nt_label_p50() - a flow's median stall as the tables print it: "43.967",
 * or "~43.967" when it is a sample's (more than NT_STALL_KEPT stalls)
 * @r: the flow
 * @buf: filled
 * @len: size of @buf (NT_FMT_MS_LEN + 1 suffices)
 *
 * Return: @buf.
 */
const char *nt_label_p50(const struct nt_flow_result *r, char *buf, size_t len);

/**
 * nt_label_table_full() - why a report with flows evicted from a full table
 * is incomplete: "the flow table was full (--max-flows 65536): 1100000
 * active flows were evicted, stalls on them may be missed"
 * @an: the analysis (its summary's evicted_full is not 0)
 * @buf: filled
 * @len: size of @buf (160 suffices)
 *
 * Return: @buf.
 */
const char *nt_label_table_full(const struct nt_analysis *an, char *buf, size_t len);

/**
 * nt_label_lost_sum() - the time stalls lost and what their durations add up
 * to: "85.895 ms lost (127.780 ms summed over 3 held segments)"; the first
 * a range when some of it may be the other side's doing (nt_label_lost())
 * @min_ns: the surely lost wall-clock time
 * @wall_ns: the wall-clock time at least one segment waited
 * @sum_ns: the episodes' durations summed (they overlap when both sides wait)
 * @n: how many episodes
 * @buf: filled
 * @len: size of @buf (128 suffices)
 *
 * Return: @buf.
 */
const char *nt_label_lost_sum(int64_t min_ns, int64_t wall_ns, int64_t sum_ns, uint64_t n,
			      char *buf, size_t len);

/**
 * nt_label_episode_ends() - an analyze episode's two endpoints
 * @r: the flow
 * @ep: one of its episodes
 * @a: filled with A, the side whose data was held
 * @b: filled with B, the side whose ACK was late
 * @len: size of each of @a and @b (NT_FMT_ENDPOINT_LEN)
 */
void nt_label_episode_ends(const struct nt_flow_result *r, const struct nt_stall_episode *ep,
			   char *a, char *b, size_t len);

/**
 * nt_label_capture_time() - an absolute time of a flow's file, to that
 * capture's own precision (six decimals for a microsecond capture)
 * @an: the analysis
 * @r: the flow
 * @t_ns: the time
 * @buf: filled
 * @len: size of @buf (NT_FMT_UTC_LEN)
 *
 * Return: @buf.
 */
const char *nt_label_capture_time(const struct nt_analysis *an, const struct nt_flow_result *r,
				  int64_t t_ns, char *buf, size_t len);

/**
 * nt_label_occurrence() - where a stall happened, as the tables show it:
 * "frame 37, 2019-04-11T17:16:41.910018000Z", with "file 2, " in front when
 * several files were read
 * @an: the analysis
 * @r: the stall's flow
 * @ep: the stall
 * @buf: filled
 * @len: size of @buf (NT_LABEL_OCCURRENCE_LEN suffices)
 *
 * Return: @buf.
 */
const char *nt_label_occurrence(const struct nt_analysis *an, const struct nt_flow_result *r,
				const struct nt_stall_episode *ep, char *buf, size_t len);

/* Room for any nt_label_occurrence(). */
#define NT_LABEL_OCCURRENCE_LEN 96

/* Room for any nt_label_expectation(). */
#define NT_LABEL_EXPECTATION_LEN 256

/**
 * nt_label_expectation() - why a live run's expectation did not hold, one
 * line: "round 3 was held, expected stalled"
 * @why: the facts (nt_expect_round(), struct nt_record @expectation_why)
 * @buf: filled; "" when it held
 * @len: size of @buf (cut to it, NUL-terminated)
 *
 * Return: @buf.
 */
const char *nt_label_expectation(const struct nt_expect_why *why, char *buf, size_t len);

/**
 * nt_label_rtt_ms() - a path's RTT as the user gave it: "20", "0.5", "0.125"
 * @rtt_ns: the RTT
 * @buf: filled (in milliseconds, trailing zeros dropped)
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_label_rtt_ms(int64_t rtt_ns, char *buf, size_t len);

/**
 * nt_label_path() - the path a run went over, for a document's header:
 * "RTT 20 ms (user-space delay line), captured at the client"
 * @c: the run's configuration
 * @buf: filled; "" when the path added no RTT
 * @len: size of @buf (128 suffices)
 *
 * Return: @buf.
 */
const char *nt_label_path(const struct nt_record_config *c, char *buf, size_t len);

/**
 * nt_label_stall_cost() - what a stall costs on a path with an RTT, in
 * plain text: at the client "header->ACK 80.1 ms = the target's ACK delay
 * 60.1 ms (delayed-ACK timer) + RTT 20 ms"; at the target "the target's ACK
 * delay 40.1 ms (seen here) + RTT 20 ms = 60.1 ms at the client"
 * @c: the run's configuration (its RTT and capture end)
 * @lo_ns: the shortest stalled header->ACK gap, as captured
 * @hi_ns: the longest ("lo to hi" when they differ)
 * @buf: filled; "" when the path added no RTT or @lo_ns is unknown (< 0)
 * @len: size of @buf (192 suffices)
 *
 * Every format states the cost with this sentence: text's "stall cost:"
 * line, Markdown's and HTML's why section, an SVG panel's footer.
 *
 * Return: @buf.
 */
const char *nt_label_stall_cost(const struct nt_record_config *c, int64_t lo_ns, int64_t hi_ns,
				char *buf, size_t len);

#endif
