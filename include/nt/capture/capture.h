/* SPDX-License-Identifier: MIT */
/*
 * capture.h - live capture on one interface, behind swappable back ends.
 *
 * A back end is a table of function pointers (struct nt_capture_ops), as
 * packetdrill's netdev_ops: libpcap ("pcap") and a raw AF_PACKET socket
 * ("packet"). Both deliver frames with the kernel's receive/transmit
 * timestamp in CLOCK_REALTIME nanoseconds, non-blocking, from a descriptor the
 * caller polls. open() creates the capture socket in the calling thread's
 * network namespace.
 */
#ifndef NT_CAPTURE_CAPTURE_H
#define NT_CAPTURE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/model/note.h"

/**
 * struct nt_frame - one captured frame, valid until the next call on the capture
 * @t_ns: kernel timestamp, CLOCK_REALTIME nanoseconds
 * @data: the captured bytes
 * @caplen: bytes captured
 * @wirelen: bytes on the wire
 * @linktype: its link type: the capture's, or in a pcapng file its own
 *            interface's (one file may hold several)
 * @note: what a nagle-trace -w pcapng noted on it (NT_PCAPNG_LATE_PREFIX,
 *        NT_PCAPNG_WRITE_PREFIX); zeroed when nothing was noted, or live
 */
struct nt_frame {
	int64_t t_ns;
	const uint8_t *data;
	uint32_t caplen;
	uint32_t wirelen;
	int linktype;
	struct nt_frame_note note;
};

/**
 * nt_frame_read() - a frame as libpcap hands it over, the file's or the live
 * capture's: no notes, since only a pcapng frame of our own -w carries them
 * (the pcapng reader sets them after)
 * @frame: filled (but @t_ns, which each reader checks its own way)
 * @data: the captured bytes
 * @caplen: bytes captured
 * @wirelen: bytes on the wire
 * @linktype: the frame's link type
 */
static inline void nt_frame_read(struct nt_frame *frame, const uint8_t *data, uint32_t caplen,
				 uint32_t wirelen, int linktype)
{
	frame->data = data;
	frame->caplen = caplen;
	frame->wirelen = wirelen;
	frame->linktype = linktype;
	frame->note = (struct nt_frame_note){ 0 };
}

/**
 * struct nt_capture_stats - the back end's own counters
 * @received: frames the kernel passed the filter and queued for us
 * @dropped: frames the kernel dropped for lack of buffer space
 * @if_dropped: frames the interface dropped, when known
 */
struct nt_capture_stats {
	uint64_t received;
	uint64_t dropped;
	uint64_t if_dropped;
};

struct nt_rx_stamps;

/**
 * struct nt_capture_config - what to capture
 * @ifname: interface in the calling thread's namespace
 * @filter: a BPF filter expression (pcap-filter(7) syntax)
 * @snaplen: bytes to keep per frame
 * @buffer_bytes: kernel buffer size, 0 for the back end's default
 * @stamps: the command's receive-timestamp keeper (packet back end: open waits
 *          until stamps are live), or NULL: open probes every time
 */
struct nt_capture_config {
	const char *ifname;
	const char *filter;
	unsigned snaplen;
	unsigned buffer_bytes;
	struct nt_rx_stamps *stamps;
};

struct nt_capture;

/**
 * struct nt_capture_ops - one back end
 * @name: "pcap" or "packet"
 * @open: start capturing; frames arrive from then on
 * @fd: a descriptor to poll() for POLLIN
 * @next: the next frame: 1 with @frame set, 0 when none is queued, < 0 error
 * @stats: the back end's counters so far
 * @close: stop and free; safe on a capture whose open() failed
 */
struct nt_capture_ops {
	const char *name;
	int (*open)(struct nt_capture *cap, const struct nt_capture_config *cfg,
		    struct nt_err *err);
	int (*fd)(const struct nt_capture *cap);
	int (*next)(struct nt_capture *cap, struct nt_frame *frame, struct nt_err *err);
	int (*stats)(struct nt_capture *cap, struct nt_capture_stats *st, struct nt_err *err);
	void (*close)(struct nt_capture *cap);
};

/**
 * struct nt_capture - an open capture
 * @ops: its back end
 * @linktype: the frames' LINKTYPE_ value (enum nt_linktype)
 * @priv: the back end's state
 */
struct nt_capture {
	const struct nt_capture_ops *ops;
	int linktype;
	void *priv;
};

extern const struct nt_capture_ops nt_capture_pcap_ops;
extern const struct nt_capture_ops nt_capture_packet_ops;

/**
 * nt_capture_backend() - a back end by name
 * @name: "pcap" or "packet"
 *
 * Return: the back end, or NULL for an unknown name.
 */
const struct nt_capture_ops *nt_capture_backend(const char *name);

/**
 * nt_capture_backend_names() - the known names, for --help and errors
 *
 * Return: a static string such as "pcap|packet".
 */
const char *nt_capture_backend_names(void);

static inline int nt_capture_open(struct nt_capture *cap, const struct nt_capture_ops *ops,
				  const struct nt_capture_config *cfg, struct nt_err *err)
{
	cap->ops = ops;
	cap->priv = 0;
	cap->linktype = -1;
	return ops->open(cap, cfg, err);
}

static inline int nt_capture_fd(const struct nt_capture *cap)
{
	return cap->ops->fd(cap);
}

static inline int nt_capture_next(struct nt_capture *cap, struct nt_frame *frame,
				  struct nt_err *err)
{
	return cap->ops->next(cap, frame, err);
}

static inline int nt_capture_stats(struct nt_capture *cap, struct nt_capture_stats *st,
				   struct nt_err *err)
{
	return cap->ops->stats(cap, st, err);
}

static inline void nt_capture_close(struct nt_capture *cap)
{
	if (cap->ops)
		cap->ops->close(cap);
	cap->ops = 0;
}

/**
 * nt_capture_linktype_name() - a link type as tcpdump names it:
 * "EN10MB (Ethernet)", "LINUX_SLL2 (Linux cooked v2)", "link type 999"
 * @linktype: a LINKTYPE_ or DLT_ value
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_capture_linktype_name(int linktype, char *buf, size_t len);

/**
 * nt_capture_library_version() - libpcap's version string, for --version
 *
 * Return: a static string.
 */
const char *nt_capture_library_version(void);

#endif
