// SPDX-License-Identifier: MIT
/*
 * sockdiag.c - one TCP socket's state over NETLINK_SOCK_DIAG (see
 * nt/lab/sockdiag.h).
 *
 * The request names the socket exactly (no NLM_F_DUMP): the kernel looks it
 * up in its hash tables (inet_diag_find_one_icsk()) rather than walking them
 * all as a dump does, so one lookup costs about as much as one system call
 * however many sockets the host has. Both cookie words are
 * INET_DIAG_NOCOOKIE: any socket with these addresses will do. The answer is
 * one SOCK_DIAG_BY_FAMILY message, or an error (-ENOENT: no such socket).
 * It lives beside rtnl.c because this folder is the one that uses libmnl.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nt/lab/netns.h"
#include "nt/lab/sockdiag.h"

int nt_sockdiag_open(struct nt_sockdiag *sd, struct nt_err *err)
{
	sd->nl = mnl_socket_open2(NETLINK_SOCK_DIAG, SOCK_CLOEXEC);
	if (!sd->nl)
		return nt_err_set(err, -errno, "open sock_diag socket");
	if (mnl_socket_bind(sd->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int ret = nt_err_set(err, -errno, "bind sock_diag socket");

		mnl_socket_close(sd->nl);
		sd->nl = NULL;
		return ret;
	}
	sd->portid = mnl_socket_get_portid(sd->nl);
	sd->seq = 1;
	return 0;
}

/*
 * A netlink socket belongs to the network namespace current when it was
 * made (netlink_create() takes sock_net of the caller's nsproxy) and stays
 * there: entering @netns_fd for the socket() call alone is enough, and the
 * thread is back in its own namespace before anything else runs. setns()
 * wants CAP_SYS_ADMIN over both namespaces (validate_net_ns() ... in
 * net/core/net_namespace.c's netns_install()).
 */
int nt_sockdiag_open_in(struct nt_sockdiag *sd, int netns_fd, struct nt_err *err)
{
	int home, ret;

	sd->nl = NULL;
	ret = nt_netns_current(&home, err);
	if (ret < 0)
		return ret;
	if (setns(netns_fd, CLONE_NEWNET) < 0) {
		ret = -errno;
		close(home);
		return nt_err_set(err, ret, "enter network namespace");
	}
	ret = nt_sockdiag_open(sd, err);
	if (setns(home, CLONE_NEWNET) < 0) {
		/* Not where the rest of the program expects to be: nothing more is safe. */
		ret = nt_err_set(err, -errno, "return to watch's own network namespace");
		nt_sockdiag_close(sd);
	}
	close(home);
	return ret;
}

void nt_sockdiag_close(struct nt_sockdiag *sd)
{
	if (sd->nl)
		mnl_socket_close(sd->nl);
	sd->nl = NULL;
}

struct nlmsghdr *nt_sockdiag_build_get(void *buf, uint32_t seq, int family, const uint8_t *src,
				       uint16_t sport, const uint8_t *dst, uint16_t dport)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	struct inet_diag_req_v2 *req;
	struct nlmsghdr *nlh;

	memset(buf, 0, NT_SOCKDIAG_BUF_BYTES);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = (uint8_t)family;
	req->sdiag_protocol = IPPROTO_TCP;
	/* Bit INET_DIAG_INFO - 1 asks for struct tcp_info (inet_diag_msg_attrs_fill()). */
	req->idiag_ext = 1u << (INET_DIAG_INFO - 1);
	req->idiag_states = ~0u;
	req->id.idiag_sport = htons(sport);
	req->id.idiag_dport = htons(dport);
	memcpy(req->id.idiag_src, src, alen);
	memcpy(req->id.idiag_dst, dst, alen);
	req->id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req->id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	return nlh;
}

static int attr_cb(const struct nlattr *attr, void *data)
{
	struct nt_sockdiag_info *out = data;
	struct tcp_info ti;
	size_t len;

	if (mnl_attr_get_type(attr) != INET_DIAG_INFO)
		return MNL_CB_OK; /* skip attributes we do not know */
	/* An older kernel's tcp_info is shorter: what it lacks reads as zero. */
	memset(&ti, 0, sizeof(ti));
	len = mnl_attr_get_payload_len(attr);
	memcpy(&ti, mnl_attr_get_payload(attr), len < sizeof(ti) ? len : sizeof(ti));
	out->has_info = true;
	out->rtt_us = ti.tcpi_rtt;
	out->ato_us = ti.tcpi_ato;
	out->unacked = ti.tcpi_unacked;
	out->notsent_bytes = ti.tcpi_notsent_bytes;
	return MNL_CB_OK;
}

int nt_sockdiag_parse(const struct nlmsghdr *nlh, struct nt_sockdiag_info *out)
{
	const struct inet_diag_msg *m;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*m)))
		return -EINVAL;
	m = mnl_nlmsg_get_payload(nlh);
	out->inode = m->idiag_inode;
	out->uid = m->idiag_uid;
	out->state = m->idiag_state;
	out->sport = ntohs(m->id.idiag_sport);
	out->dport = ntohs(m->id.idiag_dport);
	mnl_attr_parse(nlh, sizeof(*m), attr_cb, out);
	return 0;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	return nt_sockdiag_parse(nlh, data) < 0 ? MNL_CB_ERROR : MNL_CB_STOP;
}

int nt_sockdiag_get(struct nt_sockdiag *sd, int family, const uint8_t *src, uint16_t sport,
		    const uint8_t *dst, uint16_t dport, struct nt_sockdiag_info *out)
{
	char buf[NT_SOCKDIAG_BUF_BYTES];
	struct nlmsghdr *nlh;
	uint32_t seq = sd->seq++;
	ssize_t n;
	int ret;

	if (!sd->nl)
		return -EBADF;
	out->state = 0;
	nlh = nt_sockdiag_build_get(buf, seq, family, src, sport, dst, dport);
	if (mnl_socket_sendto(sd->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(sd->nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		/* An error message (no such socket: ENOENT) comes back as -1 with errno. */
		errno = 0;
		ret = mnl_cb_run(buf, (size_t)n, seq, sd->portid, data_cb, out);
		if (ret < 0) {
			out->state = 0;
			return errno ? -errno : -EIO;
		}
		if (ret == MNL_CB_STOP)
			return out->sport == sport && out->dport == dport ? 0 : -ENOENT;
	}
}
