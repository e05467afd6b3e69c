/* SPDX-License-Identifier: MIT */
/*
 * test_data.h - the unit tests' data files (tests/unit/data/), read whole.
 */
#ifndef NT_TEST_DATA_H
#define NT_TEST_DATA_H

#include <stdio.h>
#include <stdlib.h>

/* tests/unit/data/@dir/@name, NUL-terminated (at most 64 KiB - 1); the caller frees it. */
static inline char *nt_test_data(const char *dir, const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	size_t n;

	snprintf(path, sizeof(path), "%s/unit/data/%s/%s", NT_TEST_DATA_DIR, dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	buf = calloc(1, 65536);
	assert_non_null(buf);
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

#endif
