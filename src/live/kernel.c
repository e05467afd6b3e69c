// SPDX-License-Identifier: MIT
/*
 * kernel.c - the running kernel's release, CONFIG_HZ and receive buffers for
 * the model (see nt/live/kernel.h).
 *
 * HZ cannot be asked for: sysconf(_SC_CLK_TCK) is USER_HZ (100 on every
 * architecture), and /proc/net/tcp converts its timers to USER_HZ too
 * (jiffies_to_clock_t()). The build configuration says it; the kernel
 * exposes it as /proc/config.gz with CONFIG_IKCONFIG_PROC, distributions as
 * /boot/config-RELEASE. zlib reads both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "nt/live/kernel.h"

#define CONFIG_GZ "/proc/config.gz"

bool nt_kernel_config_hz(const char *line, unsigned *hz)
{
	static const char key[] = "CONFIG_HZ=";
	unsigned long v;
	char *end;

	if (strncmp(line, key, sizeof(key) - 1) != 0)
		return false;
	errno = 0;
	v = strtoul(line + sizeof(key) - 1, &end, 10);
	if (errno || end == line + sizeof(key) - 1 || (*end && *end != '\n') || v < 24 || v > 10000)
		return false;
	*hz = (unsigned)v;
	return true;
}

/* CONFIG_HZ from a configuration file, gzip-compressed or not (gzread() reads plain files as they are). */
static bool hz_from(const char *path, unsigned *hz)
{
	gzFile f = gzopen(path, "rb");
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && gzgets(f, line, sizeof(line)))
		found = nt_kernel_config_hz(line, hz);
	gzclose(f);
	return found;
}

static void read_hz(struct nt_kernel_facts *kf)
{
	char boot[sizeof(kf->release) + 16];

	snprintf(boot, sizeof(boot), "/boot/config-%s", kf->release);
	if (hz_from(CONFIG_GZ, &kf->hz)) {
		snprintf(kf->hz_source, sizeof(kf->hz_source), "%s", CONFIG_GZ);
	} else if (kf->release[0] && hz_from(boot, &kf->hz)) {
		snprintf(kf->hz_source, sizeof(kf->hz_source), "%s", boot);
	} else {
		kf->hz = NT_KERNEL_HZ_ASSUMED;
		snprintf(kf->hz_source, sizeof(kf->hz_source), "assumed");
	}
}

/* The @index-th number (0-based) of a sysctl file, 0 when it cannot be read. */
static uint32_t sysctl_number(const char *path, unsigned index)
{
	char text[128], *p = text, *end;
	FILE *f = fopen(path, "re");
	unsigned long v = 0;
	bool ok;

	if (!f)
		return 0;
	ok = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	for (unsigned i = 0; ok && i <= index; i++, p = end) {
		errno = 0;
		v = strtoul(p, &end, 10);
		ok = !errno && end != p;
	}
	return ok && v <= UINT32_MAX ? (uint32_t)v : 0;
}

void nt_kernel_facts_read(struct nt_kernel_facts *kf)
{
	struct utsname u;
	uint32_t core_max;

	memset(kf, 0, sizeof(*kf));
	if (uname(&u) == 0) {
		snprintf(kf->release, sizeof(kf->release), "%s", u.release);
		(void)nt_kernel_version_parse(u.release, &kf->version);
	}
	read_hz(kf);
	kf->rcvbuf_bytes = sysctl_number("/proc/sys/net/ipv4/tcp_rmem", 1);
	kf->rmem_max_bytes = sysctl_number("/proc/sys/net/ipv4/tcp_rmem", 2);
	/* net.core.rmem_max is not shown in a namespace other than the first: then unknown. */
	core_max = sysctl_number("/proc/sys/net/core/rmem_max", 0);
	if (core_max > kf->rmem_max_bytes)
		kf->rmem_max_bytes = core_max;
}

void nt_kernel_knobs(const struct nt_kernel_facts *kf, struct nt_predict_knobs *k)
{
	if (kf->version.major)
		k->kernel = kf->version;
	k->hz = kf->hz;
	if (kf->rcvbuf_bytes >= 4096)
		k->rcvbuf_bytes = kf->rcvbuf_bytes;
	if (kf->rmem_max_bytes >= 4096)
		k->rmem_max_bytes = kf->rmem_max_bytes;
}
