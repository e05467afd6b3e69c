// SPDX-License-Identifier: MIT
/*
 * flow.c - direction and relative sequence numbers for one connection.
 */
#include <string.h>
#include <sys/socket.h>

#include "nt/model/flow.h"
#include "nt/model/tcp.h"

static size_t addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

void nt_flow_init(struct nt_flow *flow, int family, const void *client_addr, uint16_t client_port,
		  const void *target_addr, uint16_t target_port)
{
	memset(flow, 0, sizeof(*flow));
	flow->family = family;
	memcpy(flow->client_addr, client_addr, addr_len(family));
	memcpy(flow->target_addr, target_addr, addr_len(family));
	flow->client_port = client_port;
	flow->target_port = target_port;
	flow->wscale[0] = flow->wscale[1] = -1;
}

static bool endpoint_is(const struct nt_tcp_packet *pkt, bool src, const uint8_t *addr,
			uint16_t port, size_t len)
{
	const uint8_t *a = src ? pkt->src_addr : pkt->dst_addr;
	uint16_t p = src ? pkt->src_port : pkt->dst_port;

	return memcmp(a, addr, len) == 0 && (port == 0 || p == port);
}

bool nt_flow_direction(struct nt_flow *flow, const struct nt_tcp_packet *pkt, enum nt_dir *dir)
{
	size_t len = addr_len(flow->family);

	if (pkt->family != flow->family)
		return false;
	if (endpoint_is(pkt, true, flow->client_addr, flow->client_port, len) &&
	    endpoint_is(pkt, false, flow->target_addr, flow->target_port, len))
		*dir = NT_DIR_C2T;
	else if (endpoint_is(pkt, true, flow->target_addr, flow->target_port, len) &&
		 endpoint_is(pkt, false, flow->client_addr, flow->client_port, len))
		*dir = NT_DIR_T2C;
	else
		return false;

	if (flow->client_port == 0)
		flow->client_port = *dir == NT_DIR_C2T ? pkt->src_port : pkt->dst_port;
	return true;
}

void nt_flow_segment(struct nt_flow *flow, const struct nt_tcp_packet *pkt, enum nt_dir dir,
		     struct nt_segment *seg)
{
	enum nt_dir peer = dir == NT_DIR_C2T ? NT_DIR_T2C : NT_DIR_C2T;

	if (pkt->flags & NT_TCP_SYN) {
		flow->isn[dir] = pkt->seq;
		flow->isn_known[dir] = true;
		flow->syn_seen[dir] = true;
		if (pkt->mss)
			flow->mss[dir] = pkt->mss;
		flow->wscale[dir] = pkt->wscale;
	} else if (!flow->isn_known[dir]) {
		flow->isn[dir] = pkt->seq - 1;
		flow->isn_known[dir] = true;
	}
	/* An ACK for a direction not seen yet (mid-stream capture): anchor the peer there. */
	if ((pkt->flags & NT_TCP_ACK) && !flow->isn_known[peer]) {
		flow->isn[peer] = pkt->ack - 1;
		flow->isn_known[peer] = true;
	}

	memset(seg, 0, sizeof(*seg));
	seg->dir = dir;
	seg->flags = pkt->flags;
	seg->seq = pkt->seq;
	seg->ack = pkt->ack;
	seg->seq_rel = pkt->seq - flow->isn[dir];
	seg->ack_rel = (pkt->flags & NT_TCP_ACK) ? pkt->ack - flow->isn[peer] : 0;
	seg->payload_bytes = pkt->payload_bytes;
	seg->window = pkt->window;
	seg->role = NT_ROLE_UNKNOWN;
}
