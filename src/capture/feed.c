// SPDX-License-Identifier: MIT
/*
 * feed.c - a capture file through the analysis (see nt/capture/feed.h).
 *
 * A file read alone goes on two threads. With thousands of concurrent
 * flows, settling a frame into its flow (the flow table's cache misses, the
 * stall rule) costs about as much as reading and decoding it. So a reader
 * thread runs libpcap's loop and nt_analysis_decode(), the caller's thread
 * runs nt_analysis_settle(), and on two cores the halves overlap.
 *
 * Order: one producer, one consumer, and a ring of batches settled in the
 * order they were filled. The settling thread sees the frames in capture
 * order exactly as the one-thread loop does, so every result is the same,
 * byte for byte; the decoder is pure and shares nothing with the analysis.
 *
 * Ownership: the reader decodes into a batch of its own (@cur) and, when it
 * is full, copies it into slot @filled % RING, which it owns while the ring
 * is not full; the settler owns slot @settled % RING while @settled <
 * @filled. Each counter has one writer, which stores it (release) after it
 * is done with the slot; the other side reads the slot only after loading
 * the counter (acquire).
 *
 * Why a copy: a slot's lines were last read on the settler's core, and
 * decoding straight into them made every frame's stores wait for the lines
 * to come back: the reader's fread(), memmove() and nt_analysis_decode()
 * took two to four times as long as on one thread. Decoded into a batch
 * that stays in the reader's cache, a frame is copied once, with the rest
 * of its batch, in one memcpy() of 30 KiB (rep movsb at this size, which
 * writes whole lines without reading them first). docs/performance.md has
 * the figures.
 *
 * Waiting: a side that finds the ring full (reader) or empty (settler)
 * polls for a few microseconds, in case the other is about to hand over,
 * and then sleeps on a condition variable until SLEEP_FOR slots are free
 * (reader) or full, or the file done (settler). Sleeping for many slots is
 * what keeps both cheap. The reader is the faster side whenever there are
 * many flows; one that resumed at the first free slot found the ring full
 * again a batch later, and its polls and sched_yield()s burnt as much CPU
 * as the settler spent settling (100,000 flows: 631 ms of CPU for 355 ms
 * of wall). The first version, which slept at once for a single slot, made
 * 8,829 futex() calls for 7,930 batches and its threads took turns instead
 * of overlapping (commit 079a30a). The sleeps come once every SLEEP_FOR
 * batches at most, and the slots left are what the settler settles while
 * the reader wakes, so it does not run dry.
 * Sleeping is safe against a lost wake-up: the sleeper sets its flag, then
 * checks the counters again, both under @mu; the other side stores its
 * counter, then reads the flag (both sequentially consistent, so one of
 * them sees the other's store) and, when the sleeper's SLEEP_FOR slots are
 * there, signals under @mu. Each store the sleeper waits for is followed
 * by that check, so the one that completes its count wakes it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nt/capture/feed.h"
#include "nt/pages.h"

/*
 * 16 x 256 frames x 120 bytes: 480 KiB, and the reader's own 30, inside one
 * core's L2 cache where it holds 1 MiB or more (this machine's Zen 4;
 * Intel's server cores since Skylake). Where it holds 512 KiB, the slots the
 * reader wrote longest ago go on to the L3 cache, which the settler's reads
 * cross anyway.
 */
#define RING 16
/*
 * What a sleeping side waits for, in batches free (reader) or full
 * (settler): three quarters of the ring. With half of a ring of 8, the
 * reader slept 574 times in the 7,930 batches of analyze --format json on
 * 10,000 flows, and 754 times in 8,985 on 100,000, where the settler slept
 * 537 times too. Now 163, 332 and 8 (the context switches of the whole run:
 * 889 -> 238-302, 1,144 -> 354-395). The 4 slots left are about 1,000
 * frames, 80 to 150 us of settling, enough for the reader to wake
 * (docs/performance.md, the round of 2026-12-07, late).
 */
#define SLEEP_FOR (RING * 3 / 4)

/*
 * Polls of the other side's counter before sleeping: a few microseconds of
 * PAUSE. No sched_yield() phase: when the two threads share one core (the
 * other busy elsewhere), sleeping lets the thread being waited for run as a
 * yield does, and with a core each a yield returns at once and only burns.
 */
#define SPIN 100

/* A spinning loop's hint to the CPU (x86 PAUSE: yield to a sibling hyperthread). */
#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void)0)
#endif

/**
 * struct pipe - the two threads' shared state
 * @slot: RING batches
 * @filled: batches the reader handed over, ever (the reader writes it)
 * @settled: batches the settler gave back, ever (the settler writes it)
 * @done: the reader handed over its last batch
 * @mu: guards sleeping
 * @wake: where a side sleeps
 * @waits: a side sleeps, or is about to: [0] the reader, [1] the settler
 * @f: the reader's file
 * @max_frames: as nt_feed_file()'s
 * @cur: the batch being filled (the reader's own, not in the ring)
 * @ret: what nt_pcap_file_each() returned
 * @n: frames it read
 * @err: why it stopped early
 */
struct pipe {
	struct nt_analysis_batch *slot;
	atomic_uint filled;
	atomic_uint settled;
	atomic_bool done;
	pthread_mutex_t mu;
	pthread_cond_t wake[2];
	atomic_bool waits[2];
	struct nt_pcap_file *f;
	uint64_t max_frames;
	struct nt_analysis_batch *cur;
	int ret;
	uint64_t n;
	struct nt_err err;
};

enum side { READER = 0, SETTLER = 1 };

/* Batches handed over and not yet settled. */
static unsigned in_ring(struct pipe *pp)
{
	unsigned filled = atomic_load_explicit(&pp->filled, memory_order_acquire);
	unsigned settled = atomic_load_explicit(&pp->settled, memory_order_acquire);

	return filled - settled;
}

/*
 * @who may go on with @want batches: the reader has @want free slots, the
 * settler @want full ones (or the end). 1 ends a wait; SLEEP_FOR a sleep.
 */
static bool has(struct pipe *pp, enum side who, unsigned want)
{
	if (who == READER)
		return RING - in_ring(pp) >= want;
	return in_ring(pp) >= want || atomic_load(&pp->done);
}

static void wait_until_ready(struct pipe *pp, enum side who)
{
	for (int k = 0; k < SPIN; k++) {
		if (has(pp, who, 1))
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&pp->mu);
	atomic_store(&pp->waits[who], true);
	/* The flag before the counters: in_ring()'s loads are only acquire. */
	atomic_thread_fence(memory_order_seq_cst);
	while (!has(pp, who, SLEEP_FOR))
		pthread_cond_wait(&pp->wake[who], &pp->mu);
	atomic_store(&pp->waits[who], false);
	pthread_mutex_unlock(&pp->mu);
}

/* After a counter's store: wake the other side if it sleeps and its slots are there. */
static void wake(struct pipe *pp, enum side who)
{
	if (!atomic_load(&pp->waits[who]) || !has(pp, who, SLEEP_FOR))
		return;
	pthread_mutex_lock(&pp->mu);
	pthread_cond_signal(&pp->wake[who]);
	pthread_mutex_unlock(&pp->mu);
}

/* The reader: copy @cur into the next slot once it is free, and hand it over. */
static void hand_over(struct pipe *pp)
{
	unsigned filled = atomic_load_explicit(&pp->filled, memory_order_relaxed);
	struct nt_analysis_batch *to = &pp->slot[filled % RING];

	wait_until_ready(pp, READER);
	to->n = pp->cur->n;
	memcpy(to->p, pp->cur->p, pp->cur->n * sizeof(to->p[0]));
	atomic_store(&pp->filled, filled + 1);
	wake(pp, SETTLER);
	pp->cur->n = 0;
}

static void on_frame(void *ctx, const struct nt_frame *fr)
{
	struct pipe *pp = ctx;
	struct nt_analysis_batch *b = pp->cur;

	nt_analysis_decode(fr->linktype, fr->t_ns, &fr->note, fr->data, fr->caplen, &b->p[b->n++]);
	if (b->n == NT_ANALYSIS_BATCH)
		hand_over(pp);
}

static void *reader(void *arg)
{
	struct pipe *pp = arg;

	pp->ret = nt_pcap_file_each(pp->f, pp->max_frames, on_frame, pp, &pp->n, &pp->err);
	if (pp->cur->n)
		hand_over(pp);
	atomic_store(&pp->done, true);
	wake(pp, SETTLER);
	return NULL;
}

/* The caller's thread: settle every batch in order until the reader is done. */
static void settle_all(struct pipe *pp, struct nt_analysis *an)
{
	for (unsigned settled = 0;; settled++) {
		const struct nt_analysis_batch *b = &pp->slot[settled % RING];

		wait_until_ready(pp, SETTLER);
		if (settled == atomic_load_explicit(&pp->filled, memory_order_acquire))
			return;				  /* done, and every batch settled */
		(void)nt_analysis_settle(an, b->p, b->n); /* ENOMEM is in @an->oom */
		atomic_store(&pp->settled, settled + 1);
		wake(pp, READER);
	}
}

/* nt_pcap_file_each() on a reader thread; false when the thread could not start. */
static bool each_on_two_threads(struct nt_analysis *an, struct nt_pcap_file *f, uint64_t max_frames,
				uint64_t *frames_read, int *ret, struct nt_err *err)
{
	struct pipe pp = {
		.f = f,
		.max_frames = max_frames,
		.err = { "" },
	};
	pthread_t tid;
	bool started;

	pp.slot = nt_lines_alloc(RING * sizeof(*pp.slot));
	if (!pp.slot)
		return false;
	pp.cur = nt_lines_alloc(sizeof(*pp.cur));
	if (!pp.cur) {
		free(pp.slot);
		return false;
	}
	pp.cur->n = 0;
	pthread_mutex_init(&pp.mu, NULL);
	pthread_cond_init(&pp.wake[READER], NULL);
	pthread_cond_init(&pp.wake[SETTLER], NULL);
	started = pthread_create(&tid, NULL, reader, &pp) == 0;
	if (started) {
		settle_all(&pp, an);
		pthread_join(tid, NULL);
		*frames_read = pp.n;
		*ret = pp.ret;
		if (pp.ret < 0)
			*err = pp.err;
	}
	pthread_cond_destroy(&pp.wake[SETTLER]);
	pthread_cond_destroy(&pp.wake[READER]);
	pthread_mutex_destroy(&pp.mu);
	free(pp.slot);
	free(pp.cur);
	return started;
}

static void feed_frame(void *ctx, const struct nt_frame *fr)
{
	nt_analysis_frame_of(ctx, fr->linktype, fr->t_ns, &fr->note, fr->data, fr->caplen);
}

enum nt_feed_end nt_feed_file(struct nt_analysis *an, struct nt_pcap_file *f, const char *filter,
			      uint64_t max_frames, bool two_threads, uint64_t *frames_read,
			      struct nt_err *err)
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
	if (!two_threads || !each_on_two_threads(an, f, max_frames, &n, &ret, &local))
		ret = nt_pcap_file_each(f, max_frames, feed_frame, an, &n, &local);
	if (frames_read)
		*frames_read = n;
	nt_analysis_file_end(an, ret < 0 ? local.msg : NULL);
	if (ret == 0)
		return NT_FEED_COMPLETE;
	nt_err_set(err, 0, "%s", local.msg);
	return NT_FEED_DAMAGED;
}
