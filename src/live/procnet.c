// SPDX-License-Identifier: MIT
/*
 * procnet.c - parsers for /proc/net/tcp{,6} and /proc/net/netstat text (see
 * nt/live/procnet.h). Every field is read with an explicit length; a line
 * that does not have every field is rejected, not half-filled.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/live/procnet.h"

/* Fields of a socket line up to ssthresh (get_tcp4_sock()'s format); later kernels may add more. */
#define TCP_FIELDS 17
#define TOKEN_MAX  64

/* The next whitespace-separated token of [*p, end) into @tok; false at the end of the line. */
static bool next_token(const char **p, const char *end, char *tok, size_t len)
{
	const char *s = *p;
	size_t n = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end)
		return false;
	while (s < end && *s != ' ' && *s != '\t') {
		if (n + 1 < len)
			tok[n++] = *s;
		s++;
	}
	tok[n] = '\0';
	*p = s;
	return true;
}

static bool parse_ul(const char *tok, int base, unsigned long *out)
{
	char *end;

	if (!*tok || *tok == '-')
		return false;
	errno = 0;
	*out = strtoul(tok, &end, base);
	return errno == 0 && *end == '\0';
}

static bool parse_l(const char *tok, long *out)
{
	char *end;

	if (!*tok)
		return false;
	errno = 0;
	*out = strtol(tok, &end, 10);
	return errno == 0 && *end == '\0';
}

static bool parse_hex_words(const char *hex, size_t n_chars, uint32_t *words)
{
	for (size_t i = 0; i < n_chars / 8; i++) {
		char w[9];
		unsigned long v;

		memcpy(w, hex + i * 8, 8);
		w[8] = '\0';
		if (!parse_ul(w, 16, &v))
			return false;
		words[i] = (uint32_t)v;
	}
	return true;
}

/* "0202000C:1389" (IPv4) or 32 hex digits ":" port (IPv6). */
static bool parse_endpoint(const char *tok, bool *v6, uint32_t *words, uint16_t *port)
{
	const char *colon = strchr(tok, ':');
	unsigned long p;
	size_t n;

	if (!colon)
		return false;
	n = (size_t)(colon - tok);
	if (n != 8 && n != 32)
		return false;
	*v6 = n == 32;
	if (!parse_hex_words(tok, n, words) || strlen(colon + 1) != 4 ||
	    !parse_ul(colon + 1, 16, &p))
		return false;
	*port = (uint16_t)p;
	return true;
}

/* "hex:hex" into two numbers. */
static bool parse_pair(const char *tok, unsigned long *a, unsigned long *b)
{
	char first[TOKEN_MAX];
	const char *colon = strchr(tok, ':');
	size_t n;

	if (!colon)
		return false;
	n = (size_t)(colon - tok);
	if (n >= sizeof(first))
		return false;
	memcpy(first, tok, n);
	first[n] = '\0';
	return parse_ul(first, 16, a) && parse_ul(colon + 1, 16, b);
}

int nt_procnet_parse_tcp_line(const char *line, struct nt_procnet_tcp *out)
{
	const char *end = strchr(line, '\n');
	char tok[TCP_FIELDS][TOKEN_MAX];
	unsigned long a, b, v;
	bool v6_remote;
	const char *p = line;
	unsigned n = 0;
	long l;

	if (!end)
		end = line + strlen(line);
	while (n < TCP_FIELDS && next_token(&p, end, tok[n], sizeof(tok[n])))
		n++;
	if (n > 0 && strcmp(tok[0], "sl") == 0)
		return -ENOENT;
	if (n < TCP_FIELDS)
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	/* tok[0] is the slot number with its colon: "0:". */
	if (strlen(tok[0]) < 2 || tok[0][strlen(tok[0]) - 1] != ':')
		return -EINVAL;
	if (!parse_endpoint(tok[1], &out->v6, out->local_words, &out->local_port) ||
	    !parse_endpoint(tok[2], &v6_remote, out->remote_words, &out->remote_port) ||
	    v6_remote != out->v6)
		return -EINVAL;
	if (!parse_ul(tok[3], 16, &v))
		return -EINVAL;
	out->state = (unsigned)v;
	if (!parse_pair(tok[4], &a, &b))
		return -EINVAL;
	out->tx_queue_bytes = (uint32_t)a;
	out->rx_queue_bytes = (uint32_t)b;
	/* tok[5] timer:expiry, tok[6] retransmits, tok[7] uid, tok[8] probes: not needed. */
	if (!parse_ul(tok[9], 10, &out->inode))
		return -EINVAL;
	/* tok[10] refcount, tok[11] the %pK pointer (zeros without CAP_SYSLOG). */
	if (!parse_ul(tok[12], 10, &out->rto_ticks) || !parse_ul(tok[13], 10, &out->ato_ticks))
		return -EINVAL;
	/* (icsk->icsk_ack.quick << 1) | inet_csk_in_pingpong_mode(sk) */
	if (!parse_ul(tok[14], 10, &v))
		return -EINVAL;
	out->quick = (unsigned)(v >> 1);
	out->pingpong = v & 1;
	if (!parse_ul(tok[15], 10, &v) || !parse_l(tok[16], &l))
		return -EINVAL;
	out->cwnd = (unsigned)v;
	out->ssthresh = l;
	return 0;
}

int nt_procnet_find_tcp(const char *text, uint16_t local_port, uint16_t remote_port, unsigned state,
			struct nt_procnet_tcp *out)
{
	const char *line = text;

	while (line && *line) {
		struct nt_procnet_tcp t;

		if (nt_procnet_parse_tcp_line(line, &t) == 0 && t.local_port == local_port &&
		    t.remote_port == remote_port && (!state || t.state == state)) {
			*out = t;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

bool nt_procnet_is_pid(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

int nt_procnet_find_inode(const char *text, unsigned long inode, struct nt_procnet_tcp *out)
{
	for (const char *line = text; line && *line;) {
		struct nt_procnet_tcp t;

		if (nt_procnet_parse_tcp_line(line, &t) == 0 && t.inode == inode) {
			*out = t;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

/* The line after @line, or NULL. */
static const char *next_line(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl ? nl + 1 : NULL;
}

/* Whether @line starts with "@prefix:". */
static bool has_prefix(const char *line, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(line, prefix, n) == 0 && line[n] == ':';
}

int nt_procnet_netstat_value(const char *text, const char *prefix, const char *name, uint64_t *out)
{
	for (const char *names = text; names && *names; names = next_line(names)) {
		const char *values, *np, *vp, *nend, *vend;
		char ntok[TOKEN_MAX], vtok[TOKEN_MAX];
		unsigned long v;

		if (!has_prefix(names, prefix))
			continue;
		values = next_line(names);
		if (!values || !has_prefix(values, prefix))
			return -EINVAL;
		nend = strchr(names, '\n');
		vend = strchr(values, '\n');
		if (!vend)
			vend = values + strlen(values);
		np = names + strlen(prefix) + 1;
		vp = values + strlen(prefix) + 1;
		while (next_token(&np, nend, ntok, sizeof(ntok))) {
			if (!next_token(&vp, vend, vtok, sizeof(vtok)))
				return -EINVAL;
			if (strcmp(ntok, name) != 0)
				continue;
			if (!parse_ul(vtok, 10, &v))
				return -EINVAL;
			*out = v;
			return 0;
		}
		return -ENOENT;
	}
	return -ENOENT;
}

/*
 * Less than half a page from seq_read_iter() asked for a page or more: the
 * end (see nt_procnet_read()). Asked for less, seq_read_iter() answers at
 * most what was asked, which says nothing about the end.
 */
#define SHORT_READ_BYTES   2048
#define READ_ASK_BYTES	   ((size_t)4096)
#define FIRST_BUFFER_BYTES ((size_t)16 * 1024)

int nt_procnet_open(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/thread-self/net/%s", name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * Room for a page more and the NUL after @got, within @max_bytes; at the
 * limit, room for at least one more byte; false when none.
 */
static bool make_room(char **buf, size_t *bytes, size_t got, size_t max_bytes)
{
	size_t want = got + READ_ASK_BYTES + 1, grown = *bytes ? *bytes * 2 : FIRST_BUFFER_BYTES;
	char *p;

	if (want <= *bytes)
		return true;
	if (*bytes >= max_bytes)
		return got + 1 < *bytes;
	while (grown < want)
		grown *= 2;
	if (grown > max_bytes)
		grown = max_bytes;
	p = realloc(*buf, grown);
	if (!p)
		return false;
	*buf = p;
	*bytes = grown;
	return got + 1 < *bytes;
}

bool nt_procnet_read(int fd, char **buf, size_t *bytes, size_t max_bytes)
{
	size_t got = 0;

	if (fd < 0 || !make_room(buf, bytes, 0, max_bytes))
		return false;
	while (make_room(buf, bytes, got, max_bytes)) {
		size_t asked = *bytes - 1 - got;
		ssize_t n = pread(fd, *buf + got, asked, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			break;
		got += (size_t)n;
		if (n < SHORT_READ_BYTES && asked >= READ_ASK_BYTES)
			break;
	}
	(*buf)[got] = '\0';
	return true;
}
