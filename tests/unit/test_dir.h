/* SPDX-License-Identifier: MIT */
/*
 * test_dir.h - what a test's scratch directory holds: the output tests check
 * that nothing is left behind (no temporary file, no half-written one).
 */
#ifndef NT_TEST_DIR_H
#define NT_TEST_DIR_H

#include <dirent.h>
#include <string.h>

/* How many entries @path holds (ls -A | wc -l), or -1. */
static inline int nt_test_dir_entries(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

#endif
