// SPDX-License-Identifier: MIT
/*
 * main.c - the entry point: pick the command and exit with what it returns.
 *
 * `nagle-trace [trace] [options]` is the default command; the others are
 * named first (`nagle-trace analyze ...`). Everything else happens in the
 * command (src/cmd/).
 */
#include <string.h>

#include "nt/cmd/cmd.h"

/**
 * struct command - one subcommand
 * @name: what the user types after nagle-trace
 * @main: its entry point; argv[0] is @name
 */
struct command {
	const char *name;
	int (*main)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "trace", nt_cmd_trace },
	{ "analyze", nt_cmd_analyze },
};

int main(int argc, char **argv)
{
	for (unsigned i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].main(argc - 1, argv + 1);
	return nt_cmd_trace(argc, argv);
}
