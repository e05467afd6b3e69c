// SPDX-License-Identifier: MIT
/*
 * test_kernel.c - CONFIG_HZ from a kernel configuration line, and the knobs
 * the running kernel sets (src/live/kernel.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/live/kernel.h"

/* what this checks: CONFIG_HZ=N is read, with or without its newline; nothing else is */
static void test_config_hz_line(void **state)
{
	unsigned hz = 0;

	(void)state;
	assert_true(nt_kernel_config_hz("CONFIG_HZ=250\n", &hz));
	assert_int_equal(hz, 250);
	assert_true(nt_kernel_config_hz("CONFIG_HZ=1000", &hz));
	assert_int_equal(hz, 1000);
	hz = 7;
	assert_false(nt_kernel_config_hz("CONFIG_HZ_250=y\n", &hz));
	assert_false(nt_kernel_config_hz("# CONFIG_HZ is not set\n", &hz));
	assert_false(nt_kernel_config_hz("CONFIG_HZ=\n", &hz));
	assert_false(nt_kernel_config_hz("CONFIG_HZ=25x\n", &hz));
	assert_false(nt_kernel_config_hz("CONFIG_HZ=0\n", &hz));
	assert_false(nt_kernel_config_hz("CONFIG_HZ=99999999999999999999\n", &hz));
	assert_false(nt_kernel_config_hz("XCONFIG_HZ=250\n", &hz));
	assert_int_equal(hz, 7);
}

/* what this checks: the facts set version, HZ and buffers; unknown buffers keep the defaults */
static void test_knobs(void **state)
{
	struct nt_kernel_facts kf;
	struct nt_predict_knobs k, d;

	(void)state;
	memset(&kf, 0, sizeof(kf));
	kf.version = (struct nt_kernel_version){ 5, 15, 0 };
	kf.hz = 1000;
	kf.rcvbuf_bytes = 87380;
	kf.rmem_max_bytes = 0;
	nt_predict_knobs_default(&d);
	k = d;
	nt_kernel_knobs(&kf, &k);
	assert_int_equal(k.kernel.major, 5);
	assert_int_equal(k.kernel.minor, 15);
	assert_int_equal(k.hz, 1000);
	assert_int_equal(k.rcvbuf_bytes, 87380);
	assert_int_equal(k.rmem_max_bytes, d.rmem_max_bytes);
	/* an unparsed release keeps the default kernel */
	kf.version = (struct nt_kernel_version){ 0, 0, 0 };
	k = d;
	nt_kernel_knobs(&kf, &k);
	assert_int_equal(k.kernel.major, d.kernel.major);
}

/* what this checks: the running kernel is read: a release, and HZ with where it came from */
static void test_read_running(void **state)
{
	struct nt_kernel_facts kf;

	(void)state;
	nt_kernel_facts_read(&kf);
	assert_true(kf.release[0] != '\0');
	assert_true(kf.version.major >= 3);
	assert_true(kf.hz >= 24 && kf.hz <= 10000);
	assert_true(kf.hz_source[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_hz_line),
		cmocka_unit_test(test_knobs),
		cmocka_unit_test(test_read_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
