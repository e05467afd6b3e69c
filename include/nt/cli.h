/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the one option policy of every command.
 *
 * Each command lists its options in a getopt_long() table and reads them
 * through nt_cli_next(), which adds the house rules: long options spelled
 * in full (no abbreviations: options are a public interface), a flag never
 * takes a value (`--summary=1`, `-h=1`), and every refusal one line quoting
 * the option as the user typed it. Numbers go through one range-checked
 * parser. Parsing never prints; the command reports.
 */
#ifndef NT_CLI_H
#define NT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "nt/err.h"

/* Documented bounds (nagle-trace(1)), shared by the commands that take them. */
#define NT_CLI_MS_MAX 600000u /* ten minutes for any duration */

/* What nt_cli_next() returns besides an option's value. */
#define NT_CLI_POSITIONAL 1    /* a positional argument, in order (@positional mode) */
#define NT_CLI_END	  (-1) /* no more options */
#define NT_CLI_REFUSED	  (-2) /* a usage error, in @err */

/**
 * struct nt_cli - one pass over a command's arguments
 * @argc: argument count (argv[0] is the command)
 * @argv: the arguments; getopt_long() may permute them
 * @shortopts: getopt_long()'s short options, without the leading '-' or ':'
 * @longopts: the long options, ending with a zeroed entry
 * @positional: return positional arguments in order (NT_CLI_POSITIONAL)
 *              instead of leaving them for after the options
 * @arg: the current option's value, or the positional argument
 * @name: the current option as typed, "--rounds" or "-o"
 * @optstring: the short options handed to getopt_long()
 */
struct nt_cli {
	int argc;
	char **argv;
	const char *shortopts;
	const struct option *longopts;
	bool positional;
	const char *arg;
	char name[64];
	char optstring[64];
};

/**
 * nt_cli_start() - check @argv against the house rules and start parsing
 * @c: filled
 * @argc: argument count
 * @argv: arguments
 * @shortopts: short options ("ho:w:")
 * @longopts: long options
 * @positional: see struct nt_cli
 * @err: on refusal, one line
 *
 * Return: 0 or -EINVAL (an abbreviated or unknown long option, a value
 * given to a flag).
 */
int nt_cli_start(struct nt_cli *c, int argc, char **argv, const char *shortopts,
		 const struct option *longopts, bool positional, struct nt_err *err);

/**
 * nt_cli_next() - the next option
 * @c: the pass
 * @err: on refusal, one line
 *
 * Return: the option's value from @longopts (or its short letter), with
 * @c->arg and @c->name set; NT_CLI_POSITIONAL; NT_CLI_END; or NT_CLI_REFUSED.
 */
int nt_cli_next(struct nt_cli *c, struct nt_err *err);

/**
 * nt_cli_rest() - index of the first argument not yet parsed (after
 * NT_CLI_END: the first positional argument)
 * @c: the pass
 *
 * Return: the index into @c->argv.
 */
int nt_cli_rest(const struct nt_cli *c);

/**
 * nt_cli_parse_path() - a file name an option takes: any text but the empty
 * one, which names no file
 * @name: the option, for the message ("--output")
 * @text: the user's text
 * @out: set to @text on success
 * @err: filled on failure
 *
 * Return: 0 or -EINVAL.
 */
int nt_cli_parse_path(const char *name, const char *text, const char **out, struct nt_err *err);

/**
 * nt_cli_parse_uint() - the one range-checked number parser
 * @name: the option, for the message ("--rounds")
 * @text: the user's text
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: set on success
 * @err: filled on failure, quoting @text
 *
 * Decimal digits only: no sign, no spaces, no suffix.
 *
 * Return: 0 or -EINVAL / -ERANGE.
 */
int nt_cli_parse_uint(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		      struct nt_err *err);

/**
 * nt_cli_parse_ms() - a whole number of milliseconds, as nanoseconds
 * @name: the option
 * @text: the user's text
 * @min_ms: smallest accepted value (the largest is NT_CLI_MS_MAX)
 * @out_ns: set on success
 * @err: filled on failure
 *
 * Return: 0 or -EINVAL / -ERANGE.
 */
int nt_cli_parse_ms(const char *name, const char *text, uint64_t min_ms, int64_t *out_ns,
		    struct nt_err *err);

/**
 * nt_cli_parse_decimal() - a decimal number with up to @decimals digits
 * after the point ("0.25"), scaled to an integer (10^@decimals units of one)
 * @name: the option
 * @text: the user's text
 * @decimals: digits accepted after the point, 0..9
 * @min: smallest accepted scaled value
 * @max: largest accepted scaled value
 * @out: set to the scaled value
 * @err: filled on failure, quoting @text and the range as decimals
 *
 * Return: 0 or -EINVAL / -ERANGE.
 */
int nt_cli_parse_decimal(const char *name, const char *text, unsigned decimals, uint64_t min,
			 uint64_t max, uint64_t *out, struct nt_err *err);

#endif
