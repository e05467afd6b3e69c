// SPDX-License-Identifier: MIT
/*
 * test_wrap.c - lines for a terminal of a given width (nt/render/wrap.h):
 * broken at words and never inside one, continuations under the text,
 * colour sequences and UTF-8 counted as the terminal shows them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nt/render/wrap.h"

static char *wrapped(const char *line, unsigned cols)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	nt_wrap_line(f, line, strlen(line), cols);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Appends @word and a space to @buf (size 2048), failing the test when it would not fit. */
static void add_word(char *buf, const char *word)
{
	size_t used = strlen(buf);
	int n = snprintf(buf + used, 2048 - used, "%s ", word);

	assert_true(n > 0 && (size_t)n < 2048 - used);
}

/* what this checks: every line fits, no word is cut, and the words are all there, in order */
static void check_fits(const char *line, unsigned cols)
{
	char *out = wrapped(line, cols), *save = NULL, *copy = strdup(out);
	char joined[2048] = "", want[2048] = "";

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *w2 = NULL;

		const char *text = l + strspn(l, " ");

		/* Only a single word wider than the room may stick out. */
		if (strchr(text, ' '))
			assert_true(nt_wrap_columns(l, strlen(l)) <= cols);
		for (char *w = strtok_r(l, " ", &w2); w; w = strtok_r(NULL, " ", &w2)) {
			add_word(joined, w);
		}
	}
	free(copy);
	copy = strdup(line);
	save = NULL;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		add_word(want, w);
	}
	assert_string_equal(joined, want);
	free(copy);
	free(out);
}

/* what this checks: a line that fits is left as it is; cols 0 never wraps */
static void test_fits_untouched(void **state)
{
	char *out = wrapped("  short line  with  spaces", 80);

	(void)state;
	assert_string_equal(out, "  short line  with  spaces\n");
	free(out);
	out = wrapped("a very long line that would wrap at ten", 0);
	assert_string_equal(out, "a very long line that would wrap at ten\n");
	free(out);
}

/* what this checks: the break falls at a space, the continuation hangs under the text */
static void test_breaks_at_words(void **state)
{
	char *out = wrapped("default         two writes with Nagle on: the body waits for the "
			    "header's ACK (tcp_minshall_check())",
			    60);

	(void)state;
	assert_string_equal(out, "default         two writes with Nagle on: the body waits for\n"
				 "                the header's ACK (tcp_minshall_check())\n");
	free(out);
	out = wrapped("  why: the client's second small write was held by Nagle", 30);
	assert_string_equal(out, "  why: the client's second\n"
				 "    small write was held by\n"
				 "    Nagle\n");
	free(out);
}

/* what this checks: a word wider than the room stays whole on its own line */
static void test_long_word(void **state)
{
	char *out = wrapped("see /a/very/long/path/that/cannot/break here", 20);

	(void)state;
	assert_string_equal(out, "see\n  /a/very/long/path/that/cannot/break\n  here\n");
	free(out);
}

/* what this checks: colour sequences take no column, a UTF-8 arrow takes one */
static void test_columns(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(nt_wrap_columns("\033[31mstalled\033[0m", 16), 7);
	assert_int_equal(nt_wrap_columns("c \u2192 t", strlen("c \u2192 t")), 5);
	out = wrapped("\033[31mdefault\033[0m 1 held, 2 stalled", 25);
	assert_string_equal(out, "\033[31mdefault\033[0m 1 held, 2 stalled\n");
	free(out);
}

/* what this checks: many widths, many lines: every line fits and no word is lost or cut */
static void test_every_width(void **state)
{
	static const char *const lines[] = {
		"  kernel counters: target DelayedACKs +2 (2 stalled rounds), DelayedACKLocked "
		"+0, DelayedACKLost +0; client TCPAutoCorking +0",
		"      +0.025 ms  c->t  [.]                      ack 1        len 0     "
		"handshake-ack",
		"quickack-rearm  TCP_QUICKACK before every read resets the ping-pong count "
		"after each reply, so the header is ACKed at once",
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		for (unsigned cols = 20; cols <= 140; cols++)
			check_fits(lines[i], cols);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits_untouched), cmocka_unit_test(test_breaks_at_words),
		cmocka_unit_test(test_long_word),      cmocka_unit_test(test_columns),
		cmocka_unit_test(test_every_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
