// SPDX-License-Identifier: MIT
/*
 * test_analysis_text.c - one flow's block of analyze's text report, in the
 * branches the golden captures do not reach (IPv6, a flow evicted
 * mid-stream with its MSS and round trips unknown, segments out of order, a
 * sampled median, a loss that may be the other side's answer) and with
 * values wider than their columns. The expected text is what the block
 * printed when it was written with fprintf(), before it was built by hand
 * (docs/performance.md): widths that grow, never cut. And the Markdown
 * report's table rows, likewise.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/model/analysis.h"
#include "nt/model/tcp.h"
#include "nt/render/analysis.h"

#define MS 1000000LL

static const char want_v6[] =
	"flow [2001:db8::1]:65535 -> [2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]:443 (file 2, "
	"mid-stream, evicted before the end)\n"
	"  packets 18446744073709551615, mss 0/1440 (0: no SYN), rtt to client ? ms, to target "
	"0.031 ms\n"
	"  stalls 1025 (delack_min 1000, delack_max 20, other 5), think time 7\n"
	"  lost 40.000-41.234 ms (45000.000 ms summed over 1025 held segments), p50 40.020 ms (of "
	"a uniform sample of 1024 stalls), max 200.000 ms\n"
	"  3 segments out of order\n"
	"  first stall: 2023-11-14T22:13:21.000000000Z (+1000.000 ms in file), frame 123456789012\n"
	"    [2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]:443 sent 1 byte, then nothing; "
	"[2001:db8::1]:65535 acked them after 40.000 ms (delack_min);\n"
	"    the next data followed the ACK by 0.020 ms (window 1.021 ms): 0.500-40.020 ms lost: "
	"the next data may answer frame 123456789013\n"
	"  last stall: 2023-11-14T22:13:22.000000000Z (+2000.000 ms in file), frame 9\n"
	"    [2001:db8::1]:65535 sent 4294967295 bytes, then nothing; "
	"[2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]:443 acked them after 200.000 ms (delack_max);\n"
	"    the next data followed the ACK by 0.000 ms (window 0.000 ms): 200.000 ms lost\n"
	"  around the first stall (ms from the held segment):\n"
	"       frame       t_ms dir  flags         seq        ack    len\n"
	"    123456789012      0.000 t2c  P.              1 4294967295      1  <- held (H)\n"
	"           2 -123456789.012 c2t  SFPRUEW.          0          0 4294967295\n"
	"           3     40.000 c2t  .               5          2      0  <- late ACK\n"
	"    123456789013     40.020 t2c  -      4000000000          1 123456  <- released\n";

static char path_a[] = "a.pcap", path_b[] = "b.pcap";
static struct nt_analysis_file files[2] = {
	{ .path = path_a, .first_t_ns = 0 },
	{ .path = path_b, .first_t_ns = 1700000000000000000LL, .sub_us = true },
};

/* An IPv6 flow in every branch the golden captures miss, its values past their columns. */
static void v6_flow(struct nt_flow_result *out)
{
	struct nt_flow_result r = {
		.file = 1,
		.family = AF_INET6,
		.client_port = 65535,
		.target_port = 443,
		.mss = { 0, 1440 },
		.rtt_ns = { -1, 31000 },
		.packets = UINT64_MAX,
		.evicted = true,
		.p50_sampled = true,
		.stalls = 1025,
		.think_time = 7,
		.by_delack = { 5, 1000, 20 },
		.out_of_order = 3,
		.total_ns = 45000 * MS,
		.max_ns = 200 * MS,
		.p50_ns = 40020000,
		.n_timeline = 4,
	};

	inet_pton(AF_INET6, "2001:db8::1", r.client_addr);
	inet_pton(AF_INET6, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", r.target_addr);
	r.wall.total_ns = 41234000;
	r.wall_min.total_ns = 40 * MS;
	r.first = (struct nt_stall_episode){
		.dir = NT_DIR_T2C,
		.delack = NT_DELACK_MIN,
		.held_t_ns = 1700000001000000000LL,
		.held_len = 1,
		.ack_delay_ns = 40 * MS,
		.release_gap_ns = 20000,
		.window_ns = 1021250,
		.stall_ns = 40020000,
		.lost_min_ns = 500000,
		.held_frame = 123456789012ULL,
		.ack_frame = 3,
		.release_frame = 123456789013ULL,
		.answer_frame = 123456789013ULL,
	};
	r.last = (struct nt_stall_episode){
		.dir = NT_DIR_C2T,
		.delack = NT_DELACK_MAX,
		.held_t_ns = 1700000002000000000LL,
		.held_len = UINT32_MAX,
		.ack_delay_ns = 200 * MS,
		.stall_ns = 200 * MS,
		.lost_min_ns = 200 * MS,
		.held_frame = 9,
	};
	r.timeline[0] = (struct nt_tl_seg){ .t_ns = r.first.held_t_ns,
					    .frame = 123456789012ULL,
					    .dir = NT_DIR_T2C,
					    .flags = NT_TCP_PSH | NT_TCP_ACK,
					    .seq_rel = 1,
					    .ack_rel = UINT32_MAX,
					    .len = 1 };
	r.timeline[1] = (struct nt_tl_seg){ .t_ns = r.first.held_t_ns - 123456789012345LL,
					    .frame = 2,
					    .dir = NT_DIR_C2T,
					    .flags = 0xff,
					    .len = UINT32_MAX };
	r.timeline[2] = (struct nt_tl_seg){ .t_ns = r.first.held_t_ns + 40 * MS,
					    .frame = 3,
					    .dir = NT_DIR_C2T,
					    .flags = NT_TCP_ACK,
					    .seq_rel = 5,
					    .ack_rel = 2 };
	r.timeline[3] = (struct nt_tl_seg){ .t_ns = r.first.held_t_ns + 40020000,
					    .frame = 123456789013ULL,
					    .dir = NT_DIR_T2C,
					    .seq_rel = 4000000000U,
					    .ack_rel = 1,
					    .len = 123456 };
	*out = r;
}

static void test_v6_every_branch(void **state)
{
	struct nt_analysis an = { .files = files, .n_files = 2 };
	struct nt_flow_result r;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	v6_flow(&r);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	nt_render_analysis_text_flow(out, &an, &r);
	assert_int_equal(fclose(out), 0);
	if (getenv("NT_TEST_PRINT"))
		fputs(text, stdout);
	assert_string_equal(text, want_v6);
	free(text);
}

/*
 * The Markdown report's table: a row per flow, the worst in bold, whatever
 * renders the rows (one thread, or several: nt/render/chunks.h). The rows
 * are what they were when written with fprintf().
 */
static const char want_rows[] =
	"| `[2001:db8::1]:65535 → [2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]:443` | 1025 | "
	"40.000-41.234 ms | ~40.020 ms | 200.000 ms | 1000 | 20 | 5 | file 2, frame 123456789012, "
	"2023-11-14T22:13:21.000000000Z | file 2, frame 9, 2023-11-14T22:13:22.000000000Z |\n"
	"| **`192.0.2.1:40000 → 198.51.100.7:7000`** | 2 | **80.040 ms** | 40.020 ms | "
	"40.020 ms | 2 | 0 | 0 | file 1, frame 4, 1970-01-01T00:00:00.001000Z | file 1, frame "
	"8, 1970-01-01T00:00:00.101000Z |\n";

static void test_markdown_rows(void **state)
{
	struct nt_flow_result v6, v4 = {
		.file = 0,
		.family = AF_INET,
		.client_port = 40000,
		.target_port = 7000,
		.stalls = 2,
		.by_delack = { 0, 2, 0 },
		.total_ns = 80040000,
		.max_ns = 40020000,
		.p50_ns = 40020000,
	};
	struct nt_flow_result *flows[] = { &v6, &v4 };
	struct nt_analysis an = { .files = files, .n_files = 2, .flows = flows, .n_flows = 2 };
	struct nt_analysis_view v = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	v6_flow(&v6);
	inet_pton(AF_INET, "192.0.2.1", v4.client_addr);
	inet_pton(AF_INET, "198.51.100.7", v4.target_addr);
	v4.wall.total_ns = v4.wall_min.total_ns = 80040000;
	v4.first = (struct nt_stall_episode){ .held_t_ns = 1000000, .held_frame = 4 };
	v4.last = (struct nt_stall_episode){ .held_t_ns = 101000000, .held_frame = 8 };
	an.sum.stalls = 1027;
	an.sum.flows = an.sum.flows_with_stalls = 2;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(nt_render_analysis_markdown(out, &an, &v), 0);
	assert_int_equal(fclose(out), 0);
	if (getenv("NT_TEST_PRINT"))
		fputs(text, stdout);

	/* The rows: the lines after the table's rule. */
	const char *rule = strstr(text, "| --- | ---: |");

	assert_non_null(rule);
	rule = strchr(rule, '\n') + 1;
	assert_memory_equal(rule, want_rows, sizeof(want_rows) - 1);
	assert_true(rule[sizeof(want_rows) - 1] == '\n');
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v6_every_branch),
		cmocka_unit_test(test_markdown_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
