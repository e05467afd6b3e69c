// SPDX-License-Identifier: MIT
/*
 * analyze_read.c - the inputs into the analysis (see nt/cmd/analyze_read.h).
 *
 * Threads: a file's analysis is independent of every other file's (each
 * gets a fresh flow table), so files can be read at once, each by one
 * worker into an analysis the worker owns. Workers take the next unread
 * file from one atomic counter, print nothing (what a file says is kept in
 * its note) and share nothing but that counter and the options; the main
 * thread joins them and absorbs the analyses in the order of the files. No
 * lock anywhere. One file's frames go through one flow table in capture
 * order, which is what the stall rule and the eviction order need: a file
 * read alone gets a second thread only to read and decode ahead of that
 * (nt_feed_file()), and none when files are read at once.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt/capture/feed.h"
#include "nt/cmd/analyze_read.h"

/* A line about one input: a warning or an error, as nt_err makes them, plus words. */
#define NOTE_LINE_MAX (NT_ERR_MSG_MAX + 128)
#define NOTE_LINES    2

/**
 * struct note - what reading one input said and found
 * @line: lines for standard error, without the program's name
 * @n_lines: how many
 * @trouble: what went wrong
 * @read: frames read
 */
struct note {
	char line[NOTE_LINES][NOTE_LINE_MAX];
	unsigned n_lines;
	struct nt_analyze_trouble trouble;
	uint64_t read;
};

static void note_add(struct note *n, const char *prefix, const char *msg)
{
	/* One warning line per input (docs/analyze.md): a second joins the first. */
	for (unsigned i = 0; *prefix && i < n->n_lines; i++) {
		size_t used = strlen(n->line[i]);

		if (strncmp(n->line[i], prefix, strlen(prefix)) == 0) {
			snprintf(n->line[i] + used, NOTE_LINE_MAX - used, "; %s", msg);
			return;
		}
	}
	if (n->n_lines < NOTE_LINES)
		snprintf(n->line[n->n_lines++], NOTE_LINE_MAX, "%s%s", prefix, msg);
}

static void note_print(const struct note *n)
{
	for (unsigned i = 0; i < n->n_lines; i++)
		fprintf(stderr, "nagle-trace: %s\n", n->line[i]);
}

/* Reads one file into @an, at most @max_frames (0: all), on two threads if @two_threads. */
static void read_one(struct nt_analysis *an, struct nt_annotate *annotate, const char *path,
		     const char *filter, uint64_t max_frames, bool two_threads, struct note *note)
{
	struct nt_err err = { "" };
	struct nt_pcap_file *f;
	struct stat st;

	if (nt_analysis_file_begin(an, path) < 0) {
		an->oom = true;
		return;
	}
	/*
	 * open() of a FIFO waits for its writer (fifo_open() in fs/pipe.c), as
	 * tcpdump -r does; on a terminal, say so rather than sit there silently.
	 */
	if (isatty(STDERR_FILENO) && stat(path, &st) == 0 && S_ISFIFO(st.st_mode))
		fprintf(stderr, "nagle-trace: \"%s\" is a FIFO: waiting for a writer to open it\n",
			path);
	if (nt_annotate_open_input(annotate, path, &f, &err) < 0) {
		nt_analysis_file_end(an, err.msg);
		note_add(note, "", err.msg);
		note->trouble.file = true;
		return;
	}
	if (!nt_decode_linktype_supported(nt_pcap_file_linktype(f))) {
		char name[64], msg[NT_ERR_MSG_MAX];
		const char *shown =
			nt_capture_linktype_name(nt_pcap_file_linktype(f), name, sizeof(name));

		/* An unnamed one is already "link type N". */
		snprintf(msg, sizeof(msg), "\"%s\": %s%s is not supported", path,
			 strncmp(shown, "link type ", 10) ? "link type " : "", shown);
		note_add(note, "warning: ", msg);
	}
	switch (nt_feed_file(an, f, filter, max_frames, two_threads, &note->read, &err)) {
	case NT_FEED_COMPLETE:
		break;
	case NT_FEED_BAD_FILTER:
		note_add(note, "", err.msg);
		note->trouble.filter = true;
		break;
	case NT_FEED_DAMAGED:
		note_add(note, "warning: ", err.msg);
		note->trouble.file = true;
		break;
	}
	if (nt_pcap_file_zero_time_frames(f)) {
		char msg[NT_ERR_MSG_MAX];

		snprintf(msg, sizeof(msg),
			 "\"%s\": %llu frames have timestamp 0 (1970-01-01): their times, and the "
			 "durations and stalls around them, cannot be trusted",
			 path, (unsigned long long)nt_pcap_file_zero_time_frames(f));
		note_add(note, "warning: ", msg);
	}
	if (an->files[an->n_files - 1].out_of_order) {
		char msg[NT_ERR_MSG_MAX];

		snprintf(msg, sizeof(msg),
			 "\"%s\": %llu TCP segments arrived out of order (below their sender's "
			 "highest sequence, not retransmissions); stalls are judged in capture "
			 "order",
			 path, (unsigned long long)an->files[an->n_files - 1].out_of_order);
		note_add(note, "warning: ", msg);
	}
	nt_pcap_file_close(f);
}

static void note_take(const struct note *n, struct nt_analyze_trouble *trouble)
{
	note_print(n);
	trouble->file |= n->trouble.file;
	trouble->filter |= n->trouble.filter;
}

unsigned nt_analyze_threads(const struct nt_analyze_opts *o)
{
	cpu_set_t set;

	if (o->jobs)
		return o->jobs;
	return sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
}

/* One file after the other, each read on a thread of its own while this one settles it. */
static void read_serial(const struct nt_analyze_opts *o, struct nt_annotate *annotate,
			struct nt_analysis *an, struct nt_analyze_trouble *trouble)
{
	bool two_threads = nt_analyze_threads(o) > 1;
	bool limited = o->max_packets != 0; /* -c */
	uint64_t left = o->max_packets;

	/* -c counts over all files, as one stream: once reached, the rest stay unread. */
	for (size_t i = 0; i < o->n_files && !an->oom && (!limited || left); i++) {
		struct note note = { .n_lines = 0 };

		read_one(an, annotate, o->files[i], o->filter, limited ? left : 0, two_threads,
			 &note);
		note_take(&note, trouble);
		left -= note.read;
	}
}

/**
 * struct job - one input, read by whichever worker takes it
 * @an: its analysis, the worker's while it reads
 * @annot: its stalls, when annotating
 * @note: what reading it said
 */
struct job {
	struct nt_analysis an;
	struct nt_annot_list annot;
	struct note note;
};

/**
 * struct pool - the workers' shared, read-only world and their one counter
 * @o: the options
 * @annotate: the --annotate state (only the worker reading "-" writes it)
 * @jobs: one per input
 * @next: the next input nobody took yet
 */
struct pool {
	const struct nt_analyze_opts *o;
	struct nt_annotate *annotate;
	struct job *jobs;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	size_t i;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->o->n_files) {
		struct job *j = &p->jobs[i];

		read_one(&j->an, p->annotate, p->o->files[i], p->o->filter, 0, false, &j->note);
	}
	return NULL;
}

/* The analyses in the order of the files, whatever order they finished in. */
static void absorb_all(struct pool *p, struct nt_analysis *an, struct nt_analyze_trouble *trouble)
{
	for (size_t i = 0; i < p->o->n_files; i++) {
		struct job *j = &p->jobs[i];

		note_take(&j->note, trouble);
		if (nt_analysis_absorb(an, &j->an) < 0)
			an->oom = true;
		nt_annot_fini(&j->annot);
		nt_analysis_fini(&j->an);
	}
}

static void read_parallel(const struct nt_analyze_opts *o, unsigned workers,
			  struct nt_annotate *annotate, struct nt_analysis *an,
			  struct nt_analyze_trouble *trouble)
{
	struct pool p = { .o = o, .annotate = annotate };
	pthread_t *tid = calloc(workers, sizeof(*tid));
	unsigned started = 0;

	p.jobs = calloc(o->n_files, sizeof(*p.jobs));
	if (!tid || !p.jobs) {
		free(tid);
		free(p.jobs);
		read_serial(o, annotate, an, trouble);
		return;
	}
	atomic_init(&p.next, 0);
	for (size_t i = 0; i < o->n_files; i++) {
		(void)nt_analysis_init(&p.jobs[i].an, &an->params);
		if (an->annot)
			p.jobs[i].an.annot = &p.jobs[i].annot;
	}
	/* The main thread is a worker too; a thread that cannot start leaves its share to the rest. */
	while (started + 1 < workers && pthread_create(&tid[started], NULL, worker, &p) == 0)
		started++;
	worker(&p);
	for (unsigned k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
	absorb_all(&p, an, trouble);
	free(p.jobs);
	free(tid);
}

unsigned nt_analyze_workers(const struct nt_analyze_opts *o)
{
	unsigned n;

	if (o->max_packets || o->n_files < 2)
		return 1;
	n = nt_analyze_threads(o);
	return n < o->n_files ? n : (unsigned)o->n_files;
}

void nt_analyze_read(const struct nt_analyze_opts *o, struct nt_annotate *annotate,
		     struct nt_analysis *an, struct nt_analyze_trouble *trouble)
{
	unsigned workers = nt_analyze_workers(o);

	*trouble = (struct nt_analyze_trouble){ false, false };
	if (workers > 1)
		read_parallel(o, workers, annotate, an, trouble);
	else
		read_serial(o, annotate, an, trouble);
}
