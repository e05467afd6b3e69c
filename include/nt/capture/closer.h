/* SPDX-License-Identifier: MIT */
/*
 * closer.h - close captures in the background while the next run goes.
 *
 * Closing an AF_PACKET socket waits for an RCU grace period
 * (packet_release() -> synchronize_net()): two to six scheduler ticks, 8 to
 * 24 ms at HZ=250, and libpcap's ring adds another. A comparison of several
 * variants closes one capture per variant; handed to one background thread,
 * each close waits while the next variant's lab is made and its exchange
 * runs, instead of before it.
 */
#ifndef NT_CAPTURE_CLOSER_H
#define NT_CAPTURE_CLOSER_H

#include "nt/capture/capture.h"

/**
 * nt_capture_close_later() - close @cap in the background
 * @cap: an open capture; it is moved out (closed as seen by the caller)
 *
 * The thread is started on first use, with every signal blocked, so
 * SIGINT and SIGTERM still reach the thread that runs the exchange. If it
 * cannot be started, or memory is short, @cap is closed here and now.
 */
void nt_capture_close_later(struct nt_capture *cap);

/**
 * nt_capture_closer_drain() - wait until every capture handed over is
 * closed, and end the thread; call before the process exits (nothing of a
 * run outlives it). Safe when nothing was handed over, and more than once.
 */
void nt_capture_closer_drain(void);

#endif
