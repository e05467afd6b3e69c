// SPDX-License-Identifier: MIT
/*
 * pcap_live.c - the libpcap capture back end.
 *
 * Immediate mode (every frame is handed over as it arrives, no buffering
 * timeout), nanosecond timestamps (PCAP_TSTAMP_PRECISION_NANO: the kernel's
 * skb timestamp, CLOCK_REALTIME), non-blocking reads from the selectable
 * descriptor. pcap_activate(), not pcap_create(), opens the AF_PACKET socket,
 * so it must run in the namespace to capture in.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/capture/capture.h"
#include "nt/clock.h"

static pcap_t *handle(const struct nt_capture *cap)
{
	return cap->priv;
}

static int live_open(struct nt_capture *cap, const struct nt_capture_config *cfg,
		     struct nt_err *err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	pcap_t *p = pcap_create(cfg->ifname, errbuf);
	int ret;

	if (!p)
		return nt_err_set(err, -ENODEV, "libpcap: open \"%s\": %s", cfg->ifname, errbuf);
	cap->priv = p;

	if (pcap_set_snaplen(p, (int)cfg->snaplen) || pcap_set_immediate_mode(p, 1) ||
	    pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) ||
	    (cfg->buffer_bytes && pcap_set_buffer_size(p, (int)cfg->buffer_bytes))) {
		ret = nt_err_set(err, -EINVAL, "libpcap: configure \"%s\": %s", cfg->ifname,
				 pcap_geterr(p));
		goto close;
	}
	ret = pcap_activate(p);
	if (ret < 0) {
		const char *why = ret == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(ret);

		ret = nt_err_set(err, ret == PCAP_ERROR_PERM_DENIED ? -EPERM : -EIO,
				 "libpcap: activate capture on \"%s\": %s", cfg->ifname, why);
		goto close;
	}
	if (pcap_setnonblock(p, 1, errbuf) < 0) {
		ret = nt_err_set(err, -EIO, "libpcap: non-blocking mode: %s", errbuf);
		goto close;
	}
	if (pcap_compile(p, &prog, cfg->filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		ret = nt_err_set(err, -EINVAL, "libpcap: filter \"%s\": %s", cfg->filter,
				 pcap_geterr(p));
		goto close;
	}
	ret = pcap_setfilter(p, &prog);
	pcap_freecode(&prog);
	if (ret < 0) {
		ret = nt_err_set(err, -EIO, "libpcap: set filter: %s", pcap_geterr(p));
		goto close;
	}
	if (pcap_get_selectable_fd(p) < 0) {
		ret = nt_err_set(err, -EIO, "libpcap: no selectable descriptor on \"%s\"",
				 cfg->ifname);
		goto close;
	}
	/* DLT_ and LINKTYPE_ values agree for every link type a veth or lo can have. */
	cap->linktype = pcap_datalink(p);
	return 0;

close:
	pcap_close(p);
	cap->priv = NULL;
	return ret;
}

static int live_fd(const struct nt_capture *cap)
{
	return pcap_get_selectable_fd(handle(cap));
}

static int live_next(struct nt_capture *cap, struct nt_frame *frame, struct nt_err *err)
{
	struct pcap_pkthdr *hdr;
	const u_char *data;
	int ret = pcap_next_ex(handle(cap), &hdr, &data);

	if (ret == 0)
		return 0;
	if (ret < 0)
		return nt_err_set(err, -EIO, "libpcap: read: %s", pcap_geterr(handle(cap)));
	/* With nanosecond precision, tv_usec holds nanoseconds (pcap_set_tstamp_precision(3PCAP)). */
	frame->t_ns = (int64_t)hdr->ts.tv_sec * NT_NS_PER_SEC + hdr->ts.tv_usec;
	nt_frame_read(frame, data, hdr->caplen, hdr->len, cap->linktype);
	return 1;
}

static int live_stats(struct nt_capture *cap, struct nt_capture_stats *st, struct nt_err *err)
{
	struct pcap_stat ps;

	if (pcap_stats(handle(cap), &ps) < 0)
		return nt_err_set(err, -EIO, "libpcap: statistics: %s", pcap_geterr(handle(cap)));
	st->received = ps.ps_recv;
	st->dropped = ps.ps_drop;
	st->if_dropped = ps.ps_ifdrop;
	return 0;
}

static void live_close(struct nt_capture *cap)
{
	if (cap->priv)
		pcap_close(handle(cap));
	cap->priv = NULL;
}

const struct nt_capture_ops nt_capture_pcap_ops = {
	.name = "pcap",
	.open = live_open,
	.fd = live_fd,
	.next = live_next,
	.stats = live_stats,
	.close = live_close,
};

const char *nt_capture_library_version(void)
{
	return pcap_lib_version();
}

/*
 * libpcap's tables know LINKTYPE_ values through their DLT_ twins
 * (pcap_datalink_val_to_name()): the names tcpdump prints.
 */
const char *nt_capture_linktype_name(int linktype, char *buf, size_t len)
{
	const char *name = pcap_datalink_val_to_name(linktype);
	const char *desc = pcap_datalink_val_to_description(linktype);

	if (name && desc)
		snprintf(buf, len, "%s (%s)", name, desc);
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "link type %d", linktype);
	return buf;
}
