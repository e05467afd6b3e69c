// SPDX-License-Identifier: MIT
/*
 * analyze.c - the offline command (see nt/analyze.h). Placeholder seam until
 * the analyze issue lands: it refuses with a usage error instead of guessing.
 */
#include <stdio.h>

#include "nt/analyze.h"
#include "nt/exitcode.h"

int nt_analyze_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "nagle-trace: analyze: not available in this build\n");
	return NT_EXIT_USAGE;
}
