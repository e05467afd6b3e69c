/* SPDX-License-Identifier: MIT */
/*
 * conclusion.h - what a comparison of fixes concludes (`nagle-trace run
 * --fix A,B,...`): which side held the data in each run, why a fix that
 * left the stalls could not help, and which fix removed them at the least
 * cost (packets per request).
 *
 * Pure: the renderers give one struct nt_conclusion_row per run and print
 * what nt_conclude() decided; every sentence's kernel rule is in
 * nt_conclusion_why().
 */
#ifndef NT_MODEL_CONCLUSION_H
#define NT_MODEL_CONCLUSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the held data was: the side whose write Nagle kept back. */
enum nt_hold_side {
	NT_HOLD_NONE = 0, /* no stall */
	NT_HOLD_CLIENT,	  /* the client's write waited for the target's delayed ACK */
	NT_HOLD_TARGET,	  /* the target's write (its reply) waited for the client's ACK */
	NT_HOLD_BOTH,	  /* both, in comparable numbers */
};

/* What a fix acts on (nt/live/fix.h's fixes, by name). */
enum nt_fix_acts {
	NT_FIX_ACTS_NOTHING = 0,   /* none */
	NT_FIX_ACTS_CLIENT_NAGLE,  /* nodelay: the client's sockets send at once */
	NT_FIX_ACTS_TARGET_NAGLE,  /* nodelay-target: the target's sockets send at once */
	NT_FIX_ACTS_TARGET_ACKS,   /* quickack: the target acknowledges at once */
	NT_FIX_ACTS_TARGET_DELACK, /* rto-min=MS: the target's delayed-ACK timer is shorter */
};

/**
 * struct nt_conclusion_row - one run of a comparison
 * @fix: the fix's name ("none", "rto-min=5")
 * @ok: the client exited 0 and the report is complete
 * @stalls: stall episodes
 * @held_client: of which the client's data was held (NT_DIR_C2T)
 * @held_target: of which the target's
 * @packets: frames captured
 * @exchanges: requests answered
 * @p50_ns: request -> answer median, -1 unknown
 * @p90_ns: its 90th percentile, -1 unknown
 * @p99_ns: its 99th percentile, -1 unknown
 */
struct nt_conclusion_row {
	const char *fix;
	bool ok;
	uint64_t stalls;
	uint64_t held_client;
	uint64_t held_target;
	uint64_t packets;
	uint64_t exchanges;
	int64_t p50_ns;
	int64_t p90_ns;
	int64_t p99_ns;
};

/**
 * struct nt_conclusion - what the comparison concludes
 * @before: the run without a fix (`none`), else the first; an index
 * @held: where the data was held in @before
 * @best: the fix that removed every stall with the fewest packets per
 *        request; -1 when none removed them all
 * @fewest: when @best is -1, the run with the fewest stalls (ties: fewer
 *          packets per request), -1 when no run was ok
 */
struct nt_conclusion {
	size_t before;
	enum nt_hold_side held;
	long best;
	long fewest;
};

/**
 * nt_hold_side_of() - where a run's stalls held data
 * @row: the run
 *
 * Return: NT_HOLD_BOTH when the smaller side has at least a quarter of the
 * stalls, else the larger side; NT_HOLD_NONE without stalls.
 */
enum nt_hold_side nt_hold_side_of(const struct nt_conclusion_row *row);

/**
 * nt_hold_side_name() - "the client", "the target", "both sides", "nowhere"
 * @side: the side
 *
 * Return: a static string.
 */
const char *nt_hold_side_name(enum nt_hold_side side);

/**
 * nt_fix_acts_of() - what a fix acts on, by its name
 * @fix: "nodelay", "quickack", "rto-min=5", ...
 *
 * Return: the enum value; NT_FIX_ACTS_NOTHING for "none" and unknown names.
 */
enum nt_fix_acts nt_fix_acts_of(const char *fix);

/**
 * nt_packets_per_request_x100() - a run's cost, in hundredths of a packet
 * @row: the run
 *
 * Return: packets * 100 / exchanges, UINT64_MAX without exchanges.
 */
uint64_t nt_packets_per_request_x100(const struct nt_conclusion_row *row);

/**
 * nt_conclude() - the comparison's conclusion
 * @rows: the runs, in the order they ran
 * @n: how many (at least 1)
 * @out: filled
 */
void nt_conclude(const struct nt_conclusion_row *rows, size_t n, struct nt_conclusion *out);

/**
 * nt_conclusion_why() - why a fix did or did not remove the stalls of a
 * hold at @held, with the kernel rule
 * @fix: the fix's name
 * @held: where the data was held without the fix
 * @removed: the run with the fix had no stall
 *
 * Return: a static sentence (no trailing period).
 */
const char *nt_conclusion_why(const char *fix, enum nt_hold_side held, bool removed);

/**
 * nt_hold_fix_advice() - the fix that belongs to the side that held
 * @held: where the data was held
 *
 * Return: a static sentence (no trailing period), "" for NT_HOLD_NONE.
 */
const char *nt_hold_fix_advice(enum nt_hold_side held);

#endif
