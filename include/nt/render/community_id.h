/* SPDX-License-Identifier: MIT */
/*
 * community_id.h - a flow's Community ID, version 1: the string Zeek,
 * Suricata, Arkime and Wireshark give the same connection, so records of
 * nagle-trace join theirs on one key.
 *
 * The spec (corelight's community-id-spec): the SHA-1 of
 *   seed (2 bytes) . addr_a . addr_b . proto (1) . 0 (1) . port_a (2) . port_b (2)
 * all in network order, the endpoints ordered so that the smaller
 * (address, port) comes first, printed as "1:" and the digest's base64.
 * Pure: a function of its arguments (nettle computes the digest and the
 * base64; the only file that includes nettle).
 */
#ifndef NT_RENDER_COMMUNITY_ID_H
#define NT_RENDER_COMMUNITY_ID_H

#include <stddef.h>
#include <stdint.h>

/* "1:" + base64 of 20 bytes (28 characters) + the terminating NUL. */
#define NT_COMMUNITY_ID_LEN 31
/* IP protocol numbers the ID hashes (IANA): the flows nagle-trace tracks are TCP. */
#define NT_COMMUNITY_ID_TCP 6

/**
 * nt_community_id_v1() - a flow's Community ID, version 1
 * @family: AF_INET or AF_INET6
 * @saddr: one endpoint's address, network order (4 or 16 bytes)
 * @sport: its port, host order
 * @daddr: the other endpoint's address
 * @dport: its port
 * @proto: the IP protocol number (NT_COMMUNITY_ID_TCP)
 * @seed: the spec's seed, 0 unless every tool of a site agrees on another
 * @buf: filled with the NUL-terminated ID
 * @len: size of @buf, at least NT_COMMUNITY_ID_LEN
 *
 * Either endpoint may come first: the ID is the same both ways.
 *
 * Return: @buf, or "" when @family is neither or @len is too small.
 */
const char *nt_community_id_v1(int family, const uint8_t *saddr, uint16_t sport,
			       const uint8_t *daddr, uint16_t dport, uint8_t proto, uint16_t seed,
			       char *buf, size_t len);

#endif
