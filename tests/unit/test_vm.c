// SPDX-License-Identifier: MIT
/*
 * test_vm.c - the guest's pure parts: result frames (every cut, a damaged
 * byte, the end marker), the release in a bzImage's setup header, a
 * module's modinfo "depends=", the /init script's quoting, and a result
 * document read into cells (one variant, several, one the kernel lacks).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "nt/render/kernels.h"
#include "nt/unknown.h"
#include "nt/vm/guest.h"
#include "nt/vm/image.h"

static size_t frame(char *buf, size_t len, const char *kind, unsigned index, int status,
		    const char *data)
{
	uLong crc = crc32(0, (const Bytef *)data, (uInt)strlen(data));

	return (size_t)snprintf(buf, len, "NT-FRAME %s %u %d %zu %08lx\n%s\n", kind, index, status,
				strlen(data), crc, data);
}

static void test_frames(void **state)
{
	char buf[512];
	size_t n, pos = 0;
	struct nt_vm_frame f;

	(void)state;
	n = frame(buf, sizeof(buf), "json", 3, 1, "{\"a\": 1}\n");
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "NT-END 4\n");
	assert_int_equal(nt_vm_frame_next(buf, n, &pos, &f), 1);
	assert_string_equal(f.kind, "json");
	assert_int_equal(f.index, 3);
	assert_int_equal(f.status, 1);
	assert_int_equal(f.len, 9);
	assert_memory_equal(f.data, "{\"a\": 1}\n", 9);
	assert_int_equal(nt_vm_frame_next(buf, n, &pos, &f), 0);
}

/* A frame cut at any byte is incomplete, never a frame with other bytes. */
static void test_frame_cuts(void **state)
{
	char buf[512];
	size_t n = frame(buf, sizeof(buf), "stderr", 0, 3, "nagle-trace: no veth\n");
	struct nt_vm_frame f;

	(void)state;
	for (size_t cut = 0; cut < n; cut++) {
		size_t pos = 0;

		assert_int_equal(nt_vm_frame_next(buf, cut, &pos, &f), -ENODATA);
		assert_int_equal(pos, 0);
	}
}

static void test_frame_damage(void **state)
{
	char buf[512];
	size_t n = frame(buf, sizeof(buf), "json", 0, 0, "{\"rounds\": []}"), pos = 0;
	struct nt_vm_frame f;

	(void)state;
	buf[n - 4] ^= 0x20; /* a payload byte: the CRC differs */
	assert_int_equal(nt_vm_frame_next(buf, n, &pos, &f), -EBADMSG);
	pos = 0;
	assert_int_equal(nt_vm_frame_next("[ 1.0] kernel text\n", 19, &pos, &f), -EBADMSG);
	pos = 0;
	assert_int_equal(nt_vm_frame_next("NT-FRAME json x 0 0 0\n\n", 23, &pos, &f), -EBADMSG);
}

static void test_bzimage_release(void **state)
{
	static unsigned char img[0x1000];
	char rel[72];
	static const char version[] = "6.12.117+deb12-amd64 (debian-kernel@lists.debian.org) #1";

	(void)state;
	assert_int_equal(nt_vm_bzimage_release(img, sizeof(img), rel, sizeof(rel)), -EINVAL);
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x0f; /* protocol 2.15 */
	img[0x207] = 0x02;
	img[0x20e] = 0x00; /* kernel_version: 0x200 + 0x0c00 */
	img[0x20f] = 0x0c;
	memcpy(img + 0xe00, version, sizeof(version));
	assert_int_equal(nt_vm_bzimage_release(img, sizeof(img), rel, sizeof(rel)), 0);
	assert_string_equal(rel, "6.12.117+deb12-amd64");
	/* The string's offset past the bytes read */
	assert_int_equal(nt_vm_bzimage_release(img, 0xe00, rel, sizeof(rel)), -EINVAL);
	/* A release longer than the buffer: refused as such, never cut */
	assert_int_equal(nt_vm_bzimage_release(img, sizeof(img), rel, 20), -ENAMETOOLONG);
	assert_int_equal(nt_vm_bzimage_release(img, sizeof(img), rel, 21), 0);
	assert_string_equal(rel, "6.12.117+deb12-amd64");
}

static void test_modinfo_depends(void **state)
{
	static const unsigned char ko[] =
		"\177ELF....\0license=GPL\0depends=ip6_udp_tunnel,udp_tunnel"
		"\0name=vxlan\0";
	static const unsigned char veth[] = "\177ELF\0xdepends=nope\0depends=\0name=veth\0";
	char deps[64];

	(void)state;
	assert_int_equal(nt_vm_modinfo_depends(ko, sizeof(ko), deps, sizeof(deps)), 0);
	assert_string_equal(deps, "ip6_udp_tunnel,udp_tunnel");
	/* "xdepends=" is not a tag: only one after a NUL is */
	assert_int_equal(nt_vm_modinfo_depends(veth, sizeof(veth), deps, sizeof(deps)), 0);
	assert_string_equal(deps, "");
	assert_int_equal(
		nt_vm_modinfo_depends((const unsigned char *)"text", 4, deps, sizeof(deps)),
		-ENOENT);
}

static void test_init_script_quotes(void **state)
{
	char *argv[] = { "--variant", "it's", "--body", "$(reboot)" };
	struct nt_vm_runs runs = { .argv = { argv }, .argc = { 4 }, .n = 1 };
	struct nt_vm_image im = { .n_mods = 1 };
	char *script = NULL;

	(void)state;
	assert_int_equal(nt_vm_init_script(&im, &runs, &script), 0);
	assert_non_null(strstr(script, "/bin/nagle-trace --format json --timeout 10000 "
				       "'--variant' 'it'\\''s' '--body' '$(reboot)' </dev/null"));
	assert_non_null(strstr(script, "$B insmod /nt/0.ko"));
	assert_non_null(strstr(script, "finish 1\n"));
	free(script);
}

static const char one_variant[] =
	"{\"variant\": \"default\", \"rounds\": [{\"index\": 2, \"verdict\": \"held\", "
	"\"as_predicted\": false, \"predicted_verdicts\": [\"stalled\"], \"header_ack_gap_ns\": "
	"900000,"
	" \"why\": {\"text\": \"stalled: ...\"}, \"evidence\": {\"target_pingpong\": true, "
	"\"target_ato_ms\": 40.0, \"target_quick\": null}}], \"summary\": {\"rounds\": 4, "
	"\"verdicts\": {\"held\": 2, \"stalled\": 2}, \"stall_min_ns\": 41000000, "
	"\"stall_max_ns\": "
	"47000000, \"model\": {\"kernel\": \"6.1\", \"hz\": 250, \"rounds_not_as_predicted\": 1}, "
	"\"expectation\": {\"met\": false}}}";

static void test_absorb(void **state)
{
	struct nt_kernels_guest g = { .release = "6.1.0-57-amd64" };
	struct nt_err err = { "" };
	const struct nt_kernels_cell *c;

	(void)state;
	assert_int_equal(nt_kernels_absorb(&g, "--rounds 4", 1, one_variant, strlen(one_variant),
					   "", false, &err),
			 0);
	assert_int_equal(nt_kernels_absorb(&g, "--pingpong-thresh 2", 3, NULL, 0,
					   "not on this kernel", true, &err),
			 0);
	assert_int_equal(nt_kernels_absorb(&g, "", 0, "{\"x\": 1}", 8, "", false, &err), -EBADMSG);
	assert_int_equal(g.n_cells, 2);
	c = &g.cells[0];
	assert_string_equal(c->variant, "default");
	assert_int_equal(c->counts[NT_VERDICT_STALLED], 2);
	assert_int_equal(c->not_as_predicted, 1);
	assert_string_equal(c->model, "6.1, HZ 250");
	assert_int_equal(c->n_findings, 1);
	assert_string_equal(c->findings[0].measured, "held");
	assert_string_equal(c->findings[0].predicted, "stalled");
	assert_false(c->met);
	assert_true(g.cells[1].unsupported);
	assert_int_equal(g.cells[1].stall_min_ns, NT_UNKNOWN);
	nt_kernels_guest_fini(&g);
	nt_kernels_guest_fini(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames),		cmocka_unit_test(test_frame_cuts),
		cmocka_unit_test(test_frame_damage),	cmocka_unit_test(test_bzimage_release),
		cmocka_unit_test(test_modinfo_depends), cmocka_unit_test(test_init_script_quotes),
		cmocka_unit_test(test_absorb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
