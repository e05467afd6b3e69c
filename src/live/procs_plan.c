// SPDX-License-Identifier: MIT
/*
 * procs_plan.c - the run's /etc files, environments and listener test (see
 * nt/live/procs_plan.h), and where our preload library is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nt/live/procnet.h"
#include "nt/live/procs_plan.h"

/* TCP_LISTEN in include/net/tcp_states.h. */
#define PROCNET_LISTEN 10

#ifndef NT_PRELOAD_RELDIR
#define NT_PRELOAD_RELDIR "../lib/nagle-trace"
#endif

/* Whether a hosts(5) line names `client` or `target` (as any of its names). */
static bool names_ours(const char *line, size_t n)
{
	char tok[256];
	size_t i = 0;
	unsigned field = 0;

	while (i < n && line[i] != '#') {
		size_t len = 0;

		while (i < n && (line[i] == ' ' || line[i] == '\t'))
			i++;
		while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '#') {
			if (len + 1 < sizeof(tok))
				tok[len++] = line[i];
			i++;
		}
		tok[len] = '\0';
		if (len && field++ > 0 &&
		    (!strcasecmp(tok, "client") || !strcasecmp(tok, "target")))
			return true;
	}
	return false;
}

char *nt_procs_hosts_text(const char *client_addr, const char *target_addr, const char *host_text)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);

	if (!f)
		return NULL;
	fprintf(f,
		"# nagle-trace run: the run's own /etc/hosts (a private mount namespace);\n"
		"# the host's file is untouched.\n"
		"%s\tclient\n%s\ttarget\n"
		"127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n",
		client_addr, target_addr);
	if (host_text) {
		fputs("# the host's /etc/hosts follows\n", f);
		for (const char *line = host_text; *line;) {
			const char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);

			if (names_ours(line, n))
				fputs("# hidden by nagle-trace: ", f);
			fwrite(line, 1, n, f);
			fputc('\n', f);
			line += n + (nl ? 1 : 0);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

char *nt_procs_nsswitch_text(const char *host_text)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);
	bool done = false;

	if (!f)
		return NULL;
	for (const char *line = host_text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		size_t skip = strspn(line, " \t");

		if (n >= skip + 6 && !strncmp(line + skip, "hosts:", 6)) {
			fputs("# nagle-trace run: names come from the run's /etc/hosts only\n", f);
			if (!done)
				fputs("hosts: files\n", f);
			fputs("# was: ", f);
			done = true;
		}
		fwrite(line, 1, n, f);
		fputc('\n', f);
		line += n + (nl ? 1 : 0);
	}
	if (!done)
		fputs("# nagle-trace run: names come from the run's /etc/hosts only\nhosts: "
		      "files\n",
		      f);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

const char *nt_procs_resolv_text(void)
{
	/*
	 * With no nameserver line glibc asks 127.0.0.1 anyway (res_init()); say it,
	 * and make it one quick try: in the lab nothing listens on port 53, so the
	 * query is refused (ICMP port unreachable) and the lookup fails at once.
	 */
	return "# nagle-trace run: no DNS inside the lab; `client` and `target` are in /etc/hosts\n"
	       "nameserver 127.0.0.1\n"
	       "options attempts:1 timeout:1\n";
}

static bool same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return strncmp(a, b, n) == 0 && b[n] == '=';
}

char **nt_procs_env_build(char *const *base, char *const *set, size_t n_set)
{
	size_t n_base = 0, n = 0;
	char **env;

	while (base && base[n_base])
		n_base++;
	env = calloc(n_base + n_set + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n_base; i++) {
		bool replaced = false;

		for (size_t j = 0; j < n_set && !replaced; j++)
			replaced = same_name(set[j], base[i]);
		if (!replaced)
			env[n++] = base[i];
	}
	for (size_t j = 0; j < n_set; j++)
		env[n++] = set[j];
	env[n] = NULL;
	return env;
}

char *nt_procs_preload_value(const char *lib, const char *existing)
{
	char *out = NULL;

	if (existing && *existing) {
		if (asprintf(&out, "LD_PRELOAD=%s %s", lib, existing) < 0)
			return NULL;
	} else if (asprintf(&out, "LD_PRELOAD=%s", lib) < 0) {
		return NULL;
	}
	return out;
}

static bool is_known(const struct nt_procs_listen_query *q, unsigned long inode)
{
	for (size_t i = 0; i < q->n_known; i++)
		if (q->known[i] == inode)
			return true;
	return false;
}

/* Whether a listener on @addr (@v6: 16 bytes, else 4) takes the client's connections. */
static bool is_reachable(const struct nt_procs_listen_query *q, bool v6, const struct in6_addr *a)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct in6_addr any = { 0 };

	if (!v6)
		return q->family == AF_INET &&
		       (!memcmp(a, &any, 4) || !memcmp(a, &q->target_addr, 4));
	if (!memcmp(a, &any, 16))
		return true;
	if (q->family == AF_INET6)
		return !memcmp(a, &q->target_addr, 16);
	return !memcmp(a->s6_addr, mapped, 12) && !memcmp(a->s6_addr + 12, &q->target_addr, 4);
}

static void fill_listener(struct nt_procs_listener *l, const struct nt_procnet_tcp *t)
{
	memset(l, 0, sizeof(*l));
	l->seen = true;
	l->family = t->v6 ? AF_INET6 : AF_INET;
	/* The kernel's __be32 words, printed in host order: memcpy gives network bytes. */
	memcpy(&l->addr, t->local_words, t->v6 ? 16 : 4);
	l->port = t->local_port;
	inet_ntop(l->family, &l->addr, l->addr_str, sizeof(l->addr_str));
}

int nt_procs_find_listener(const char *text, const struct nt_procs_listen_query *q,
			   struct nt_procs_listener *found, struct nt_procs_listener *unreachable)
{
	for (const char *line = text; line && *line;) {
		struct nt_procnet_tcp t;

		if (nt_procnet_parse_tcp_line(line, &t) == 0 && t.state == PROCNET_LISTEN &&
		    (!q->port || t.local_port == q->port) && !is_known(q, t.inode)) {
			struct in6_addr a = { 0 };

			memcpy(&a, t.local_words, t.v6 ? 16 : 4);
			if (is_reachable(q, t.v6, &a)) {
				fill_listener(found, &t);
				return 1;
			}
			if (!unreachable->seen)
				fill_listener(unreachable, &t);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

/* @dir/@name into @buf when that file exists. */
static bool try_path(char *buf, size_t len, const char *dir, const char *sub, const char *name)
{
	int n = snprintf(buf, len, "%s%s%s/%s", dir, *sub ? "/" : "", sub, name);

	return n > 0 && (size_t)n < len && access(buf, R_OK) == 0;
}

int nt_procs_preload_path(const char *name, char *buf, size_t len, struct nt_err *err)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return nt_err_set(err, -errno, "find the running executable (/proc/self/exe)");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return nt_err_set(err, -ENOENT, "find the running executable's directory");
	*slash = '\0';
	/* Build tree: beside the binary. Install tree: bindir/../lib.../nagle-trace. */
	if (try_path(buf, len, exe, "", name) || try_path(buf, len, exe, NT_PRELOAD_RELDIR, name))
		return 0;
	return nt_err_set(err, -ENOENT, "find %s in %s or %s/%s", name, exe, exe,
			  NT_PRELOAD_RELDIR);
}
