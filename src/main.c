// SPDX-License-Identifier: MIT
/*
 * main.c - the entry point: pick the command and exit with what it returns.
 *
 * `nagle-trace [trace] [options]` is the default command; the others are
 * named first (`nagle-trace analyze ...`). Everything else happens in the
 * command (src/cmd/).
 */
#include <stdio.h>
#include <string.h>

#include "nt/cmd/cmd.h"
#include "nt/exitcode.h"
#include "nt/output.h"

/**
 * struct command - one subcommand
 * @name: what the user types after nagle-trace
 * @main: its entry point; argv[0] is @name
 */
struct command {
	const char *name;
	int (*main)(int argc, char **argv);
};

/* One command a line. */
/* clang-format off */
static const struct command commands[] = {
	{ "trace", nt_cmd_trace },
	{ "analyze", nt_cmd_analyze },
	{ "run", nt_cmd_run },
	{ "predict", nt_cmd_predict },
	{ "watch", nt_cmd_watch },
	{ "completion", nt_cmd_completion },
	{ "kernels", nt_cmd_kernels },
};
/* clang-format on */

int main(int argc, char **argv)
{
	/* Before anything opens a file: a closed 0, 1 or 2 must not be taken by one. */
	if (nt_output_stdio_init() < 0) {
		fputs("nagle-trace: cannot open /dev/null for a closed standard stream\n", stderr);
		return NT_EXIT_ENVIRONMENT;
	}
	for (unsigned i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].main(argc - 1, argv + 1);
	return nt_cmd_trace(argc, argv);
}
