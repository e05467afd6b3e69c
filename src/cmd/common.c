// SPDX-License-Identifier: MIT
/*
 * common.c - what the commands share (see nt/cmd/common.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/capture/capture.h"
#include "nt/cli.h"
#include "nt/clock.h"
#include "nt/cmd/cmd.h"
#include "nt/cmd/common.h"
#include "nt/exitcode.h"
#include "nt/output.h"
#include "nt/render/format.h"
#include "nt/render/json.h"
#include "nt/version.h"

int nt_cmd_parse_color(const char *name, const char *text, enum nt_color_mode *out,
		       struct nt_err *err)
{
	static const char *const names[] = {
		[NT_COLOR_AUTO] = "auto", [NT_COLOR_ALWAYS] = "always", [NT_COLOR_NEVER] = "never"
	};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(text, names[i]) == 0) {
			*out = (enum nt_color_mode)i;
			return 0;
		}
	}
	return nt_err_set(err, 0, "%s: \"%s\" is not auto, always or never", name, text);
}

bool nt_cmd_want_color(const struct nt_cmd_output *out)
{
	const char *no_color = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (out->color == NT_COLOR_ALWAYS)
		return true;
	if (out->color == NT_COLOR_NEVER || out->path)
		return false;
	if (no_color && *no_color)
		return false;
	/* A terminal that says it cannot do escape sequences (Emacs shells, some CI logs). */
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(STDOUT_FILENO);
}

int nt_cmd_print_info(void (*print)(FILE *out))
{
	struct nt_err err = { "" };

	print(stdout);
	if (nt_output_close_stdout(&err) < 0) {
		return nt_cmd_fail(NT_EXIT_FILE, &err);
	}
	return NT_EXIT_OK;
}

void nt_cmd_version(FILE *out)
{
	fprintf(out, "nagle-trace %s\n%s\nlibmnl %s\njson-c %s\n", NT_VERSION,
		nt_capture_library_version(), NT_LIBMNL_VERSION, nt_json_library_version());
}

int nt_cmd_parse_action(int c, int version_code, const char *name, enum nt_cmd_action *action,
			struct nt_err *err)
{
	if (c == 'h') {
		*action = NT_CMD_HELP;
		return 0;
	}
	if (c == version_code) {
		*action = NT_CMD_VERSION;
		return 0;
	}
	return nt_err_set(err, 0, "unknown option '%s'", name);
}

int nt_cmd_parse_rtt(const char *name, const char *text, int64_t *rtt_ns, struct nt_err *err)
{
	uint64_t us = 0;
	int ret = nt_cli_parse_decimal(name, text, 3, 0, NT_CMD_RTT_US_MAX, &us, err);

	if (ret == 0)
		*rtt_ns = (int64_t)us * NT_NS_PER_US;
	return ret;
}

int nt_cmd_fail(int code, const struct nt_err *err)
{
	fprintf(stderr, "nagle-trace: %s\n", err->msg);
	return code;
}

int nt_cmd_open_fail(const struct nt_err *err)
{
	/* A FIFO's open() that SIGINT/SIGTERM interrupted (EINTR): the stop, not a file error. */
	if (nt_cmd_stop)
		return nt_cmd_stop_status();
	return nt_cmd_fail(NT_EXIT_FILE, err);
}

int nt_cmd_usage_error(const char *command, const char *msg)
{
	fprintf(stderr, "nagle-trace: %s\ntry 'nagle-trace %s%s--help'\n", msg,
		command ? command : "", command ? " " : "");
	return NT_EXIT_USAGE;
}

void nt_cmd_usage_format(FILE *out, enum nt_format_kind kind, const char *note)
{
	char names[128];

	fprintf(out, "  --format FMT        %s\n%s", nt_format_names(kind, names, sizeof(names)),
		note);
}

int nt_cmd_check_format(const char *format, enum nt_format_kind kind, struct nt_err *err)
{
	char names[128];

	if (nt_format_find(format, kind))
		return 0;
	return nt_err_set(err, 0, "--format: \"%s\" is not one of %s", format,
			  nt_format_names(kind, names, sizeof(names)));
}
