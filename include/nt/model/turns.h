/* SPDX-License-Identifier: MIT */
/*
 * turns.h - the client's exchanges as the capture shows them: for every
 * request, the time from its first data segment to the first data segment
 * of the answer. A run of the user's programs (`nagle-trace run`) reports
 * their median and 99th percentile per fix, so a comparison shows what a fix
 * did to the client's round trips, not only to the stall count.
 *
 * A turn on one connection: client data after the target's data (or the
 * first client data) starts a request; the target's next data ends it. A
 * pipelined client (several requests before the first answer) counts one
 * turn per burst; a connection that only streams one way has none.
 *
 * Pure: the caller decodes frames and says which end is the client (the
 * lab's addresses). Connections are told apart by the client's port (one
 * lab, one client address): a new target port on the same client port
 * starts over. Memory: a table of 65,536 small entries, allocated at the
 * first packet, and one int64 per turn up to NT_TURNS_KEPT.
 */
#ifndef NT_MODEL_TURNS_H
#define NT_MODEL_TURNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/model/decode.h"

/* Turns whose durations are kept for the percentiles (8 MiB); later ones are only counted. */
#define NT_TURNS_KEPT (1u << 20)
/* Requests kept by number, with their times and connection (6 MiB); later ones are counted only. */
#define NT_TURNS_LISTED (1u << 18)
/* Requests of other connections nt_turns_request_of() steps back over. */
#define NT_TURNS_SEARCH_BACK 4096

/**
 * struct nt_turn - one request, by its number
 * @start_t_ns: capture time of its first data segment
 * @answer_t_ns: capture time of the answer's first data segment, -1 while none
 * @client_port: its connection's client port
 * @target_port: and target port
 */
struct nt_turn {
	int64_t start_t_ns;
	int64_t answer_t_ns;
	uint16_t client_port;
	uint16_t target_port;
};

/**
 * struct nt_turns - the turns of every connection of one run
 * @family: AF_INET or AF_INET6
 * @client_addr: the client's address (network order, 4 or 16 bytes)
 * @conn: per client port: the target port, when the open request began (-1:
 *        none open) and its number (0: not listed); NULL until the first packet
 * @gap_ns: the kept durations, in order
 * @n: turns seen
 * @cap: slots of @gap_ns
 * @oom: an allocation failed: some turns were not kept
 * @p50_ns: median of the kept durations after nt_turns_finish(), -1 with none
 * @p90_ns: the 90th percentile, likewise: a stall behind a healthy median shows here
 * @p99_ns: 99th percentile, likewise
 * @max_ns: longest, likewise
 * @started: requests started; a request's number is its place in this count,
 *           from 1, in the order the capture saw their first segments
 * @req: the first NT_TURNS_LISTED requests, by number - 1 (so by start time)
 * @n_req: how many of @req are filled
 * @req_cap: slots of @req
 */
struct nt_turns {
	int family;
	uint8_t client_addr[16];
	struct nt_turn_conn {
		uint16_t target_port;
		uint32_t open_number;
		int64_t open_t_ns;
	} * conn;
	int64_t *gap_ns;
	uint64_t n;
	size_t cap;
	bool oom;
	int64_t p50_ns;
	int64_t p90_ns;
	int64_t p99_ns;
	int64_t max_ns;
	uint64_t started;
	struct nt_turn *req;
	size_t n_req;
	size_t req_cap;
};

/**
 * nt_turns_init() - start counting
 * @t: the turns
 * @family: the lab's family
 * @client_addr: the client's address, 4 or 16 bytes
 */
void nt_turns_init(struct nt_turns *t, int family, const void *client_addr);

/**
 * nt_turns_packet() - one decoded TCP packet of the capture
 * @t: the turns
 * @pkt: the packet
 * @t_ns: its capture time
 */
void nt_turns_packet(struct nt_turns *t, const struct nt_tcp_packet *pkt, int64_t t_ns);

/**
 * nt_turns_request_of() - the request a stall on one connection belongs to
 * @t: the turns, fed at least up to the held segment
 * @client_port: the connection's client port
 * @target_port: and target port
 * @held_t_ns: when the stall's held segment was seen
 *
 * The last request started on that connection at or before @held_t_ns: a
 * client's held write is part of the request it stalls, a target's held
 * reply part of the answer to the last request (its first segment already
 * ended the turn). A binary search by time, then back over the requests of
 * other connections (at most NT_TURNS_SEARCH_BACK).
 *
 * Return: the request's number, or 0 when none is found: none had started
 * on the connection (a greeting), or it is past NT_TURNS_LISTED.
 */
uint64_t nt_turns_request_of(const struct nt_turns *t, uint16_t client_port, uint16_t target_port,
			     int64_t held_t_ns);

/**
 * nt_turns_request() - a request by its number
 * @t: the turns
 * @number: from 1
 *
 * Return: its times, or NULL past NT_TURNS_LISTED (or 0).
 */
const struct nt_turn *nt_turns_request(const struct nt_turns *t, uint64_t number);

/**
 * nt_turns_finish() - compute the percentiles of the kept turns
 * @t: the turns
 */
void nt_turns_finish(struct nt_turns *t);

/**
 * nt_turns_fini() - free; safe on a zeroed @t
 * @t: the turns
 */
void nt_turns_fini(struct nt_turns *t);

#endif
