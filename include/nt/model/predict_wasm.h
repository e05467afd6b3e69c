/* SPDX-License-Identifier: MIT */
/*
 * predict_wasm.h - the model's one entry point for the lesson page: knobs in
 * as a flat vector of numbers, the whole prediction out as JSON text.
 *
 * The same C runs natively (the renderers write each variant's knob vector
 * into the page; the unit tests) and compiled to WebAssembly
 * (cmake/NtWasm.cmake, clang --target=wasm32-wasi), where the page's script
 * writes the knobs into linear memory, calls nt_wasm_predict() and draws
 * what comes back. One model, two targets: the script never decides
 * anything the model decides.
 *
 * Pure: no I/O, no allocation.
 */
#ifndef NT_MODEL_PREDICT_WASM_H
#define NT_MODEL_PREDICT_WASM_H

#include <stddef.h>

#include "nt/model/predict.h"

/* Every field of struct nt_predict_knobs, in the vector's order. */
enum nt_predict_knob {
	NT_KNOB_HEADER_BYTES = 0,
	NT_KNOB_BODY_BYTES,
	NT_KNOB_REPLY_BYTES,
	NT_KNOB_ROUNDS,
	NT_KNOB_PATTERN,
	NT_KNOB_PAUSE_NS,
	NT_KNOB_WRITE_GAP_NS,
	NT_KNOB_HANDLER_NS,
	NT_KNOB_CLIENT_NODELAY,
	NT_KNOB_SERVER_NODELAY,
	NT_KNOB_SERVER_QUICKACK,
	NT_KNOB_ROUTE_QUICKACK,
	NT_KNOB_CLIENT_AUTOCORK,
	NT_KNOB_PINGPONG_THRESH,
	NT_KNOB_IPV6,
	NT_KNOB_MTU,
	NT_KNOB_RTT_NS,
	NT_KNOB_THRESHOLD_NS,
	NT_KNOB_KERNEL_MAJOR,
	NT_KNOB_KERNEL_MINOR,
	NT_KNOB_KERNEL_PATCH,
	NT_KNOB_HZ,
	NT_KNOB_ROUTE_RTO_MIN_MS,
	NT_KNOB_RTO_MIN_US,
	NT_KNOB_RCVBUF_BYTES,
	NT_KNOB_RMEM_MAX_BYTES,
	NT_KNOB_WAKE_SLACK_NS,
	NT_KNOB_WAKE_LATENCY_NS,
	NT_KNOB_COUNT,
};

/* The most rounds the page's model predicts at once. */
#define NT_PREDICT_PAGE_ROUNDS_MAX 64

/** nt_predict_knob_name() - a knob's name in the vector ("body_bytes"), NULL past the end */
const char *nt_predict_knob_name(unsigned i);

/**
 * nt_predict_knobs_get() - @k as a vector
 * @k: the knobs
 * @v: NT_KNOB_COUNT numbers, filled
 */
void nt_predict_knobs_get(const struct nt_predict_knobs *k, double *v);

/**
 * nt_predict_knobs_set() - a vector as knobs
 * @v: NT_KNOB_COUNT numbers
 * @k: filled on success
 * @err: on failure, which knob
 *
 * Return: 0, or -EINVAL for a number that is not a whole number in the
 * knob's range (NaN, negative, too large). nt_predict_init() checks the rest.
 */
int nt_predict_knobs_set(const double *v, struct nt_predict_knobs *k, struct nt_err *err);

/**
 * nt_predict_page_json() - predict every round of @k and write it as JSON
 * @k: the knobs (at most NT_PREDICT_PAGE_ROUNDS_MAX rounds)
 * @buf: where the text goes, NUL-terminated
 * @len: size of @buf
 *
 * Each round carries the members `nagle-trace predict --format json` gives
 * it (the same names, the same values), the `ladder` among them: the
 * round's segments as the simulation sent them, at the nominal times of
 * both ends, each with the decision that sent it, and `client_wait_ns`,
 * when the whole reply reached the client. The summary adds the verdict
 * counts, the median of those waits and the client's data segments per
 * request. On -EINVAL @buf holds {"error": "..."}.
 *
 * Return: the text's length, -EINVAL for knobs the model does not take,
 * -ENOSPC when @buf is too small.
 */
long nt_predict_page_json(const struct nt_predict_knobs *k, char *buf, size_t len);

#endif
