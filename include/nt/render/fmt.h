/* SPDX-License-Identifier: MIT */
/*
 * fmt.h - numbers and times as every format prints them.
 *
 * Times are one family, and this is its one statement of rounding: every
 * member rounds to its last printed digit as printf("%.3f") does, but
 * nt_fmt_ms_trunc(), analyze's, which cuts to the microsecond so that its
 * tables, text and diagrams agree to the digit. Live reports name the unit
 * ("43.247 ms", nt_fmt_ms()); offsets carry their sign ("+43.247",
 * nt_fmt_ms_signed()); other precisions and seconds: nt_fmt_ms_digits(),
 * nt_fmt_s_digits(). Each writes into (@buf, @len) and returns @buf, so it
 * can sit in a printf argument list.
 */
#ifndef NT_RENDER_FMT_H
#define NT_RENDER_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Buffer sizes that always hold the result. */
#define NT_FMT_MS_LEN	    32
#define NT_FMT_UTC_LEN	    48
#define NT_FMT_ENDPOINT_LEN 64

/**
 * nt_fmt_ms() - a duration in milliseconds with its unit, "43.247 ms", or
 * "-" when @ns is negative (unknown)
 * @ns: the duration
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_fmt_ms(int64_t ns, char *buf, size_t len);

/**
 * nt_fmt_ms_digits() - a time in milliseconds with @digits decimals, no
 * unit: "43.2" with 1, "43.247" with 3
 * @ns: the time
 * @digits: decimals, 0 to 6
 * @buf: filled
 * @len: size of @buf (NT_FMT_MS_LEN holds any)
 *
 * Return: @buf.
 */
const char *nt_fmt_ms_digits(int64_t ns, int digits, char *buf, size_t len);

/**
 * nt_fmt_ms_signed() - an offset in milliseconds with its sign, 3
 * decimals, no unit: "+43.247", "-0.145"
 * @ns: the offset
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_fmt_ms_signed(int64_t ns, char *buf, size_t len);

/**
 * nt_fmt_s_digits() - a duration in seconds with @digits decimals, no unit:
 * "12.5" with 1
 * @ns: the duration
 * @digits: decimals, 0 to 9
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_fmt_s_digits(int64_t ns, int digits, char *buf, size_t len);

/* The longest text of a uint64_t: 18446744073709551615. */
#define NT_FMT_U64_CHARS 20

/**
 * nt_fmt_cut() - @n bytes of @src into @buf as snprintf("%.*s") puts
 * them: cut to fit, always terminated
 * @buf: filled
 * @len: size of @buf (0: left as it is)
 * @src: the text, no NUL needed
 * @n: its length
 *
 * For text built by hand, backwards (nt_fmt_u64_back()), without a format.
 *
 * Return: @buf.
 */
const char *nt_fmt_cut(char *buf, size_t len, const char *src, size_t n);

/**
 * nt_fmt_u64_back() - the decimal digits of @v, written backwards
 * @v: the value
 * @end: one past the last byte to write; NT_FMT_U64_CHARS bytes before it
 *       are free
 *
 * The digits printf("%" PRIu64) prints, without its parsing of a format.
 *
 * Return: the first digit (the text runs to @end; no NUL is written).
 */
char *nt_fmt_u64_back(uint64_t v, char *end);

/**
 * nt_fmt_ms_trunc() - a duration in milliseconds truncated to the
 * microsecond, no unit: "43.967", "-0.145"
 * @ns: the duration
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_fmt_ms_trunc(int64_t ns, char *buf, size_t len);

/**
 * nt_fmt_utc_digits() - an absolute time as ISO 8601 UTC with @digits
 * decimals of the second, "2019-04-11T17:16:41.910018000Z" with 9
 * @t_ns: nanoseconds since the epoch
 * @digits: 9, or 6 for a capture with microsecond timestamps (any other
 *          value is taken as 9); the digits left out are dropped, not rounded
 * @buf: filled
 * @len: size of @buf (NT_FMT_UTC_LEN)
 *
 * Return: @buf.
 */
const char *nt_fmt_utc_digits(int64_t t_ns, unsigned digits, char *buf, size_t len);

/**
 * nt_fmt_addr() - an address alone, "192.0.2.1" or "2001:db8::1"; "?" when
 * inet_ntop() cannot print it
 * @family: AF_INET or AF_INET6
 * @addr: network order (4 or 16 bytes)
 * @buf: filled
 * @len: size of @buf (INET6_ADDRSTRLEN holds any)
 *
 * Return: @buf.
 */
const char *nt_fmt_addr(int family, const uint8_t *addr, char *buf, size_t len);

/**
 * nt_fmt_endpoint() - "192.0.2.1:80" or "[2001:db8::1]:80"
 * @family: AF_INET or AF_INET6
 * @addr: network order (4 or 16 bytes)
 * @port: host order
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_fmt_endpoint(int family, const uint8_t *addr, uint16_t port, char *buf, size_t len);

#endif
