/* SPDX-License-Identifier: MIT */
/*
 * fix.h - the fixes `nagle-trace run --fix` tries without changing the
 * user's code, as data: what each sets in the lab or in the commands.
 *
 *   none            nothing: the programs as they are
 *   nodelay         the client's TCP sockets get TCP_NODELAY (LD_PRELOAD)
 *   nodelay-target  the same for the target (a server that writes a reply
 *                   in two parts)
 *   quickack        the target's route to the client: `quickack 1`
 *   rto-min=MS      the target's route to the client: a locked rto_min of MS
 *                   ms, which on Linux 6.7 and later also caps the
 *                   delayed-ACK timer (tcp_delack_max())
 */
#ifndef NT_LIVE_FIX_H
#define NT_LIVE_FIX_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/lab/lab.h"

/* Fixes one --fix list may name. */
#define NT_FIX_MAX 8
/* The largest rto-min=MS: the kernel's own default rto_min is 200 ms (TCP_RTO_MIN). */
#define NT_FIX_RTO_MIN_MS_MAX 1000

enum nt_fix_kind {
	NT_FIX_NONE,
	NT_FIX_NODELAY,
	NT_FIX_NODELAY_TARGET,
	NT_FIX_QUICKACK,
	NT_FIX_RTO_MIN,
	NT_FIX_KIND_COUNT,
};

/**
 * struct nt_fix - one fix to run under
 * @kind: which
 * @rto_min_ms: rto-min's milliseconds, 0 for the others
 * @name: as the user names it: "none", "rto-min=5"
 * @slug: the same fit for a file name: "rto-min-5" (-w's per-fix files)
 */
struct nt_fix {
	enum nt_fix_kind kind;
	uint32_t rto_min_ms;
	char name[32];
	char slug[32];
};

/**
 * nt_fix_parse_list() - a --fix list: names separated by commas, each once
 * @text: "none,nodelay,rto-min=5"
 * @fixes: filled, NT_FIX_MAX entries
 * @n: set to how many
 * @err: on refusal, one line quoting the bad name
 *
 * Return: 0 or -EINVAL.
 */
int nt_fix_parse_list(const char *text, struct nt_fix *fixes, unsigned *n, struct nt_err *err);

/**
 * nt_fix_about() - what a fix changes, a few words for reports and --help
 * @f: the fix
 *
 * Return: a static string.
 */
const char *nt_fix_about(const struct nt_fix *f);

/**
 * nt_fix_lab() - what a fix sets in the lab (the target's route metrics)
 * @f: the fix
 * @lc: the lab's configuration, changed only where the fix says
 */
void nt_fix_lab(const struct nt_fix *f, struct nt_lab_config *lc);

/**
 * nt_fix_needs_preload() - whether a fix preloads the TCP_NODELAY library
 * @f: the fix
 * @client: set when the client gets it
 * @target: set when the target gets it
 *
 * Return: @client or @target.
 */
bool nt_fix_needs_preload(const struct nt_fix *f, bool *client, bool *target);

/**
 * nt_fix_kind_name() - a kind's name as --fix spells it ("rto-min" takes
 * "=MS" after it)
 * @kind: the kind
 *
 * Return: a static string.
 */
const char *nt_fix_kind_name(enum nt_fix_kind kind);

/**
 * nt_fix_names() - the names --fix accepts, for --help and messages
 *
 * Return: a static string.
 */
const char *nt_fix_names(void);

#endif
