/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - what the model needs to know of the running kernel: its release,
 * its CONFIG_HZ (the jiffy every TCP timer counts in) and the receive buffer
 * sysctls that set the target's window.
 */
#ifndef NT_LIVE_KERNEL_H
#define NT_LIVE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/predict.h"

/* HZ when the kernel's configuration cannot be read: Debian's and most distributions'. */
#define NT_KERNEL_HZ_ASSUMED 250

/**
 * struct nt_kernel_facts - the running kernel, as the model's knobs take it
 * @release: `uname -r`
 * @version: its numbers; 0.0.0 when @release does not start with them
 * @hz: CONFIG_HZ
 * @hz_source: where @hz came from: "/proc/config.gz", "/boot/config-RELEASE",
 *             or "assumed" (NT_KERNEL_HZ_ASSUMED)
 * @rcvbuf_bytes: net.ipv4.tcp_rmem[1] of the namespace it was read in, 0
 *                unknown
 * @rmem_max_bytes: net.ipv4.tcp_rmem[2], or net.core.rmem_max when larger
 *                  (tcp_select_initial_window() scales for the larger), 0
 *                  unknown
 */
struct nt_kernel_facts {
	char release[72];
	struct nt_kernel_version version;
	unsigned hz;
	char hz_source[96];
	uint32_t rcvbuf_bytes;
	uint32_t rmem_max_bytes;
};

/**
 * nt_kernel_facts_read() - the release, CONFIG_HZ and the calling thread's
 * network namespace's receive buffer sysctls
 * @kf: filled; what cannot be read keeps a documented fallback
 *
 * A fresh network namespace copies tcp_rmem from the initial one
 * (tcp_sk_init()), so the lab's namespaces and the caller's agree unless the
 * caller's was changed.
 */
void nt_kernel_facts_read(struct nt_kernel_facts *kf);

/**
 * nt_kernel_config_hz() - CONFIG_HZ from one line of a kernel configuration
 * @line: "CONFIG_HZ=250" (a trailing newline is allowed)
 * @hz: set when the line is that setting
 *
 * Return: true when it was; false for any other line, "# CONFIG_HZ is not
 * set", or a value that is not a number from 24 to 10000.
 */
bool nt_kernel_config_hz(const char *line, unsigned *hz);

/**
 * nt_kernel_knobs() - set the knobs the kernel decides: version, HZ and the
 * receive buffers where known (the model's defaults otherwise)
 * @kf: the facts
 * @k: knobs, initialised by nt_predict_knobs_default()
 */
void nt_kernel_knobs(const struct nt_kernel_facts *kf, struct nt_predict_knobs *k);

#endif
