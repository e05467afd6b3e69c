/* SPDX-License-Identifier: MIT */
/*
 * stamps.h - receive timestamps switched on early and kept on: a capture's
 * frames are stamped when they pass, never when they are read.
 *
 * SO_TIMESTAMPNS on any socket turns on the kernel's netstamp_needed_key
 * (net_enable_timestamp()), a system-wide switch; when no socket had it on,
 * the switch is deferred to a work item (netstamp_clear()) that patches
 * code on every CPU and takes milliseconds. Until it has run, frames reach
 * the packet socket unstamped and recvmsg() stamps them at read time. So a
 * command that captures opens a keeper first thing (it needs no namespace
 * and no traffic: the key is global), the work runs while the lab is being
 * built, and the capture only checks that stamps are live, in its own
 * namespace (nt_rx_stamps_wait()). Held for the command's life, the keeper
 * also keeps the key from dropping between two captures (between variants).
 */
#ifndef NT_CAPTURE_STAMPS_H
#define NT_CAPTURE_STAMPS_H

#include <stdbool.h>

/**
 * struct nt_rx_stamps - the keeper
 * @fd: a UDP socket with SO_TIMESTAMPNS, -1 when it could not be made
 * @live: a probe has seen a datagram stamped on arrival since the keeper was opened
 */
struct nt_rx_stamps {
	int fd;
	bool live;
};

/**
 * nt_rx_stamps_open() - switch receive timestamps on and keep them on
 * @s: the keeper
 *
 * Best effort, like the wait: without the socket, each capture's own
 * SO_TIMESTAMPNS asks for the switch and nt_rx_stamps_wait() waits longer.
 */
void nt_rx_stamps_open(struct nt_rx_stamps *s);

/**
 * nt_rx_stamps_wait() - wait until frames are stamped on arrival
 * @s: the keeper, or NULL for none (then every call probes)
 *
 * Probes with datagrams to itself on the loopback of the calling thread's
 * namespace (which must be up); once one comes back stamped before it was
 * read, stamps are live and later calls return at once. Gives up after
 * 40 ms: the capture then goes on as it would have without the check.
 */
void nt_rx_stamps_wait(struct nt_rx_stamps *s);

/**
 * nt_rx_stamps_close() - let the key go; safe on a keeper that failed to open
 * @s: the keeper
 */
void nt_rx_stamps_close(struct nt_rx_stamps *s);

#endif
