// SPDX-License-Identifier: MIT
/*
 * test_watch_jsonl.c - nagle-trace watch's "stall" records
 * (nt_watch_jsonl_stall()) and lines (nt_watch_text_stall()): each record
 * is its own stall's, whatever the records before it held, as a long watch
 * writes thousands through one template. An end's "command" is its
 * process's name, or null ("?" in text) when no process or no name could
 * be read; the template's string never goes back to "" (json-c 0.16 loses
 * a string's buffer when it does, json-c issue #780: a watch of hours
 * leaked a name per owner whose name could not be read, which the ASan
 * build's leak check now sees).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "nt/model/watch.h"
#include "nt/render/watch.h"

/* A stall whose client end is @pid (-1: none) named @comm. */
static struct nt_watch_stall stall(int pid, const char *comm)
{
	struct nt_watch_stall st = {
		.family = AF_INET,
		.client_addr = { 192, 0, 2, 1 },
		.target_addr = { 192, 0, 2, 2 },
		.client_port = 40000,
		.target_port = 7000,
		.ep = { .dir = NT_DIR_C2T, .ack_delay_ns = 40000000, .stall_ns = 41000000 },
	};

	st.sock[NT_DIR_C2T] = (struct nt_sock_state){ .local = true, .pid = pid };
	snprintf(st.sock[NT_DIR_C2T].comm, sizeof(st.sock[NT_DIR_C2T].comm), "%s", comm);
	st.sock[NT_DIR_T2C] = (struct nt_sock_state){ .local = true, .pid = 2 };
	strcpy(st.sock[NT_DIR_T2C].comm, "server");
	return st;
}

/* The record @t writes for @st, parsed; its client_socket's pid and command checked. */
static void check_record(struct nt_watch_jsonl *t, const struct nt_watch_stall *st,
			 const char *want_command)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct json_object *rec, *sock, *v;

	assert_non_null(out);
	assert_int_equal(nt_watch_jsonl_stall(t, out, st), 0);
	assert_int_equal(fclose(out), 0);
	rec = json_tokener_parse(text);
	assert_non_null(rec);
	assert_true(json_object_object_get_ex(rec, "client_socket", &sock));
	assert_true(json_object_object_get_ex(sock, "pid", &v));
	if (st->sock[NT_DIR_C2T].pid >= 0)
		assert_int_equal(json_object_get_int(v), st->sock[NT_DIR_C2T].pid);
	else
		assert_null(v);
	assert_true(json_object_object_get_ex(sock, "command", &v));
	if (want_command)
		assert_string_equal(json_object_get_string(v), want_command);
	else
		assert_null(v);
	assert_true(json_object_object_get_ex(rec, "target_socket", &sock));
	assert_true(json_object_object_get_ex(sock, "command", &v));
	assert_string_equal(json_object_get_string(v), "server");
	json_object_put(rec);
	free(text);
}

/*
 * what this checks: owners named, unknown and nameless in turn, each record
 * with its own (a name, or null), and nothing leaked by the names between
 */
static void test_owner_names_in_turn(void **state)
{
	struct nt_watch_jsonl *t = nt_watch_jsonl_new();
	struct nt_watch_stall named = stall(1234, "postgres"),
			      longer = stall(99, "python3.11-long");
	struct nt_watch_stall unknown = stall(-1, ""), nameless = stall(4321, "");

	(void)state;
	assert_non_null(t);
	for (int round = 0; round < 3; round++) {
		check_record(t, &named, "postgres");
		check_record(t, &unknown, NULL);
		check_record(t, &longer, "python3.11-long");
		check_record(t, &nameless, NULL);
		check_record(t, &named, "postgres");
	}
	nt_watch_jsonl_free(t);
}

/* what this checks: the text line names a nameless owner "?", as it does an unknown pid */
static void test_text_nameless(void **state)
{
	struct nt_watch_stall nameless = stall(4321, ""), unknown = stall(-1, "");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(nt_watch_text_stall(out, &nameless), 0);
	assert_int_equal(nt_watch_text_stall(out, &unknown), 0);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(text, "client pid 4321 (?)"));
	assert_non_null(strstr(text, "client pid ?"));
	assert_null(strstr(text, "()"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_names_in_turn),
		cmocka_unit_test(test_text_nameless),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
