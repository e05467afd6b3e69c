// SPDX-License-Identifier: MIT
/*
 * test_pcap_writer.c - the -w file: complete or absent, nanosecond
 * timestamps read back by libpcap, per-variant names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "nt/capture/pcap_writer.h"
#include "test_dir.h"

static char dir[] = "/tmp/nt-pcap-writer-XXXXXX";

static void test_roundtrip_nano(void **state)
{
	static const uint8_t bytes[60] = { 0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00 };
	struct nt_frame f = {
		.t_ns = 1796023741508801979LL, .data = bytes, .caplen = 60, .wirelen = 60
	};
	char errbuf[PCAP_ERRBUF_SIZE], path[256];
	struct nt_pcap_writer *w;
	struct nt_err err = { "" };
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/x.pcap", dir);
	assert_int_equal(nt_pcap_writer_new(path, &w, &err), 0);
	assert_int_equal(nt_pcap_writer_start(w, 1, 4096, &err), 0);
	nt_pcap_writer_dump(w, &f);
	f.t_ns += 43900123;
	nt_pcap_writer_dump(w, &f);
	assert_int_equal(nt_pcap_writer_frames(w), 2);
	/* Nothing under the final name until commit. */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(nt_pcap_writer_commit(w, &err), 0);
	assert_int_equal(nt_test_dir_entries(dir), 1);

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	assert_non_null(p);
	assert_int_equal(pcap_datalink(p), 1);
	assert_int_equal(pcap_get_tstamp_precision(p), PCAP_TSTAMP_PRECISION_NANO);
	assert_int_equal(pcap_next_ex(p, &h, &data), 1);
	assert_int_equal(h->ts.tv_sec, 1796023741);
	assert_int_equal(h->ts.tv_usec, 508801979);
	assert_int_equal(h->caplen, 60);
	assert_memory_equal(data, bytes, 60);
	assert_int_equal(pcap_next_ex(p, &h, &data), 1);
	assert_int_equal(h->ts.tv_sec, 1796023741);
	assert_int_equal(h->ts.tv_usec, 552702102);
	assert_int_equal(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

static void test_abort_leaves_nothing(void **state)
{
	char path[256];
	struct nt_pcap_writer *w;
	struct nt_err err = { "" };

	(void)state;
	snprintf(path, sizeof(path), "%s/y.pcap", dir);
	assert_int_equal(nt_pcap_writer_new(path, &w, &err), 0);
	/* The file being written has no name at all (O_TMPFILE): SIGKILL would leave nothing. */
	assert_int_equal(nt_test_dir_entries(dir), 0);
	assert_int_equal(nt_pcap_writer_start(w, 1, 4096, &err), 0);
	nt_pcap_writer_abort(w);
	assert_int_equal(nt_test_dir_entries(dir), 0);
	nt_pcap_writer_abort(NULL);
	nt_pcap_writer_dump(NULL, NULL);
}

static void test_never_started(void **state)
{
	char errbuf[PCAP_ERRBUF_SIZE], path[256];
	struct nt_pcap_writer *w;
	struct nt_err err = { "" };
	pcap_t *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/z.pcap", dir);
	assert_int_equal(nt_pcap_writer_new(path, &w, &err), 0);
	assert_int_equal(nt_pcap_writer_commit(w, &err), 0);
	p = pcap_open_offline(path, errbuf);
	assert_non_null(p);
	pcap_close(p);
	unlink(path);
}

static void test_bad_directory(void **state)
{
	struct nt_pcap_writer *w = (struct nt_pcap_writer *)1;
	struct nt_err err = { "" };

	(void)state;
	assert_int_equal(nt_pcap_writer_new("/nonexistent-nt-dir/x.pcap", &w, &err), -ENOENT);
	assert_null(w);
	assert_non_null(strstr(err.msg, "\"/nonexistent-nt-dir/x.pcap\""));
}

static void test_variant_path(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(nt_pcap_writer_variant_path("x.pcap", "nodelay", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x-nodelay.pcap");
	assert_int_equal(nt_pcap_writer_variant_path("a.b/run", "cork", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a.b/run-cork");
	assert_int_equal(nt_pcap_writer_variant_path("d/.pcap", "cork", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "d/.pcap-cork");
	assert_int_equal(nt_pcap_writer_variant_path("t.tar.pcap", "v", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "t.tar-v.pcap");
	assert_int_equal(nt_pcap_writer_variant_path("x.pcap", "nodelay", buf, 8), -ENAMETOOLONG);
	/* One variant: the path itself, whole or refused, never cut to another file's name. */
	assert_int_equal(nt_pcap_writer_variant_path("x.pcap", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x.pcap");
	assert_int_equal(nt_pcap_writer_variant_path("x.pcap", NULL, buf, 7), 0);
	assert_int_equal(nt_pcap_writer_variant_path("x.pcap", NULL, buf, 6), -ENAMETOOLONG);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_nano), cmocka_unit_test(test_abort_leaves_nothing),
		cmocka_unit_test(test_never_started),  cmocka_unit_test(test_bad_directory),
		cmocka_unit_test(test_variant_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
