/* SPDX-License-Identifier: MIT */
/*
 * flow.h - one bidirectional TCP connection: which packets belong to it,
 * which way they go, and sequence numbers relative to each side's ISN.
 */
#ifndef NT_MODEL_FLOW_H
#define NT_MODEL_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/decode.h"
#include "nt/model/event.h"

/**
 * struct nt_flow - a connection between a client and a target endpoint
 * @family: AF_INET or AF_INET6
 * @client_addr: the client's address, network order
 * @target_addr: the target's address, network order
 * @client_port: the client's port, host order
 * @target_port: the target's port, host order
 * @isn: initial sequence number per direction (index enum nt_dir)
 * @isn_known: whether @isn[dir] is set (from a SYN, or the first segment seen)
 * @syn_seen: a SYN was seen in that direction
 * @mss: MSS option announced in that direction's SYN, 0 if not seen
 * @wscale: window scale announced in that direction's SYN, -1 if not seen
 */
struct nt_flow {
	int family;
	uint8_t client_addr[16];
	uint8_t target_addr[16];
	uint16_t client_port;
	uint16_t target_port;
	uint32_t isn[2];
	bool isn_known[2];
	bool syn_seen[2];
	uint16_t mss[2];
	int8_t wscale[2];
};

/**
 * nt_flow_init() - start tracking the connection @client -> @target
 * @flow: the flow
 * @family: AF_INET or AF_INET6
 * @client_addr: 4 or 16 bytes, network order
 * @client_port: host order (0: any, learnt from the first matching segment)
 * @target_addr: 4 or 16 bytes, network order
 * @target_port: host order
 */
void nt_flow_init(struct nt_flow *flow, int family, const void *client_addr, uint16_t client_port,
		  const void *target_addr, uint16_t target_port);

/**
 * nt_flow_direction() - which way @pkt goes on @flow
 * @flow: the flow
 * @pkt: a decoded packet
 * @dir: set on a match
 *
 * Return: true when @pkt belongs to @flow.
 */
bool nt_flow_direction(struct nt_flow *flow, const struct nt_tcp_packet *pkt, enum nt_dir *dir);

/**
 * nt_flow_segment() - turn a packet of @flow into a segment with relative numbers
 * @flow: the flow; learns ISNs, MSS and window scale from SYNs
 * @pkt: a packet for which nt_flow_direction() returned true
 * @dir: its direction
 * @seg: filled (role NT_ROLE_UNKNOWN, frame_index 0)
 *
 * Without a SYN (a capture started mid-stream) the first segment seen in a
 * direction fixes its ISN at seq - 1, so its first byte is relative 1.
 */
void nt_flow_segment(struct nt_flow *flow, const struct nt_tcp_packet *pkt, enum nt_dir dir,
		     struct nt_segment *seg);

#endif
