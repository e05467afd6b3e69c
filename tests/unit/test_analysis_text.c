// SPDX-License-Identifier: MIT
/*
 * test_analysis_text.c - one flow's block of analyze's text report, in the
 * branches the golden captures do not reach (IPv6, a flow evicted
 * mid-stream with its MSS and round trips unknown, segments out of order, a
 * sampled median, a loss that may be the other side's answer) and with
 * values wider than their columns. The expected text is what the block
 * printed when it was written with fprintf(), before it was built by hand
 * (docs/performance.md): widths that grow, never cut.
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

/* An IPv6 flow in every branch the golden captures miss, its values past their columns. */
static void test_v6_every_branch(void **state)
{
	static struct nt_analysis_file files[2] = { { .first_t_ns = 0 },
						    { .first_t_ns = 1700000000000000000LL } };
	struct nt_analysis an = { .files = files, .n_files = 2 };
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
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	files[1].sub_us = true;
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
	out = open_memstream(&text, &len);
	assert_non_null(out);
	nt_render_analysis_text_flow(out, &an, &r);
	assert_int_equal(fclose(out), 0);
	if (getenv("NT_TEST_PRINT"))
		fputs(text, stdout);
	assert_string_equal(text, want_v6);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v6_every_branch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
