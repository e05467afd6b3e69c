// SPDX-License-Identifier: MIT
/*
 * fmt.c - numbers and times as every format prints them (see nt/render/fmt.h).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "nt/clock.h"
#include "nt/render/fmt.h"

/* Two digits a division: a timestamp in nanoseconds has 19. */
static const char two_digits[] = "0001020304050607080910111213141516171819"
				 "2021222324252627282930313233343536373839"
				 "4041424344454647484950515253545556575859"
				 "6061626364656667686970717273747576777879"
				 "8081828384858687888990919293949596979899";

const char *nt_fmt_cut(char *buf, size_t len, const char *src, size_t n)
{
	if (len) {
		n = n < len ? n : len - 1;
		memcpy(buf, src, n);
		buf[n] = '\0';
	}
	return buf;
}

/* @v as @width digits, zero-padded, ending at @end; returns the first */
static char *digits_back(unsigned v, unsigned width, char *end)
{
	while (width--) {
		*--end = (char)('0' + v % 10);
		v /= 10;
	}
	return end;
}

/* @v < 100 as two digits */
static const char *pair(uint32_t v)
{
	return &two_digits[(size_t)v * 2];
}

/* @v < 10^8 as exactly eight digits ending at @end, in 32-bit arithmetic; returns the first */
static char *eight_digits_back(uint32_t v, char *end)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(end - 2, pair(lo % 100), 2);
	memcpy(end - 4, pair(lo / 100), 2);
	memcpy(end - 6, pair(hi % 100), 2);
	memcpy(end - 8, pair(hi / 100), 2);
	return end - 8;
}

/*
 * Eight digits at a time while @v has more than eight, each group in 32-bit
 * arithmetic: a timestamp in nanoseconds (19 digits) is two 64-bit
 * divisions, not nine. Half a million stalls are 7.5 million numbers in
 * analyze --format json (docs/performance.md).
 */
char *nt_fmt_u64_back(uint64_t v, char *end)
{
	char *p = end;
	uint32_t w;

	for (; v >= 100000000; v /= 100000000)
		p = eight_digits_back((uint32_t)(v % 100000000), p);
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		p -= 2;
		memcpy(p, pair(w % 100), 2);
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, pair(w), 2);
	} else {
		*--p = (char)('0' + w);
	}
	return p;
}

const char *nt_fmt_ms(int64_t ns, char *buf, size_t len)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f ms", nt_ns_to_ms(ns));
	return buf;
}

const char *nt_fmt_ms_digits(int64_t ns, int digits, char *buf, size_t len)
{
	snprintf(buf, len, "%.*f", digits, nt_ns_to_ms(ns));
	return buf;
}

const char *nt_fmt_ms_signed(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%+.3f", nt_ns_to_ms(ns));
	return buf;
}

const char *nt_fmt_s_digits(int64_t ns, int digits, char *buf, size_t len)
{
	snprintf(buf, len, "%.*f", digits, (double)ns / (double)NT_NS_PER_SEC);
	return buf;
}

/*
 * Without snprintf(): a large analyze report prints some twenty of these a
 * flow, and snprintf() was a fifth of its text (docs/performance.md).
 */
const char *nt_fmt_ms_trunc(int64_t ns, char *buf, size_t len)
{
	/* Negated as unsigned: INT64_MIN has no positive int64_t counterpart. */
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	uint64_t us = mag / (uint64_t)NT_NS_PER_US % 1000;
	char text[NT_FMT_U64_CHARS + 6], *end = text + sizeof(text);
	char *p = digits_back((unsigned)us, 3, end);

	*--p = '.';
	p = nt_fmt_u64_back(mag / (uint64_t)NT_NS_PER_MS, p);
	if (ns < 0)
		*--p = '-';
	return nt_fmt_cut(buf, len, p, (size_t)(end - p));
}

/*
 * strftime()'s "%Y-%m-%dT%H:%M:%S" of @tm into @buf (20 bytes), its fields
 * written out by hand: strftime() cost four times gmtime_r() (some 85 ns a
 * call here), twice a flow in analyze's text. The years of an int64_t of
 * nanoseconds, 1677 to 2262, all have four digits. Returns the length.
 */
static size_t date_time(const struct tm *tm, char *buf)
{
	digits_back((unsigned)tm->tm_year + 1900, 4, buf + 4);
	buf[4] = '-';
	digits_back((unsigned)tm->tm_mon + 1, 2, buf + 7);
	buf[7] = '-';
	digits_back((unsigned)tm->tm_mday, 2, buf + 10);
	buf[10] = 'T';
	digits_back((unsigned)tm->tm_hour, 2, buf + 13);
	buf[13] = ':';
	digits_back((unsigned)tm->tm_min, 2, buf + 16);
	buf[16] = ':';
	digits_back((unsigned)tm->tm_sec, 2, buf + 19);
	return 19;
}

const char *nt_fmt_utc_digits(int64_t t_ns, unsigned digits, char *buf, size_t len)
{
	/* Floored, without s * NT_NS_PER_SEC, which overflows near INT64_MIN. */
	int64_t s = t_ns / NT_NS_PER_SEC - (t_ns % NT_NS_PER_SEC < 0);
	int64_t frac = t_ns % NT_NS_PER_SEC + (t_ns % NT_NS_PER_SEC < 0 ? NT_NS_PER_SEC : 0);
	time_t secs = (time_t)s;
	char text[2 * NT_FMT_UTC_LEN], *frac_end = text + sizeof(text), *p;
	/*
	 * The last second this thread wrote, and its date: the times of a
	 * report are near one another (a flow's two stalls, the next flow's),
	 * and gmtime_r() takes glibc's time zone lock on every call, 100,000
	 * flows' rows twice each (docs/performance.md).
	 */
	static _Thread_local struct {
		int64_t s; /* INT64_MIN, no second of an int64_t of ns: none yet */
		size_t n;
		char date[20];
	} last = { .s = INT64_MIN };
	size_t n;

	if (last.s != s) {
		struct tm tm;

		if (!gmtime_r(&secs, &tm)) {
			snprintf(buf, len, "%" PRId64 " ns", t_ns);
			return buf;
		}
		last.n = date_time(&tm, last.date);
		last.s = s;
	}
	n = last.n;
	/* The fraction, zero-padded, without snprintf(): analyze's text prints two a flow. */
	p = frac_end - 1;
	*p = 'Z';
	p = digits_back((unsigned)(digits == 6 ? frac / 1000 : frac), digits == 6 ? 6 : 9, p);
	*--p = '.';
	p -= n;
	memcpy(p, last.date, n);
	return nt_fmt_cut(buf, len, p, (size_t)(frac_end - p));
}

const char *nt_fmt_addr(int family, const uint8_t *addr, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?", *end = a + sizeof(a), *p = end;

	/*
	 * IPv4's dotted quad by hand: inet_ntop() cost some 140 ns a call
	 * here, four a flow in analyze's text and its JSON. IPv6's shortening
	 * (RFC 5952) is inet_ntop()'s.
	 */
	if (family == AF_INET) {
		for (int i = 3; i >= 0; i--) {
			p = nt_fmt_u64_back(addr[i], p);
			if (i)
				*--p = '.';
		}
		return nt_fmt_cut(buf, len, p, (size_t)(end - p));
	}
	inet_ntop(family, addr, a, sizeof(a));
	return nt_fmt_cut(buf, len, a, strlen(a));
}

const char *nt_fmt_endpoint(int family, const uint8_t *addr, uint16_t port, char *buf, size_t len)
{
	/* "[", the address, "]:", the port; built without snprintf() (six a flow in analyze's text) */
	char a[INET6_ADDRSTRLEN], digits[NT_FMT_U64_CHARS], *digits_end = digits + sizeof(digits);
	char text[1 + INET6_ADDRSTRLEN + 2 + NT_FMT_U64_CHARS], *p = text;
	const char *port_text = nt_fmt_u64_back(port, digits_end);
	size_t n = strlen(nt_fmt_addr(family, addr, a, sizeof(a)));
	bool v6 = family == AF_INET6;

	if (v6)
		*p++ = '[';
	memcpy(p, a, n);
	p += n;
	if (v6)
		*p++ = ']';
	*p++ = ':';
	n = (size_t)(digits_end - port_text);
	memcpy(p, port_text, n);
	p += n;
	return nt_fmt_cut(buf, len, text, (size_t)(p - text));
}
