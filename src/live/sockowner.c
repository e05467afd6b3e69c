// SPDX-License-Identifier: MIT
/*
 * sockowner.c - a connection's ends: process and kernel state (see
 * nt/live/sockowner.h).
 *
 * inode -> pid has no kernel interface but the fd links: readlink() of
 * /proc/PID/fd/N reads "socket:[INODE]" (sock_d_dname(), net/socket.c). A
 * walk of every process's descriptors is the costly part, so it is made once
 * per socket and its answer cached; a socket held by several processes
 * (after fork) is named by the first found, in /proc's order. Processes we
 * may not look into (another user's, without CAP_SYS_PTRACE) are skipped:
 * their sockets show with pid -1, and the report says "unknown".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/live/procnet.h"
#include "nt/live/sockowner.h"
#include "nt/unknown.h"

#define TIME_WAIT_STATE 6
#define CLOSE_STATE	7
#define LISTEN_STATE	10

/* /proc/PID/net/tcp can be large on a busy host; what is past this is not searched. */
#define NET_TCP_MAX_BYTES (64u << 20)

int nt_sockowner_open(struct nt_sockowner *so, struct nt_err *err)
{
	int ret;

	memset(so, 0, sizeof(*so));
	ret = nt_sockdiag_open(&so->sd, err);
	if (ret < 0)
		return ret;
	ret = nt_sockns_open(&so->ns, err);
	if (ret < 0)
		nt_sockdiag_close(&so->sd);
	return ret;
}

void nt_sockowner_close(struct nt_sockowner *so)
{
	nt_sockns_close(&so->ns);
	nt_sockdiag_close(&so->sd);
	free(so->text);
	so->text = NULL;
}

/* Whether any descriptor of process @pid is the socket @want ("socket:[N]"). */
static bool pid_holds(const char *pid, const char *want)
{
	char path[300], link[64];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(dir), d->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = strcmp(link, want) == 0;
	}
	closedir(dir);
	return found;
}

static void read_comm(int pid, char *comm, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, len - 1);
	close(fd);
	if (n <= 0) {
		comm[0] = '\0';
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

static int find_pid(uint64_t inode)
{
	char want[48];
	struct dirent *d;
	int pid = -1;
	DIR *dir = opendir("/proc");

	if (!dir)
		return -1;
	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)inode);
	while (pid < 0 && (d = readdir(dir)))
		if (nt_procnet_is_pid(d->d_name) && pid_holds(d->d_name, want))
			pid = (int)strtol(d->d_name, NULL, 10);
	closedir(dir);
	return pid;
}

static const struct nt_sockowner_slot *owner_of(struct nt_sockowner *so, uint64_t inode)
{
	struct nt_sockowner_slot *s;

	for (unsigned i = 0; i < NT_SOCKOWNER_CACHE; i++)
		if (so->slot[i].inode == inode)
			return &so->slot[i];
	s = &so->slot[so->next];
	so->next = (so->next + 1) % NT_SOCKOWNER_CACHE;
	s->inode = inode;
	s->pid = find_pid(inode);
	so->proc_scans++;
	if (s->pid >= 0)
		read_comm(s->pid, s->comm, sizeof(s->comm));
	else
		s->comm[0] = '\0';
	return s;
}

/* The ping-pong bit and the quick-ACK budget, from the owner's namespace's table. */
static void read_procnet(struct nt_sockowner *so, int family, struct nt_sock_state *k)
{
	struct nt_procnet_tcp t;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/net/%s", k->pid,
		 family == AF_INET6 ? "tcp6" : "tcp");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (nt_procnet_read(fd, &so->text, &so->text_bytes, NET_TCP_MAX_BYTES)) {
		if (nt_procnet_find_inode(so->text, (unsigned long)k->inode, &t) == 0) {
			k->pingpong = t.pingpong;
			k->quick = (int)t.quick;
		} else if (strlen(so->text) + 1 < NET_TCP_MAX_BYTES) {
			/*
			 * Gone from the whole table since sock_diag named it:
			 * the last ACK of its close came in between (tcp_done()
			 * unhashes it). Its tcp_info, read first, is kept.
			 */
			k->closed = true;
		}
	}
	close(fd);
}

/* FNV-1a over the connection as this end sees it. */
static struct nt_sockowner_remote *remote_slot(struct nt_sockowner *so, int family,
					       const uint8_t *addr, uint16_t port,
					       const uint8_t *peer, uint16_t peer_port,
					       struct nt_sockowner_remote *key)
{
	size_t alen = family == AF_INET6 ? 16 : 4;
	const uint8_t *p;
	uint32_t h = 2166136261u;

	memset(key, 0, sizeof(*key));
	key->used = true;
	key->family = (uint8_t)family;
	key->port = port;
	key->peer_port = peer_port;
	memcpy(key->addr, addr, alen);
	memcpy(key->peer, peer, alen);
	p = (const uint8_t *)key;
	for (size_t i = 0; i < sizeof(*key); i++)
		h = (h ^ p[i]) * 16777619u;
	return &so->remote[h % NT_SOCKOWNER_REMOTE];
}

/* An end sock_diag found: its tcp_info, its process, and the /proc bits. */
static void fill_found(struct nt_sockowner *so, int family, const struct nt_sockdiag_info *info,
		       struct nt_sock_state *k)
{
	const struct nt_sockowner_slot *s;

	k->inode = info->inode;
	/*
	 * TCP_TIME_WAIT and TCP_CLOSE (include/net/tcp_states.h): the program
	 * closed the socket before the stall was handled; tcp_get_info() of a
	 * closed socket is zeros, not the state the stall had.
	 */
	if (info->state == TIME_WAIT_STATE || info->state == CLOSE_STATE)
		k->closed = true;
	if (info->has_info && !k->closed) {
		k->rtt_us = info->rtt_us;
		k->ato_us = info->ato_us;
		k->unacked = info->unacked;
		k->notsent_bytes = info->notsent_bytes;
	}
	if (!info->inode) {
		k->closed = true;
		return;
	}
	s = owner_of(so, info->inode);
	k->pid = s->pid;
	memcpy(k->comm, s->comm, sizeof(k->comm));
	if (k->pid >= 0 && !k->closed)
		read_procnet(so, family, k);
}

static bool is_loopback(int family, const uint8_t *addr)
{
	static const uint8_t v6_lo[16] = { [15] = 1 };

	return family == AF_INET6 ? !memcmp(addr, v6_lo, 16) : addr[0] == 127;
}

/**
 * struct found - where sock_diag found an end
 * @ret: 0 found; -ENOENT with @info.state TCP_LISTEN: only its port's
 *       listener (the connection is gone); another negative errno: not found
 * @info: the answer
 * @netns: the namespace that answered
 */
struct found {
	int ret;
	struct nt_sockdiag_info info;
	uint64_t netns;
};

static bool ask(struct nt_sockowner *so, struct nt_sockdiag *sd, uint64_t netns,
		const struct nt_sockowner_remote *e, struct found *f)
{
	struct nt_sockdiag_info info;
	int ret = nt_sockdiag_get(sd, e->family, e->addr, e->port, e->peer, e->peer_port, &info);

	so->lookups++;
	if (ret == 0 || (ret == -ENOENT && info.state == LISTEN_STATE && f->ret != -ENOENT)) {
		f->ret = ret;
		f->info = info;
		f->netns = netns;
	}
	return ret == 0;
}

/* The other namespaces, in order; true when one has the socket. */
static bool ask_others(struct nt_sockowner *so, const struct nt_sockowner_remote *e,
		       struct found *f)
{
	for (uint32_t i = 0; i < so->ns.n; i++)
		if (!so->ns.ns[i].denied && ask(so, &so->ns.ns[i].sd, so->ns.ns[i].ino, e, f))
			return true;
	return false;
}

/*
 * Watch's own namespace first, then the others (containers); a listener of
 * the end's port answers only when no namespace has the connection itself
 * (a host's proxy listening on the port a container's server has). A loopback
 * address seen on watch's capture is watch's own namespace's: lo is not
 * shared. An end found nowhere may be in a namespace made since the last
 * scan: the processes are scanned again, at most once a second.
 */
static void lookup(struct nt_sockowner *so, const struct nt_sockowner_remote *e, struct found *f)
{
	int64_t now;

	f->ret = -ESRCH;
	if (ask(so, &so->sd, so->ns.own, e, f) || is_loopback(e->family, e->addr) ||
	    ask_others(so, e, f) || f->ret == -ENOENT)
		return;
	now = nt_now_mono_ns();
	if (so->scanned_ns && now - so->scanned_ns < NT_NS_PER_SEC)
		return;
	so->scanned_ns = now;
	if (nt_sockns_scan(&so->ns)) {
		/* Ends known not to be here may be in the namespaces just found. */
		memset(so->remote, 0, sizeof(so->remote));
		ask_others(so, e, f);
	}
}

static void fill_end(struct nt_sockowner *so, int family, const uint8_t *addr, uint16_t port,
		     const uint8_t *peer, uint16_t peer_port, struct nt_sock_state *k)
{
	*k = (struct nt_sock_state){ .pid = -1,
				     .rtt_us = NT_UNKNOWN,
				     .ato_us = NT_UNKNOWN,
				     .unacked = NT_UNKNOWN,
				     .notsent_bytes = NT_UNKNOWN,
				     .pingpong = -1,
				     .quick = -1 };
	struct nt_sockowner_remote key,
		*slot = remote_slot(so, family, addr, port, peer, peer_port, &key);
	struct found f;

	if (!memcmp(slot, &key, sizeof(key)))
		return; /* known not to be here */
	lookup(so, &key, &f);
	if (f.ret < 0 && f.ret != -ENOENT) {
		memcpy(slot, &key, sizeof(key));
		return;
	}
	k->local = true;
	k->netns = f.netns;
	k->foreign = f.netns != so->ns.own;
	/* Only the listener on this end's port answered: local, its connection closed. */
	if (f.ret == -ENOENT) {
		k->closed = true;
		return;
	}
	fill_found(so, family, &f.info, k);
}

void nt_sockowner_fill(struct nt_sockowner *so, struct nt_watch_stall *st)
{
	fill_end(so, st->family, st->client_addr, st->client_port, st->target_addr, st->target_port,
		 &st->sock[NT_DIR_C2T]);
	fill_end(so, st->family, st->target_addr, st->target_port, st->client_addr, st->client_port,
		 &st->sock[NT_DIR_T2C]);
}
