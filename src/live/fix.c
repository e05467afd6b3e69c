// SPDX-License-Identifier: MIT
/*
 * fix.c - the fixes of `nagle-trace run`, as data (see nt/live/fix.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nt/cli.h"
#include "nt/live/fix.h"

static const struct {
	const char *name;
	const char *about;
} table[NT_FIX_KIND_COUNT] = {
	[NT_FIX_NONE] = { "none", "the programs as they are" },
	[NT_FIX_NODELAY] = { "nodelay", "TCP_NODELAY on the client's sockets (LD_PRELOAD)" },
	[NT_FIX_NODELAY_TARGET] = { "nodelay-target",
				    "TCP_NODELAY on the target's sockets (LD_PRELOAD)" },
	[NT_FIX_QUICKACK] = { "quickack", "the target's route to the client: quickack 1" },
	[NT_FIX_RTO_MIN] = { "rto-min", "the target's route to the client: rto_min lock" },
};

const char *nt_fix_kind_name(enum nt_fix_kind kind)
{
	return (unsigned)kind < NT_FIX_KIND_COUNT ? table[kind].name : "?";
}

const char *nt_fix_names(void)
{
	return "none, nodelay, nodelay-target, quickack, rto-min=MS";
}

static int parse_one(const char *word, size_t len, struct nt_fix *f, struct nt_err *err)
{
	char w[32];
	uint64_t ms;

	if (len >= sizeof(w) || len == 0)
		return nt_err_set(err, 0, "--fix: \"%.*s\" is not one of %s", (int)len, word,
				  nt_fix_names());
	memcpy(w, word, len);
	w[len] = '\0';
	memset(f, 0, sizeof(*f));
	if (strncmp(w, "rto-min=", 8) == 0) {
		if (nt_cli_parse_uint("--fix rto-min", w + 8, 1, NT_FIX_RTO_MIN_MS_MAX, &ms, err))
			return -EINVAL;
		f->kind = NT_FIX_RTO_MIN;
		f->rto_min_ms = (uint32_t)ms;
		snprintf(f->name, sizeof(f->name), "rto-min=%u", f->rto_min_ms);
		snprintf(f->slug, sizeof(f->slug), "rto-min-%u", f->rto_min_ms);
		return 0;
	}
	for (int k = 0; k < NT_FIX_KIND_COUNT; k++) {
		if (k == NT_FIX_RTO_MIN || strcmp(w, table[k].name) != 0)
			continue;
		f->kind = (enum nt_fix_kind)k;
		snprintf(f->name, sizeof(f->name), "%s", w);
		snprintf(f->slug, sizeof(f->slug), "%s", w);
		return 0;
	}
	if (strcmp(w, "rto-min") == 0)
		return nt_err_set(err, 0, "--fix: rto-min needs its milliseconds: rto-min=MS");
	return nt_err_set(err, 0, "--fix: \"%s\" is not one of %s", w, nt_fix_names());
}

int nt_fix_parse_list(const char *text, struct nt_fix *fixes, unsigned *n, struct nt_err *err)
{
	const char *p = text;

	*n = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (*n == NT_FIX_MAX)
			return nt_err_set(err, 0, "--fix: at most %d fixes", NT_FIX_MAX);
		if (parse_one(p, len, &fixes[*n], err))
			return -EINVAL;
		for (unsigned i = 0; i < *n; i++)
			if (strcmp(fixes[i].name, fixes[*n].name) == 0)
				return nt_err_set(err, 0, "--fix: \"%s\" given twice",
						  fixes[i].name);
		(*n)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

const char *nt_fix_about(const struct nt_fix *f)
{
	return (unsigned)f->kind < NT_FIX_KIND_COUNT ? table[f->kind].about : "";
}

void nt_fix_lab(const struct nt_fix *f, struct nt_lab_config *lc)
{
	if (f->kind == NT_FIX_QUICKACK)
		lc->route_quickack = true;
	if (f->kind == NT_FIX_RTO_MIN)
		lc->route_rto_min_ms = f->rto_min_ms;
}

bool nt_fix_needs_preload(const struct nt_fix *f, bool *client, bool *target)
{
	*client = f->kind == NT_FIX_NODELAY;
	*target = f->kind == NT_FIX_NODELAY_TARGET;
	return *client || *target;
}
