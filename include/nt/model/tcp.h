/* SPDX-License-Identifier: MIT */
/*
 * tcp.h - TCP header constants and sequence-space arithmetic (RFC 9293 §3.4),
 * shared by the decoder, the flow tracker and the verdict rules.
 */
#ifndef NT_MODEL_TCP_H
#define NT_MODEL_TCP_H

#include <stdbool.h>
#include <stdint.h>

#define NT_TCP_FIN 0x01
#define NT_TCP_SYN 0x02
#define NT_TCP_RST 0x04
#define NT_TCP_PSH 0x08
#define NT_TCP_ACK 0x10
#define NT_TCP_URG 0x20
#define NT_TCP_ECE 0x40
#define NT_TCP_CWR 0x80

/* Sequence numbers compare modulo 2^32, like the kernel's before()/after(). */
static inline bool nt_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool nt_seq_after(uint32_t a, uint32_t b)
{
	return nt_seq_before(b, a);
}

/**
 * nt_tcp_flags_str() - tcpdump-style flag string ("S", "S.", "P.", "F.", "R", ".")
 * @flags: the TCP flags byte
 * @buf: at least 10 bytes
 *
 * Return: @buf.
 */
char *nt_tcp_flags_str(uint8_t flags, char *buf);

#endif
