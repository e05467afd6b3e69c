// SPDX-License-Identifier: MIT
/*
 * tcp.c - TCP helpers shared by the model (see nt/model/tcp.h).
 */
#include "nt/model/tcp.h"

char *nt_tcp_flags_str(uint8_t flags, char *buf)
{
	/* tcpdump's order and letters: S F P R U E W, then "." for ACK */
	static const struct {
		uint8_t bit;
		char c;
	} letters[] = {
		{ NT_TCP_SYN, 'S' }, { NT_TCP_FIN, 'F' }, { NT_TCP_PSH, 'P' }, { NT_TCP_RST, 'R' },
		{ NT_TCP_URG, 'U' }, { NT_TCP_ECE, 'E' }, { NT_TCP_CWR, 'W' },
	};
	char *p = buf;

	for (unsigned i = 0; i < sizeof(letters) / sizeof(letters[0]); i++)
		if (flags & letters[i].bit)
			*p++ = letters[i].c;
	if (flags & NT_TCP_ACK)
		*p++ = '.';
	if (p == buf)
		*p++ = '-';
	*p = '\0';
	return buf;
}
