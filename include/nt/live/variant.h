/* SPDX-License-Identifier: MIT */
/*
 * variant.h - the fixes and non-fixes, as data.
 *
 * A variant is a write pattern plus socket options on each side plus lab
 * settings. What Linux does with it is the model's to say
 * (nt/model/predict.h, nt_variant_knobs()), not the table's. Adding one is
 * adding a row to the table in variant.c, not a code path.
 */
#ifndef NT_LIVE_VARIANT_H
#define NT_LIVE_VARIANT_H

#include <stdbool.h>

#include "nt/live/exchange.h"
#include "nt/model/predict.h"
#include "nt/model/rounds.h"

/**
 * struct nt_variant - one way to run the exchange
 * @name: public name (--variant)
 * @summary: what it changes, a few words (--help lists it beside the name)
 * @ops: the client's write pattern
 * @n_ops: steps in @ops
 * @server_quickack: TCP_QUICKACK on the target
 * @autocork: net.ipv4.tcp_autocorking in the client namespace, -1 to leave
 * @client_nodelay: TCP_NODELAY on the client
 * @server_nodelay: TCP_NODELAY on the target
 * @route_quickack: the target's route to the client carries `quickack 1`
 */
struct nt_variant {
	const char *name;
	const char *summary;
	enum nt_write_op ops[NT_WRITE_OPS_MAX];
	unsigned n_ops;
	enum nt_quickack server_quickack;
	int autocork;
	bool client_nodelay;
	bool server_nodelay;
	bool route_quickack;
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

/**
 * nt_variant_knobs() - the model's knobs that a variant sets: the write
 * pattern, the socket options on each side, the route's quickack and the
 * client's autocorking
 * @v: the variant
 * @k: knobs filled elsewhere (sizes, times, kernel); those fields are set
 */
void nt_variant_knobs(const struct nt_variant *v, struct nt_predict_knobs *k);

#endif
