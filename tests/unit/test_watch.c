// SPDX-License-Identifier: MIT
/*
 * test_watch.c - nagle-trace watch's summary (nt/model/watch.h): stalls
 * counted per flow and per process, each end's role (the held data's sender
 * or the ACK's delayer) from the episode's direction, ends not on this host
 * or without a process left out of the process rows, p50/p99 of the ACK
 * delays (exact up to NT_WATCH_DELAYS_KEPT, a sample beyond), and the caps:
 * flows and processes past them land in one "other" row each, so memory
 * does not grow with the run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/clock.h"
#include "nt/model/watch.h"
#include "nt/unknown.h"

static struct nt_watch_stall stall(uint16_t client_port, int64_t ack_delay_ns, int client_pid,
				   int target_pid)
{
	struct nt_watch_stall st = {
		.family = AF_INET,
		.client_addr = { 192, 0, 2, 1 },
		.target_addr = { 192, 0, 2, 2 },
		.client_port = client_port,
		.target_port = 7000,
		.ep = { .dir = NT_DIR_C2T,
			.ack_delay_ns = ack_delay_ns,
			.stall_ns = ack_delay_ns + NT_NS_PER_MS },
	};

	st.sock[NT_DIR_C2T] = (struct nt_sock_state){ .local = client_pid != 0,
						      .pid = client_pid ? client_pid : -1 };
	strcpy(st.sock[NT_DIR_C2T].comm, "client");
	st.sock[NT_DIR_T2C] = (struct nt_sock_state){ .local = target_pid != 0,
						      .pid = target_pid ? target_pid : -1 };
	strcpy(st.sock[NT_DIR_T2C].comm, "server");
	return st;
}

static void test_roles_and_rows(void **state)
{
	struct nt_watch_sum *s = malloc(sizeof(*s));
	struct nt_watch_stall a = stall(40000, 40 * NT_NS_PER_MS, 100, 200);
	struct nt_watch_stall b = stall(40001, 44 * NT_NS_PER_MS, 101, 0);

	(void)state;
	assert_non_null(s);
	nt_watch_sum_init(s);
	nt_watch_sum_add(s, &a);
	nt_watch_sum_add(s, &a);
	nt_watch_sum_add(s, &b);
	assert_int_equal(s->stalls, 3);
	assert_int_equal(s->local_stalls, 3);
	assert_int_equal(s->lost_ns, 41 * NT_NS_PER_MS * 2 + 45 * NT_NS_PER_MS);
	assert_int_equal(s->n_flows, 2);
	assert_int_equal(s->flows[0].stalls, 2);
	assert_int_equal(s->flows[1].stalls, 1);
	/* The target of b is not on this host: no process row for it. */
	assert_int_equal(s->n_procs, 3);
	assert_int_equal(s->procs[0].pid, 100);
	assert_int_equal(s->procs[0].by_role[NT_WATCH_SENDER], 2);
	assert_int_equal(s->procs[1].pid, 200);
	assert_int_equal(s->procs[1].by_role[NT_WATCH_RECEIVER], 2);
	assert_int_equal(s->procs[2].pid, 101);
	/* Data held the other way: the target is the sender. */
	a.ep.dir = NT_DIR_T2C;
	nt_watch_sum_add(s, &a);
	assert_int_equal(s->procs[1].by_role[NT_WATCH_SENDER], 1);
	assert_int_equal(s->procs[0].by_role[NT_WATCH_RECEIVER], 1);
	/* An end on this host whose process is unknown counts as local, in no process row. */
	struct nt_watch_stall c = stall(40002, 40 * NT_NS_PER_MS, 0, 0);

	c.sock[NT_DIR_C2T].local = true;
	nt_watch_sum_add(s, &c);
	assert_int_equal(s->local_stalls, 5);
	assert_int_equal(s->n_procs, 3);
	c.sock[NT_DIR_C2T].local = false;
	nt_watch_sum_add(s, &c);
	assert_int_equal(s->local_stalls, 5);
	assert_true(nt_watch_same_flow(&a, &a));
	assert_false(nt_watch_same_flow(&a, &b));
	free(s);
}

/* A socket closed before its stall was handled keeps the process an earlier stall found. */
static void test_recall(void **state)
{
	struct nt_watch_sum *s = malloc(sizeof(*s));
	struct nt_watch_stall a = stall(40000, 40 * NT_NS_PER_MS, 100, 200);
	struct nt_watch_stall gone = stall(40000, 40 * NT_NS_PER_MS, 0, 200);
	struct nt_watch_stall other = stall(40001, 40 * NT_NS_PER_MS, 0, 200);

	(void)state;
	assert_non_null(s);
	nt_watch_sum_init(s);
	gone.sock[NT_DIR_C2T].local = gone.sock[NT_DIR_C2T].closed = true;
	other.sock[NT_DIR_C2T].local = other.sock[NT_DIR_C2T].closed = true;
	nt_watch_sum_recall(s, &gone);
	assert_int_equal(gone.sock[NT_DIR_C2T].pid, -1);
	nt_watch_sum_add(s, &a);
	nt_watch_sum_recall(s, &gone);
	assert_int_equal(gone.sock[NT_DIR_C2T].pid, 100);
	assert_string_equal(gone.sock[NT_DIR_C2T].comm, "client");
	/* Another flow's socket is not this one's. */
	nt_watch_sum_recall(s, &other);
	assert_int_equal(other.sock[NT_DIR_C2T].pid, -1);
	free(s);
}

static void test_percentiles(void **state)
{
	struct nt_watch_delays d = { 0 };
	struct nt_watch_sum *s = malloc(sizeof(*s));

	(void)state;
	assert_int_equal(nt_watch_delays_pct(&d, 50), NT_UNKNOWN);
	assert_non_null(s);
	nt_watch_sum_init(s);
	/* 100 delays, 1..100 ms: p50 is the 50th, p99 the 99th (nearest rank). */
	for (int i = 100; i >= 1; i--) {
		struct nt_watch_stall st = stall(40000, i * NT_NS_PER_MS, 100, 200);

		nt_watch_sum_add(s, &st);
	}
	assert_int_equal(nt_watch_delays_pct(&s->flows[0].delays, 50), 50 * NT_NS_PER_MS);
	assert_int_equal(nt_watch_delays_pct(&s->flows[0].delays, 99), 99 * NT_NS_PER_MS);
	/* Past the cap a sample is kept: the count goes on, the memory does not. */
	for (int i = 0; i < 10000; i++) {
		struct nt_watch_stall st = stall(40000, 40 * NT_NS_PER_MS, 100, 200);

		nt_watch_sum_add(s, &st);
	}
	assert_int_equal(s->flows[0].delays.n, 10100);
	assert_int_equal(s->flows[0].delays.kept, NT_WATCH_DELAYS_KEPT);
	assert_int_equal(nt_watch_delays_pct(&s->flows[0].delays, 50), 40 * NT_NS_PER_MS);
	free(s);
}

static void test_caps(void **state)
{
	struct nt_watch_sum *s = malloc(sizeof(*s));

	(void)state;
	assert_non_null(s);
	nt_watch_sum_init(s);
	for (unsigned i = 0; i < NT_WATCH_FLOWS_KEPT + 10; i++) {
		struct nt_watch_stall st =
			stall((uint16_t)(1000 + i), 40 * NT_NS_PER_MS, (int)(10000 + i), 0);

		nt_watch_sum_add(s, &st);
	}
	assert_int_equal(s->n_flows, NT_WATCH_FLOWS_KEPT);
	assert_true(s->flows[NT_WATCH_FLOWS_KEPT].other);
	assert_int_equal(s->flows[NT_WATCH_FLOWS_KEPT].stalls, 10);
	assert_int_equal(s->n_procs, NT_WATCH_PROCS_KEPT);
	assert_true(s->procs[NT_WATCH_PROCS_KEPT].other);
	assert_int_equal(s->procs[NT_WATCH_PROCS_KEPT].stalls,
			 NT_WATCH_FLOWS_KEPT + 10 - NT_WATCH_PROCS_KEPT);
	assert_int_equal(s->stalls, NT_WATCH_FLOWS_KEPT + 10);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles_and_rows),
		cmocka_unit_test(test_recall),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
