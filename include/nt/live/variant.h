/* SPDX-License-Identifier: MIT */
/*
 * variant.h - the fixes and non-fixes, as data.
 *
 * A variant is a write pattern plus socket options on each side plus lab
 * settings, and the verdict Linux gives it (its default expectation). Adding
 * one is adding a row to the table in variant.c, not a code path.
 */
#ifndef NT_LIVE_VARIANT_H
#define NT_LIVE_VARIANT_H

#include <stdbool.h>

#include "nt/live/exchange.h"
#include "nt/model/expect.h"
#include "nt/model/rounds.h"

/**
 * struct nt_variant - one way to run the exchange
 * @name: public name (--variant)
 * @summary: what it changes, a few words (--help lists it beside the name)
 * @ops: the client's write pattern
 * @n_ops: steps in @ops
 * @client_nodelay: TCP_NODELAY on the client
 * @server_nodelay: TCP_NODELAY on the target
 * @server_quickack: TCP_QUICKACK on the target
 * @route_quickack: the target's route to the client carries `quickack 1`
 * @autocork: net.ipv4.tcp_autocorking in the client namespace, -1 to leave
 * @expect: the verdict Linux gives it (the default expectation)
 */
struct nt_variant {
	const char *name;
	const char *summary;
	enum nt_write_op ops[NT_WRITE_OPS_MAX];
	unsigned n_ops;
	bool client_nodelay;
	bool server_nodelay;
	enum nt_quickack server_quickack;
	bool route_quickack;
	int autocork;
	enum nt_expect expect;
};

/**
 * nt_variant_find() - a variant by name
 * @name: the name
 *
 * Return: the variant, or NULL.
 */
const struct nt_variant *nt_variant_find(const char *name);

/**
 * nt_variant_all() - every variant, in table order
 * @n: set to how many
 *
 * Return: the table.
 */
const struct nt_variant *nt_variant_all(unsigned *n);

#endif
