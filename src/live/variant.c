// SPDX-License-Identifier: MIT
/*
 * variant.c - the table of variants (see nt/live/variant.h).
 *
 * Expectations are what this kernel does (Linux 6.x, measured): Nagle in
 * tcp_nagle_check() holds the body while the header (a sub-MSS segment,
 * Minshall's snd_sml) is unacknowledged; __tcp_ack_snd_check() delays the
 * ACK once the receiver is in ping-pong mode.
 */
#include <string.h>

#include "nt/live/variant.h"

#define TWO_WRITES .ops = { NT_OP_WRITE_HEADER, NT_OP_GAP, NT_OP_WRITE_BODY }, .n_ops = 3

static const struct nt_variant variants[] = {
	{
		.name = "default",
		.summary = "two write() calls, Nagle on",
		TWO_WRITES,
		.autocork = -1,
		.expect = NT_EXPECT_STALLED,
	},
};

const struct nt_variant *nt_variant_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (strcmp(variants[i].name, name) == 0)
			return &variants[i];
	return NULL;
}

const struct nt_variant *nt_variant_all(unsigned *n)
{
	*n = sizeof(variants) / sizeof(variants[0]);
	return variants;
}
