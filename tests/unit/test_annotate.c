// SPDX-License-Identifier: MIT
/*
 * test_annotate.c - which frames an annotated capture comments: stalls found
 * out of order are numbered by input and held frame, a frame that is two
 * things gets two marks, the second reading finds them in order; a round's
 * H, A, B in capture order; the words name output frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/annotate.h"
#include "nt/render/annotate.h"

static struct nt_stall_episode ep(uint64_t h, uint64_t a, uint64_t r)
{
	return (struct nt_stall_episode){ .kind = NT_EPISODE_STALL,
					  .delack = NT_DELACK_MIN,
					  .held_len = 4,
					  .ack_delay_ns = 41549000,
					  .release_gap_ns = 38000,
					  .stall_ns = 41588000,
					  .held_frame = h,
					  .ack_frame = a,
					  .release_frame = r };
}

static void test_marks_in_order(void **state)
{
	struct nt_annot_list l;
	const struct nt_annot_mark *m;
	struct nt_stall_episode e;

	(void)state;
	memset(&l, 0, sizeof(l));
	/* Found out of order; stall 2's H is stall 1's R (frame 12). */
	e = ep(12, 14, 15);
	assert_int_equal(nt_annot_add(&l, 0, &e), 0);
	e = ep(10, 11, 12);
	assert_int_equal(nt_annot_add(&l, 0, &e), 0);
	e = ep(3, 4, 5);
	assert_int_equal(nt_annot_add(&l, 1, &e), 0);
	assert_int_equal(nt_annot_finish(&l), 0);
	assert_int_equal(l.n_marks, 9);

	assert_int_equal(nt_annot_at(&l, 0, 9, &m), 0);
	assert_int_equal(nt_annot_at(&l, 0, 10, &m), 1);
	assert_int_equal(l.stalls[m[0].stall].number, 1);
	assert_int_equal(m[0].role, NT_ANNOT_HELD);
	assert_int_equal(nt_annot_at(&l, 0, 11, &m), 1);
	assert_int_equal(m[0].role, NT_ANNOT_ACK);
	assert_int_equal(nt_annot_at(&l, 0, 12, &m), 2);
	assert_int_equal(l.stalls[m[0].stall].number, 1);
	assert_int_equal(m[0].role, NT_ANNOT_RELEASE);
	assert_int_equal(l.stalls[m[1].stall].number, 2);
	assert_int_equal(m[1].role, NT_ANNOT_HELD);
	assert_int_equal(nt_annot_at(&l, 0, 13, &m), 0);
	assert_int_equal(nt_annot_at(&l, 0, 15, &m), 1);
	/* The second input: its own frame numbers, numbered after the first's stalls. */
	assert_int_equal(nt_annot_at(&l, 1, 4, &m), 1);
	assert_int_equal(l.stalls[m[0].stall].number, 3);
	assert_int_equal(nt_annot_at(&l, 1, 5, &m), 1);
	assert_int_equal(nt_annot_at(&l, 1, 6, &m), 0);
	nt_annot_fini(&l);
}

static void test_words_name_output_frames(void **state)
{
	struct nt_annot_stall s = { .number = 3,
				    .frame = { 20, 21, 22 },
				    .ack_delay_ns = 41549000,
				    .release_gap_ns = 38000,
				    .stall_ns = 41588000,
				    .held_len = 4,
				    .delack = NT_DELACK_MIN };
	char buf[NT_ANNOT_TEXT_LEN];

	(void)state;
	assert_string_equal(nt_annot_stall_text(&s, NT_ANNOT_RELEASE, 100, buf, sizeof(buf)),
			    "stall 3: held by Nagle 41.588 ms, released by the delayed ACK of "
			    "frame 121 (0.038 ms after it)");
	nt_annot_stall_text(&s, NT_ANNOT_ACK, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "late ACK of frame 20, 41.549 ms after it"));
	assert_non_null(strstr(buf, "delack_min"));
	nt_annot_stall_text(&s, NT_ANNOT_HELD, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "its ACK (frame 21)"));
}

/* Unheld: B left before A; the records come out in capture order. */
static void test_round_marks_capture_order(void **state)
{
	struct nt_event ev[3] = {
		{ .t_ns = 100, .kind = NT_EVENT_SEGMENT, .seg = { .payload_bytes = 4 } },
		{ .t_ns = 200, .kind = NT_EVENT_SEGMENT, .seg = { .payload_bytes = 8 } },
		{ .t_ns = 300, .kind = NT_EVENT_SEGMENT, .seg = { .payload_bytes = 0 } },
	};
	struct nt_round r = { .index = 2,
			      .verdict = NT_VERDICT_UNHELD,
			      .marks = { .h = 0, .a = 2, .b = 1, .write_body_ns = 150 },
			      .gap_ns = 200,
			      .release_ns = -1 };
	struct nt_round_view rv = { .round = &r, .ev = ev, .n = 3 };
	struct nt_annot_round_mark m[NT_ANNOT_ROLE_COUNT];
	char buf[NT_ANNOT_TEXT_LEN];

	(void)state;
	assert_int_equal(nt_annot_round_marks(&rv, m), 3);
	assert_int_equal(m[0].role, NT_ANNOT_HELD);
	assert_int_equal(m[1].role, NT_ANNOT_RELEASE);
	assert_int_equal(m[2].role, NT_ANNOT_ACK);
	assert_true(m[0].t_ns < m[1].t_ns && m[1].t_ns < m[2].t_ns);
	/* B notes when write(body) returned (50 ns before it left); H and A note no write. */
	assert_int_equal(m[1].write_lead_ns, 50);
	assert_true(m[0].write_lead_ns == NT_ANNOT_NO_WRITE &&
		    m[2].write_lead_ns == NT_ANNOT_NO_WRITE);
	nt_annot_round_text(&m[1], buf, sizeof(buf));
	assert_non_null(
		strstr(buf, "round 2: B, the body's first segment (8 bytes); verdict unheld"));
	/* A missing mark is left out. */
	r.marks.a = -1;
	assert_int_equal(nt_annot_round_marks(&rv, m), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marks_in_order),
		cmocka_unit_test(test_words_name_output_frames),
		cmocka_unit_test(test_round_marks_capture_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
