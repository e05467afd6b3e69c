// SPDX-License-Identifier: MIT
/*
 * test_json_out.c - the JSON writer's shortcuts print what json-c prints:
 * nt_json_int64_fast()'s digits are json-c's own, and nt_json_write() indents
 * json-c's text line by line whatever its buffer's edges (documents longer
 * than a buffer, a line longer than one, indentation deeper than its run of
 * spaces).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nt/render/json.h"
#include "test_json_text.h"

/* what this checks: integers print as json-c prints them, the extremes and signs included */
static void test_int64_fast(void **state)
{
	static const int64_t v[] = { 0,
				     1,
				     -1,
				     9,
				     10,
				     -10,
				     99,
				     100,
				     123456789,
				     -987654321,
				     INT32_MAX,
				     INT32_MIN,
				     INT64_MAX,
				     INT64_MIN,
				     INT64_MIN + 1,
				     1796023741508801979LL };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct json_object *fast = nt_json_int64_fast(v[i]);
		struct json_object *plain = json_object_new_int64(v[i]);

		assert_non_null(fast);
		assert_string_equal(json_object_to_json_string_ext(fast, NT_JSON_FLAGS),
				    json_object_to_json_string_ext(plain, NT_JSON_FLAGS));
		/* A new value set in place prints too (the flow template's use). */
		json_object_set_int64(fast, v[i] / -3);
		json_object_set_int64(plain, v[i] / -3);
		assert_string_equal(json_object_to_json_string_ext(fast, NT_JSON_FLAGS),
				    json_object_to_json_string_ext(plain, NT_JSON_FLAGS));
		json_object_put(fast);
		json_object_put(plain);
	}
}

static void check_write(struct json_object *o, int depth)
{
	char *got = NULL, *want = nt_test_json_c_text(o, NT_JSON_FLAGS, depth);
	size_t len = 0;
	FILE *out = open_memstream(&got, &len);

	assert_non_null(want);
	assert_non_null(out);
	assert_int_equal(nt_json_write(out, o, depth), 0);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(len, strlen(want));
	assert_string_equal(got, want);
	free(got);
	free(want);
}

/* what this checks: nt_json_write() indents as line by line, across its buffer's edges */
static void test_write_indented(void **state)
{
	static const int depths[] = { 0, 1, 3, 30 };
	struct json_object *big = json_object_new_array(), *one = json_object_new_object();
	char *line = malloc(20000);

	(void)state;
	assert_non_null(line);
	/* Some 60 KB over many short lines: the 8 KiB buffer fills in mid-line. */
	for (int i = 0; i < 3000; i++)
		json_object_array_add(big, nt_json_int64_fast((int64_t)i * 7919));
	/* A line longer than the buffer. */
	memset(line, 'x', 19999);
	line[19999] = '\0';
	json_object_object_add(one, "a", json_object_new_int(1));
	json_object_object_add(one, "long", json_object_new_string(line));
	json_object_object_add(one, "b", json_object_new_array());
	for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		check_write(big, depths[d]);
		check_write(one, depths[d]);
	}
	json_object_put(big);
	json_object_put(one);
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int64_fast),
		cmocka_unit_test(test_write_indented),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
