// SPDX-License-Identifier: MIT
/*
 * backend.c - the table of capture back ends.
 */
#include <string.h>

#include "nt/capture/capture.h"

static const struct nt_capture_ops *const backends[] = {
	&nt_capture_pcap_ops,
	&nt_capture_packet_ops,
};

const struct nt_capture_ops *nt_capture_backend(const char *name)
{
	for (unsigned i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

const char *nt_capture_backend_names(void)
{
	return "pcap|packet";
}
