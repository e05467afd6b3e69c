// SPDX-License-Identifier: MIT
/*
 * fuzz_cli.c - libFuzzer target for the option parser: the input, split at
 * NUL bytes, is argv. Every parse must end in success or a usage error with a
 * one-line message, and a successful parse must be within the documented
 * bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nt/cmd/trace_opts.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	struct nt_trace_opts opt;
	struct nt_err err = { "" };

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "nagle-trace";
	for (size_t i = 0; i <= size && argc <= MAX_ARGS;) {
		argv[argc++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	argv[argc] = NULL;

	int ret = nt_trace_opts_parse(argc, argv, &opt, &err);
	if (ret < 0) {
		/* A usage error always says something, on one line. */
		if (!err.msg[0] || strchr(err.msg, '\n'))
			__builtin_trap();
	} else if (opt.action == NT_CMD_RUN) {
		const struct nt_shape *s = &opt.trace.shape;

		if (s->rounds < 1 || s->rounds > NT_TRACE_ROUNDS_MAX || s->header_bytes < 1 ||
		    s->header_bytes > NT_TRACE_BYTES_MAX || s->body_bytes < 1 ||
		    s->body_bytes > NT_TRACE_BYTES_MAX || s->reply_bytes < 1 ||
		    s->reply_bytes > NT_TRACE_BYTES_MAX || opt.n_variants < 1 || !opt.trace.variant)
			__builtin_trap();
	}
	free(copy);
	return 0;
}
