// SPDX-License-Identifier: MIT
/*
 * cli.c - the option policy of every command (see nt/cli.h).
 *
 * getopt_long() accepts any unambiguous prefix ("--round 5") and reads
 * "--flag=1" and "-h=1" in ways nobody means, so the arguments are checked
 * against the table before getopt_long() sees them.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/cli.h"
#include "nt/clock.h"

static const struct option *find_long(const struct option *opts, const char *name, size_t len)
{
	for (const struct option *o = opts; o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

/* Whether short option @ch exists, and whether it takes a value. */
static bool short_opt(const char *shortopts, char ch, bool *takes_value)
{
	const char *p = ch && ch != ':' ? strchr(shortopts, ch) : NULL;

	if (!p)
		return false;
	*takes_value = p[1] == ':';
	return true;
}

/*
 * A cluster of short options ("-hw", "-ofile"): a flag followed by '=' is a
 * value given to a flag. Returns the number of following words it consumes
 * as a value (0 or 1), or -EINVAL.
 */
static int check_short(const struct nt_cli *c, const char *a, struct nt_err *err)
{
	for (const char *p = a + 1; *p; p++) {
		bool takes_value;

		if (!short_opt(c->shortopts, *p, &takes_value))
			return 0; /* getopt_long() reports it, with its letter */
		if (takes_value)
			return p[1] ? 0 : 1;
		if (p[1] == '=')
			return nt_err_set(err, 0, "option '-%c' takes no value (\"%s\")", *p, a);
	}
	return 0;
}

static int check_long(const struct nt_cli *c, const char *a, struct nt_err *err)
{
	const char *eq = strchr(a + 2, '=');
	size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	const struct option *o = find_long(c->longopts, a + 2, len);

	if (!o)
		return nt_err_set(err, 0, "unknown option '--%.*s'", (int)len, a + 2);
	if (eq && o->has_arg == no_argument)
		return nt_err_set(err, 0, "option '--%s' takes no value", o->name);
	return !eq && o->has_arg == required_argument ? 1 : 0;
}

int nt_cli_start(struct nt_cli *c, int argc, char **argv, const char *shortopts,
		 const struct option *longopts, bool positional, struct nt_err *err)
{
	memset(c, 0, sizeof(*c));
	c->argc = argc;
	c->argv = argv;
	c->shortopts = shortopts;
	c->longopts = longopts;
	c->positional = positional;
	/* '-': positionals in order; ':': a missing value is told from an unknown option. */
	snprintf(c->optstring, sizeof(c->optstring), "%s:%s", positional ? "-" : "", shortopts);
	opterr = 0;
	/* 0, not 1: glibc then also forgets a half-read cluster such as "-xh" */
	optind = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int skip = 0;

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] == '-' && a[1] == '-')
			skip = check_long(c, a, err);
		else if (a[0] == '-' && a[1])
			skip = check_short(c, a, err);
		if (skip < 0)
			return -EINVAL;
		i += skip;
	}
	return 0;
}

/* The option getopt_long() just returned, as the user typed it. */
static void note_name(struct nt_cli *c, int ch, int longindex)
{
	if (longindex >= 0)
		snprintf(c->name, sizeof(c->name), "--%s", c->longopts[longindex].name);
	else
		snprintf(c->name, sizeof(c->name), "-%c", ch);
}

int nt_cli_next(struct nt_cli *c, struct nt_err *err)
{
	int longindex = -1;
	int ch = getopt_long(c->argc, c->argv, c->optstring, c->longopts, &longindex);
	const char *word = optind > 0 && optind <= c->argc ? c->argv[optind - 1] : "";

	c->arg = optarg;
	c->name[0] = '\0';
	if (ch == -1)
		return NT_CLI_END;
	if (ch == 1)
		return NT_CLI_POSITIONAL;
	if (ch == '?') {
		/* For a long option optopt holds its internal code, not a letter. */
		if (optopt && optopt < 256 && strncmp(word, "--", 2) != 0)
			nt_err_set(err, 0, "unknown option '-%c'", optopt);
		else
			nt_err_set(err, 0, "unknown option '%s'", word);
		return NT_CLI_REFUSED;
	}
	if (ch == ':') {
		nt_err_set(err, 0, "option '%s' needs a value", word);
		return NT_CLI_REFUSED;
	}
	note_name(c, ch, longindex);
	return ch;
}

int nt_cli_rest(const struct nt_cli *c)
{
	return optind < c->argc ? optind : c->argc;
}

/* "-5", "-0.5": a number, but below every range here (all start at 0 or more). */
static bool negative_number(const char *text)
{
	bool digits = false, dot = false;

	if (*text++ != '-')
		return false;
	for (; *text; text++) {
		if (isdigit((unsigned char)*text))
			digits = true;
		else if (*text == '.' && !dot && digits)
			dot = true;
		else
			return false;
	}
	return digits && text[-1] != '.';
}

int nt_cli_parse_path(const char *name, const char *text, const char **out, struct nt_err *err)
{
	if (!*text)
		return nt_err_set(err, 0, "%s: an empty file name", name);
	*out = text;
	return 0;
}

int nt_cli_parse_uint(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		      struct nt_err *err)
{
	unsigned long long v;

	if (!*text)
		return nt_err_set(err, 0, "%s: an empty value is not a number", name);
	if (negative_number(text)) {
		nt_err_set(err, 0,
			   "%s: \"%s\" is negative, out of range (%" PRIu64 "..%" PRIu64 ")", name,
			   text, min, max);
		return -ERANGE;
	}
	for (const char *p = text; *p; p++)
		if (!isdigit((unsigned char)*p))
			return nt_err_set(err, 0, "%s: \"%s\" is not a number", name, text);
	errno = 0;
	v = strtoull(text, NULL, 10);
	if (errno == ERANGE || v > max || v < min) {
		nt_err_set(err, 0, "%s: \"%s\" is out of range (%" PRIu64 "..%" PRIu64 ")", name,
			   text, min, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int nt_cli_parse_ms(const char *name, const char *text, uint64_t min_ms, int64_t *out_ns,
		    struct nt_err *err)
{
	uint64_t v = 0;
	int ret = nt_cli_parse_uint(name, text, min_ms, NT_CLI_MS_MAX, &v, err);

	if (ret == 0)
		*out_ns = (int64_t)v * NT_NS_PER_MS;
	return ret;
}

/* A scaled value as the user would write it: 10 with 2 decimals is "0.1". */
static void decimal_str(uint64_t v, unsigned decimals, char *buf, size_t len)
{
	uint64_t unit = 1;
	int n;

	for (unsigned i = 0; i < decimals; i++)
		unit *= 10;
	n = snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, v / unit, (int)decimals, v % unit);
	/* "0.10" -> "0.1", "1.000" -> "1" */
	while (n > 0 && decimals && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[n - 1] = '\0';
}

int nt_cli_parse_decimal(const char *name, const char *text, unsigned decimals, uint64_t min,
			 uint64_t max, uint64_t *out, struct nt_err *err)
{
	const char *dot = strchr(text, '.');
	size_t int_len = dot ? (size_t)(dot - text) : strlen(text);
	size_t frac_len = dot ? strlen(dot + 1) : 0;
	uint64_t v = 0;
	char lo[32], hi[32];

	if (!*text)
		return nt_err_set(err, 0, "%s: an empty value is not a number", name);
	if (negative_number(text)) {
		decimal_str(min, decimals, lo, sizeof(lo));
		decimal_str(max, decimals, hi, sizeof(hi));
		nt_err_set(err, 0, "%s: \"%s\" is negative, out of range (%s..%s)", name, text, lo,
			   hi);
		return -ERANGE;
	}
	if (int_len == 0 || (dot && frac_len == 0) || frac_len > decimals || decimals > 9)
		goto not_a_number;
	for (size_t i = 0; text[i]; i++)
		if (i != int_len && !isdigit((unsigned char)text[i]))
			goto not_a_number;
	/* The integer part's digits, then exactly @decimals fraction digits (padded with 0). */
	for (size_t i = 0; i < int_len + decimals; i++) {
		size_t f = i - int_len;
		unsigned digit = i < int_len	? (unsigned)(text[i] - '0')
				 : f < frac_len ? (unsigned)(dot[1 + f] - '0')
						: 0;

		if (v > (UINT64_MAX - 9) / 10)
			goto out_of_range;
		v = v * 10 + digit;
	}
	if (v < min || v > max)
		goto out_of_range;
	*out = v;
	return 0;

not_a_number:
	return nt_err_set(err, 0, "%s: \"%s\" is not a number", name, text);
out_of_range:
	decimal_str(min, decimals, lo, sizeof(lo));
	decimal_str(max, decimals, hi, sizeof(hi));
	nt_err_set(err, 0, "%s: \"%s\" is out of range (%s..%s)", name, text, lo, hi);
	return -ERANGE;
}
