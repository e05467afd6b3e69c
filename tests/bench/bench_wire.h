/* SPDX-License-Identifier: MIT */
/*
 * bench_wire.h - what the three files of the delay line's benchmark share
 * (private to tests/bench/, not part of nt-core).
 *
 * bench_wire.c parses the options, prints the figures and holds main();
 * bench_wire_run.c does one run in the lab (namespaces, sockets, the
 * ping-pong, drops) and the sleep reference next to it;
 * bench_wire_frames.c holds the captures and matches the frames each side
 * saw. They were one file until it outgrew the house limit of ~600 lines.
 */
#ifndef NT_BENCH_WIRE_H
#define NT_BENCH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/lab/lab.h"

/* The ping-pong's server port: the captures keep only frames to or from it. */
#define PORT	  7000
#define MAX_RTTS  8
#define NS_PER_US 1000LL
/* The three stretches of client -> target, with --hops: nt-c to nt-mc, the wire, nt-mt to nt-t. */
#define HOPS 3

/**
 * struct options - the command line
 * @rtt_ms: the RTTs to run, one lab each (--rtt-ms, repeatable)
 * @n_rtts: how many of @rtt_ms are set
 * @rounds: round trips per run (--rounds), 0 for about 10 s of them
 * @ipv6: run over IPv6 (--ipv6)
 * @spin_ns: the wire's spin before a deadline (--spin-us); 0 the lab's default, < 0 off
 * @resolve: leave neighbour resolution to the kernel (--resolve)
 * @payload: bytes each way per round trip (--payload)
 * @sleep_samples: wake-ups of the sleep reference after each run (--sleep-samples)
 * @hops: also capture on the middle ends (--hops)
 * @json: print JSON (--json)
 */
struct options {
	int64_t rtt_ms[MAX_RTTS];
	int n_rtts;
	long rounds;
	bool ipv6;
	int64_t spin_ns;
	bool resolve;
	int payload;
	int sleep_samples;
	bool hops;
	bool json;
};

/* One captured frame: when, which way it crossed the capture point, and a hash of its bytes. */
struct frame {
	int64_t t_ns;
	uint64_t hash;
	bool outgoing;
};

/**
 * struct capture - one AF_PACKET capture and the frames of our flow it read
 * @fd: the packet socket
 * @frames: what capture_drain() kept, in arrival order
 * @n: frames kept
 * @cap: room in @frames
 * @kernel_drops: frames the kernel dropped, read by capture_close()
 */
struct capture {
	int fd;
	struct frame *frames;
	size_t n, cap;
	uint64_t kernel_drops;
};

/* The captures of one run: both ends, and with --hops both middle ends. */
struct captures {
	struct capture c, t, mc, mt;
	bool middle;
};

/* Nearest-rank quantiles of a sample, in microseconds; all zero when @n is. */
struct quantiles {
	size_t n;
	double min_us, p50_us, p90_us, p99_us, max_us;
};

/**
 * struct leg_result - what a stretch added to each frame
 * @err: added delay minus the stretch's delay, quantiles
 * @sent: frames seen entering
 * @arrived: frames seen leaving
 * @order_kept: the same frames (same bytes) in the same order on both sides
 */
struct leg_result {
	struct quantiles err;
	size_t sent, arrived;
	bool order_kept;
};

/* The figures of one run (one RTT), as printed. */
struct result {
	int64_t rtt_ms;
	long rounds;
	double connect_ms;
	double first_syn_ms;
	double lab_up_ms, lab_down_ms;
	struct quantiles app_rtt;
	struct quantiles sleep_ref;
	struct leg_result dir[NT_WIRE_DIRS];
	struct leg_result hop[HOPS];
	uint64_t wire_dropped, capture_dropped, link_dropped, retransmits;
	struct nt_wire_stats wire;
};

/*
 * bench_wire.c. Both exit: their callers go on as if the call succeeded, so
 * the compiler and the static analysers must know neither returns.
 */

/**
 * die() - print "bench_wire: @what[: @err's message]" to stderr and exit 1
 * @what: what failed
 * @err: the module's message, or NULL
 */
void die(const char *what, const struct nt_err *err) __attribute__((noreturn));

/**
 * die_errno() - print "bench_wire: @what: strerror(errno)" to stderr and exit 1
 * @what: what failed
 */
void die_errno(const char *what) __attribute__((noreturn));

/* bench_wire_frames.c */

/**
 * quantiles_of() - nearest-rank quantiles of @v
 * @v: samples in nanoseconds, sorted in place
 * @n: how many
 *
 * Return: the quantiles in microseconds.
 */
struct quantiles quantiles_of(int64_t *v, size_t n);

/**
 * capture_open() - open a capture of every frame on @ifname, kernel timestamps on
 * @c: the capture, cleared first
 * @ifname: the interface's name, for the message
 * @ifindex: the interface, in the calling thread's namespace
 *
 * Exits on failure.
 */
void capture_open(struct capture *c, const char *ifname, int ifindex);

/**
 * capture_close() - add the kernel's drop count to @c, close it, free its frames
 * @c: an open capture
 */
void capture_close(struct capture *c);

/**
 * captures_drain() - read what is waiting in every capture of @caps
 * @caps: the run's captures
 */
void captures_drain(struct captures *caps);

/**
 * captures_match() - match the frames each side saw, per direction and per hop
 * @lab: the lab, for the wire's delays
 * @caps: the drained captures
 * @r: @r->dir set, and @r->hop when @caps has the middle ends
 */
void captures_match(const struct nt_lab *lab, const struct captures *caps, struct result *r);

/**
 * first_syn_ms() - when the first frame (the SYN) arrived at nt-t
 * @cap_t: the target's capture
 * @connect_real_ns: CLOCK_REALTIME just before connect()
 *
 * Return: milliseconds after @connect_real_ns, or -1 if none arrived.
 */
double first_syn_ms(const struct capture *cap_t, int64_t connect_real_ns);

/* bench_wire_run.c */

/**
 * run_one() - build the lab, run the ping-pong through it, measure, tear down
 * @o: the options
 * @rtt_ms: the lab's RTT
 * @rounds: round trips
 * @home_ns: the namespace to return the thread to before nt_lab_down()
 * @r: filled, but for @r->sleep_ref
 *
 * Exits on failure.
 */
void run_one(const struct options *o, int64_t rtt_ms, long rounds, int home_ns, struct result *r);

/**
 * sleep_reference() - how late a loop sleeping to absolute deadlines wakes
 * @samples: how many wake-ups
 *
 * Return: the lateness quantiles.
 */
struct quantiles sleep_reference(int samples);

#endif
