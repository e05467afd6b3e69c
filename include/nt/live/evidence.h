/* SPDX-License-Identifier: MIT */
/*
 * evidence.h - the kernel's own evidence for every round of a live run.
 *
 * What the capture shows (header, pure ACK, body) is the effect; this module
 * records the cause as the kernel states it, on the sockets and in /proc of
 * each namespace, into struct nt_record_evidence:
 *  - client, right after write(body): SIOCOUTQNSD (bytes still unsent) and
 *    TCP_INFO (unacked segments, send MSS);
 *  - client, asynchronously: SO_TIMESTAMPING TX timestamps keyed by byte
 *    offset (OPT_ID), read from the error queue, for when the body was
 *    actually handed to the device;
 *  - target, when the header has arrived and before it is read: TCP_INFO
 *    (ato, rcv_mss), getsockopt(TCP_QUICKACK), and the quick/ping-pong column
 *    of its namespace's /proc/net/tcp;
 *  - both namespaces, before and after the run: /proc/net/netstat counters.
 *
 * /proc/net is the main thread's namespace, and the thread moves between
 * namespaces: each /proc file is opened once through /proc/thread-self/net
 * while the thread is in the right namespace. A seq_file keeps the network
 * namespace it was opened in (seq_open_net()), so re-reading it later with
 * pread() from offset 0 reads that namespace wherever the thread is.
 *
 * Everything here is best effort: a probe that fails leaves its field
 * unknown (-1) and never fails the run.
 */
#ifndef NT_LIVE_EVIDENCE_H
#define NT_LIVE_EVIDENCE_H

#include <stdint.h>

#include "nt/err.h"
#include "nt/live/exchange.h"
#include "nt/model/rounds.h"
#include "nt/model/record.h"

/*
 * Rounds of evidence kept at once. A live run hands round k over once round
 * k + 1 has completed, so a few suffice; the ring keeps memory flat.
 */
#define NT_EVIDENCE_RING 16

/* Netstat counters read before and after the run. */
enum nt_evidence_counter {
	NT_EVIDENCE_DELAYED_ACKS,
	NT_EVIDENCE_DELAYED_ACK_LOCKED,
	NT_EVIDENCE_DELAYED_ACK_LOST,
	NT_EVIDENCE_AUTOCORKING,
	NT_EVIDENCE_COUNTERS,
};

/**
 * struct nt_evidence - the gatherer (treat as opaque)
 * @out: where evidence goes (the run's): a ring of NT_EVIDENCE_RING rounds
 * @retired: the run's count of rounds handed over (set by the caller, may
 *           be NULL): their entries are reused, so nothing is written there
 * @shape: the exchange's shape
 * @client_port: the client's port
 * @target_port: the target's port
 * @target_tcp_fd: the target namespace's /proc/net/tcp or tcp6
 * @target_netstat_fd: the target namespace's /proc/net/netstat
 * @client_netstat_fd: the client namespace's /proc/net/netstat
 * @before: counters at the start
 * @have_before: which of @before were read
 * @sampled_round: the last round whose target state was sampled
 * @tx_on: SO_TIMESTAMPING is enabled on the client socket
 * @hooks: the exchange hooks pointing here
 * @buf: scratch for /proc reads
 * @buf_bytes: its size
 */
struct nt_evidence {
	struct nt_record_evidence *out;
	const unsigned *retired;
	struct nt_shape shape;
	uint16_t client_port;
	uint16_t target_port;
	int target_tcp_fd;
	int target_netstat_fd;
	int client_netstat_fd;
	uint64_t before[NT_EVIDENCE_COUNTERS];
	bool have_before[NT_EVIDENCE_COUNTERS];
	unsigned sampled_round;
	bool tx_on;
	struct nt_exchange_hooks hooks;
	char *buf;
	size_t buf_bytes;
};

/**
 * nt_evidence_open_target() - start gathering; call in the target namespace
 * @ev: initialised here
 * @out: the run's evidence, its rounds allocated here
 * @shape: the exchange's shape
 * @family: AF_INET or AF_INET6 (which of /proc/net/tcp, tcp6)
 * @client_port: the client's port
 * @target_port: the target's port
 * @err: filled on failure
 *
 * Opens the target's /proc files and reads its counters' starting values.
 *
 * Return: 0, or -ENOMEM (the only failure: /proc problems leave fields unknown).
 */
int nt_evidence_open_target(struct nt_evidence *ev, struct nt_record_evidence *out,
			    const struct nt_shape *shape, int family, uint16_t client_port,
			    uint16_t target_port, struct nt_err *err);

/**
 * nt_evidence_open_client() - the client side; call in the client namespace
 * @ev: opened by nt_evidence_open_target()
 */
void nt_evidence_open_client(struct nt_evidence *ev);

/**
 * nt_evidence_hooks() - the exchange hooks that feed @ev
 * @ev: the gatherer
 *
 * Return: hooks valid as long as @ev.
 */
const struct nt_exchange_hooks *nt_evidence_hooks(struct nt_evidence *ev);

/**
 * nt_evidence_drain_tx() - read the TX timestamps queued on the client socket
 * @ev: the gatherer
 * @client_fd: the client socket, -1 once closed (then nothing to do)
 *
 * Call after every wake-up of the poll loop: a non-empty error queue makes
 * poll() report POLLERR at once, so it must be emptied.
 */
void nt_evidence_drain_tx(struct nt_evidence *ev, int client_fd);

/**
 * nt_evidence_finish() - read the counters' final values and derive the rest
 * @ev: the gatherer
 */
void nt_evidence_finish(struct nt_evidence *ev);

/**
 * nt_evidence_close() - close the /proc files; idempotent, safe on a zeroed @ev
 * @ev: the gatherer
 */
void nt_evidence_close(struct nt_evidence *ev);

#endif
