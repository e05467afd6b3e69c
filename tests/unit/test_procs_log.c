// SPDX-License-Identifier: MIT
/*
 * test_procs_log.c - the run's output plumbing: the target's lines behind a
 * prefix (whole lines, long lines cut, the last partial line flushed), and
 * the client's stderr tail (last lines, start of a cut line dropped, control
 * characters shown as '?').
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <regex.h>

#include "nt/live/procs_log.h"

/* Everything written to @fd so far. */
static char *contents(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf = calloc(1, (size_t)len + 1);

	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)len, 0), len);
	return buf;
}

static int memfd(void)
{
	int fd = memfd_create("test_procs_log", MFD_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static void test_lines_prefixed(void **state)
{
	static struct nt_procs_linebuf lb;
	int fd = memfd();
	char *out;
	(void)state;

	nt_procs_linebuf_init(&lb, fd, "target: ");
	nt_procs_linebuf_feed(&lb, "Ready to", 8);
	/* Nothing yet: a partial line waits for its newline. */
	out = contents(fd);
	assert_string_equal(out, "");
	free(out);
	nt_procs_linebuf_feed(&lb, " accept\nsecond\nthi", 18);
	nt_procs_linebuf_feed(&lb, "\n", 1);
	nt_procs_linebuf_feed(&lb, "\n", 1);
	nt_procs_linebuf_feed(&lb, "last, no newline", 16);
	nt_procs_linebuf_flush(&lb);
	nt_procs_linebuf_flush(&lb);
	out = contents(fd);
	assert_string_equal(out, "target: Ready to accept\ntarget: second\ntarget: thi\n"
				 "target: \ntarget: last, no newline\n");
	free(out);
	close(fd);
}

static void test_long_line_cut(void **state)
{
	static struct nt_procs_linebuf lb;
	static char big[NT_PROCS_LINE_BYTES + 10];
	int fd = memfd();
	char *out, *second;
	(void)state;

	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	nt_procs_linebuf_init(&lb, fd, "t: ");
	nt_procs_linebuf_feed(&lb, big, sizeof(big));
	out = contents(fd);
	/* A full buffer goes out as a line of its own, the rest as the next. */
	assert_int_equal(strlen(out), 3 + NT_PROCS_LINE_BYTES + 1 + 3 + 9 + 1);
	assert_memory_equal(out, "t: xxx", 6);
	second = out + 3 + NT_PROCS_LINE_BYTES + 1;
	assert_string_equal(second, "t: xxxxxxxxx\n");
	free(out);
	close(fd);
}

static void test_no_prefix_passes_through(void **state)
{
	static struct nt_procs_linebuf lb;
	int fd = memfd();
	char *out;
	(void)state;

	nt_procs_linebuf_init(&lb, fd, NULL);
	nt_procs_linebuf_feed(&lb, "raw", 3);
	nt_procs_linebuf_flush(&lb);
	out = contents(fd);
	assert_string_equal(out, "raw");
	free(out);
	close(fd);
}

static void feed(struct nt_procs_linebuf *lb, const char *text)
{
	nt_procs_linebuf_feed(lb, text, strlen(text));
}

/* what this checks: --ready-log matches whole lines, split across reads, with or without a prefix */
static void test_match_lines(void **state)
{
	static struct nt_procs_linebuf lb;
	regex_t re;
	int fd = memfd();
	char *out;
	(void)state;

	assert_int_equal(regcomp(&re, "^ready to accept connections$", REG_EXTENDED | REG_NOSUB),
			 0);
	nt_procs_linebuf_init(&lb, fd, "target: ");
	lb.match = &re;
	feed(&lb, "not ready to accept connections\nready to");
	assert_false(lb.matched);
	feed(&lb, " accept connect");
	assert_false(lb.matched); /* no newline yet: not a line */
	feed(&lb, "ions\n");
	assert_true(lb.matched);
	/* Without a prefix the bytes pass as they come, and lines are still matched. */
	nt_procs_linebuf_init(&lb, fd, NULL);
	lb.match = &re;
	feed(&lb, "x\nready to accept connections");
	assert_false(lb.matched);
	nt_procs_linebuf_flush(&lb);
	assert_true(lb.matched);
	out = contents(fd);
	assert_string_equal(out, "target: not ready to accept connections\n"
				 "target: ready to accept connections\n"
				 "x\nready to accept connections");
	free(out);
	regfree(&re);
	close(fd);
}

/* what this checks: at teardown the shell's "Terminated" is dropped; before it, and other lines, pass */
static void test_quiet_terminated(void **state)
{
	static struct nt_procs_linebuf lb;
	int fd = memfd();
	char *out;
	(void)state;

	nt_procs_linebuf_init(&lb, fd, "target: ");
	feed(&lb, "Terminated\n");
	lb.quiet_terminated = true;
	feed(&lb, "Terminated\nTerminated by you\nTerminated");
	nt_procs_linebuf_flush(&lb);
	out = contents(fd);
	assert_string_equal(out, "target: Terminated\ntarget: Terminated by you\n");
	free(out);
	close(fd);
}

static void test_tail_last_lines(void **state)
{
	static struct nt_procs_tail t;
	char out[NT_PROCS_TAIL_BYTES + 1];
	(void)state;

	memset(&t, 0, sizeof(t));
	nt_procs_tail_lines(&t, 5, out, sizeof(out));
	assert_string_equal(out, "");
	for (int i = 1; i <= 8; i++) {
		char line[32];
		int n = snprintf(line, sizeof(line), "line %d\n", i);

		nt_procs_tail_add(&t, line, (size_t)n);
	}
	nt_procs_tail_lines(&t, 5, out, sizeof(out));
	assert_string_equal(out, "line 4\nline 5\nline 6\nline 7\nline 8");
	nt_procs_tail_lines(&t, 1, out, sizeof(out));
	assert_string_equal(out, "line 8");
	/* A last line without newline counts as a line. */
	nt_procs_tail_add(&t, "partial\x1b[31m\tx", 14);
	nt_procs_tail_lines(&t, 2, out, sizeof(out));
	assert_string_equal(out, "line 8\npartial?[31m\tx");
	/* Cut to the room given. */
	nt_procs_tail_lines(&t, 1, out, 5);
	assert_string_equal(out, "part");
}

static void test_tail_wraps(void **state)
{
	static struct nt_procs_tail t;
	static char junk[3 * NT_PROCS_TAIL_BYTES];
	char out[NT_PROCS_TAIL_BYTES + 1];
	(void)state;

	memset(&t, 0, sizeof(t));
	memset(junk, 'j', sizeof(junk));
	nt_procs_tail_add(&t, "first line\n", 11);
	/* One line longer than the ring, then two short ones, in pieces. */
	nt_procs_tail_add(&t, junk, sizeof(junk));
	nt_procs_tail_add(&t, "\nerror: one\n", 12);
	nt_procs_tail_add(&t, "error: two\n", 11);
	nt_procs_tail_lines(&t, 5, out, sizeof(out));
	/* The cut start of the long line is dropped; whole lines only. */
	assert_string_equal(out, "error: one\nerror: two");
	assert_int_equal(t.total, 11 + sizeof(junk) + 12 + 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_prefixed),
		cmocka_unit_test(test_long_line_cut),
		cmocka_unit_test(test_no_prefix_passes_through),
		cmocka_unit_test(test_match_lines),
		cmocka_unit_test(test_quiet_terminated),
		cmocka_unit_test(test_tail_last_lines),
		cmocka_unit_test(test_tail_wraps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
