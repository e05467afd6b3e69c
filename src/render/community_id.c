// SPDX-License-Identifier: MIT
/*
 * community_id.c - the Community ID v1 of a flow (see nt/render/community_id.h).
 *
 * Why nettle: SHA-1 and base64 are both in it, as plain functions over
 * buffers (<nettle/sha1.h>, <nettle/base64.h>), with no context objects,
 * no global initialisation and no provider lookup per call as OpenSSL 3's
 * EVP API has; Debian's libnettle8 is on every system that has GnuTLS. A
 * digest of 40 bytes per flow costs far less than printing the flow.
 */
#include <nettle/base64.h>
#include <nettle/sha1.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/render/community_id.h"

/* The spec's order: the numerically smaller (address, port) first, address bytes first. */
static int endpoint_cmp(const uint8_t *a, uint16_t aport, const uint8_t *b, uint16_t bport,
			size_t alen)
{
	int c = memcmp(a, b, alen);

	if (c)
		return c;
	return aport < bport ? -1 : aport > bport;
}

const char *nt_community_id_v1(int family, const uint8_t *saddr, uint16_t sport,
			       const uint8_t *daddr, uint16_t dport, uint8_t proto, uint16_t seed,
			       char *buf, size_t len)
{
	size_t alen = family == AF_INET6 ? 16 : family == AF_INET ? 4 : 0;
	uint8_t in[2 + 16 + 16 + 2 + 4], digest[SHA1_DIGEST_SIZE];
	struct sha1_ctx ctx;
	size_t n = 0;

	if (!alen || len < NT_COMMUNITY_ID_LEN) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	if (endpoint_cmp(saddr, sport, daddr, dport, alen) > 0) {
		const uint8_t *ta = saddr;
		uint16_t tp = sport;

		saddr = daddr;
		sport = dport;
		daddr = ta;
		dport = tp;
	}
	in[n++] = (uint8_t)(seed >> 8);
	in[n++] = (uint8_t)seed;
	memcpy(in + n, saddr, alen);
	n += alen;
	memcpy(in + n, daddr, alen);
	n += alen;
	in[n++] = proto;
	in[n++] = 0; /* the spec's padding byte */
	in[n++] = (uint8_t)(sport >> 8);
	in[n++] = (uint8_t)sport;
	in[n++] = (uint8_t)(dport >> 8);
	in[n++] = (uint8_t)dport;

	sha1_init(&ctx);
	sha1_update(&ctx, n, in);
	sha1_digest(&ctx, sizeof(digest), digest);
	buf[0] = '1';
	buf[1] = ':';
	base64_encode_raw(buf + 2, sizeof(digest), digest);
	buf[2 + BASE64_ENCODE_RAW_LENGTH(SHA1_DIGEST_SIZE)] = '\0';
	return buf;
}
