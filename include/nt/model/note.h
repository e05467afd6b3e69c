/* SPDX-License-Identifier: MIT */
/*
 * note.h - what a nagle-trace -w pcapng notes on a frame that no capture
 * shows: facts the live run measured beside the frames (docs/wire.md,
 * "Each frame's notes in the -w file"), read back by analyze.
 *
 * A frame from anywhere else (a live capture, a pcap file, another tool's
 * pcapng) has no notes: a zeroed struct.
 */
#ifndef NT_MODEL_NOTE_H
#define NT_MODEL_NOTE_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct nt_frame_note - a frame's notes
 * @late_ns: how late nagle-trace's delay line forwarded it (> 0), 0 when
 *           not noted
 * @write_lead_ns: the frame's time less the time the write() that queued
 *                 its first byte returned: > 0 when the write returned
 *                 first, < 0 when the frame left during the call; read only
 *                 with @has_write
 * @has_write: @write_lead_ns is noted
 */
struct nt_frame_note {
	int64_t late_ns;
	int64_t write_lead_ns;
	bool has_write;
};

#endif
