/* SPDX-License-Identifier: MIT */
/*
 * procs_plan.h - what the run's commands get, computed before anything runs:
 * the private /etc files of the run's mount namespace, the environments, and
 * the test for the target's listening socket. Pure functions over strings, so
 * they are tested without namespaces; the run's init only writes out and
 * executes what was planned here (it may not allocate: see procs_init.c).
 */
#ifndef NT_LIVE_PROCS_PLAN_H
#define NT_LIVE_PROCS_PLAN_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/live/procs.h"

/* Of a host file bigger than this, the run's copy has the first bytes only. */
#define NT_PROCS_ETC_MAX_BYTES ((size_t)256 * 1024)

/**
 * nt_procs_hosts_text() - the run's /etc/hosts
 * @client_addr: printable client address
 * @target_addr: printable target address
 * @host_text: the host's /etc/hosts (NUL-terminated), or NULL when it has none
 *
 * `client` and `target` first, then localhost, then the host's file with any
 * line naming `client` or `target` commented out (glibc's files back end
 * returns every matching line, and a host's own `target` would follow ours).
 *
 * Return: a malloc'd string, or NULL when out of memory.
 */
char *nt_procs_hosts_text(const char *client_addr, const char *target_addr, const char *host_text);

/**
 * nt_procs_nsswitch_text() - the run's /etc/nsswitch.conf
 * @host_text: the host's file (NUL-terminated)
 *
 * The host's file with its `hosts:` database set to `files`: a `resolve`
 * (systemd-resolved) or `mdns` source would reach a daemon of the host over
 * a Unix socket, which no network namespace stops, and could answer or
 * delay a lookup of `client` or `target` before /etc/hosts is read.
 *
 * Return: a malloc'd string, or NULL when out of memory.
 */
char *nt_procs_nsswitch_text(const char *host_text);

/**
 * nt_procs_resolv_text() - the run's /etc/resolv.conf: a name server on the
 * namespace's own loopback, where nothing listens, so a DNS query fails at
 * once instead of reaching the host's stub resolver or timing out
 *
 * Return: a static string.
 */
const char *nt_procs_resolv_text(void);

/**
 * nt_procs_env_build() - an environment: @base with each of @set added or replacing
 * @base: NULL-terminated "NAME=value" strings (environ)
 * @set: "NAME=value" strings that replace same-named entries of @base
 * @n_set: how many
 *
 * The strings are not copied: the array points into @base and @set.
 *
 * Return: a malloc'd NULL-terminated array, or NULL when out of memory.
 */
char **nt_procs_env_build(char *const *base, char *const *set, size_t n_set);

/**
 * nt_procs_preload_value() - "LD_PRELOAD=..." with @lib first
 * @lib: the library's absolute path
 * @existing: the current LD_PRELOAD value, or NULL
 *
 * ld.so(8) takes the list separated by spaces or colons; @lib goes first so
 * its symbols win, and the user's libraries are kept after it.
 *
 * Return: a malloc'd string, or NULL when out of memory.
 */
char *nt_procs_preload_value(const char *lib, const char *existing);

/**
 * struct nt_procs_listen_query - which listening socket starts the client
 * @port: the port to wait for, 0 for any
 * @family: the lab's address family
 * @target_addr: the target's address in the lab
 * @known: inodes of listeners that existed before the target started
 * @n_known: how many
 */
struct nt_procs_listen_query {
	uint16_t port;
	int family;
	struct in6_addr target_addr;
	const unsigned long *known;
	size_t n_known;
};

/**
 * nt_procs_find_listener() - a new listening socket in /proc/net/tcp{,6} text
 * @text: the file's text, NUL-terminated
 * @q: what to look for
 * @found: set to the first new listener on @q->port that the client can
 *         reach: the wildcard address or the target's own (an IPv6 wildcard
 *         also takes IPv4 unless IPV6_V6ONLY, which /proc does not show)
 * @unreachable: set, unless already seen, to the first new listener on
 *               @q->port that the client cannot reach (loopback, another
 *               address, the other family)
 *
 * Return: 1 when @found was set, 0 otherwise.
 */
int nt_procs_find_listener(const char *text, const struct nt_procs_listen_query *q,
			   struct nt_procs_listener *found, struct nt_procs_listener *unreachable);

#endif
