// SPDX-License-Identifier: MIT
/*
 * nt_nodelay.c - the LD_PRELOAD library of `nagle-trace run --fix nodelay`:
 * every TCP socket the program makes gets TCP_NODELAY, so Nagle's algorithm
 * (tcp_nagle_check()) never holds a small write back behind unacknowledged
 * data, and the write-write-read stall cannot happen on the sending side.
 *
 * Where it acts, and why there: socket() (the common case: set before the
 * first byte); connect() again, for a socket made without our socket() (a
 * raw system call, a descriptor inherited from a parent that was not
 * preloaded); accept() and accept4() for servers (Linux copies the option
 * from the listener to the accepted socket, but the listener may have been
 * made elsewhere). The first time it sets the option in a process it says so,
 * once, on stderr.
 *
 * Limits, honestly:
 * - LD_PRELOAD reaches dynamically linked programs only: a static binary
 *   (many Go and Rust release builds, busybox) is untouched; so are setuid
 *   programs run by a user who is not their owner (ld.so's secure mode).
 * - A program that clears the option itself (setsockopt(TCP_NODELAY, 0))
 *   gets what it asked for: we set it before the program does anything, and
 *   do not overrule it afterwards. TCP_CORK and MSG_MORE still hold data back
 *   as the program asked; TCP_NODELAY does not undo them.
 * - Sockets made and connected without libc's socket()/connect() are missed:
 *   raw syscall(), io_uring (IORING_OP_SOCKET, IORING_OP_CONNECT), and
 *   sendto(MSG_FASTOPEN) on a socket that did not come from socket().
 * - A 32-bit program cannot load this 64-bit library (ld.so says "wrong ELF
 *   class" and runs the program without it).
 */
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

#define EXPORT __attribute__((visibility("default")))

typedef int (*socket_fn)(int, int, int);
typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*accept_fn)(int, struct sockaddr *, socklen_t *);
typedef int (*accept4_fn)(int, struct sockaddr *, socklen_t *, int);

static socket_fn real_socket;
static connect_fn real_connect;
static accept_fn real_accept;
static accept4_fn real_accept4;
static atomic_bool announced;

static void *next_symbol(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* At load time, before the program's threads exist; the hooks re-resolve if called earlier. */
__attribute__((constructor)) static void resolve(void)
{
	real_socket = (socket_fn)next_symbol("socket");
	real_connect = (connect_fn)next_symbol("connect");
	real_accept = (accept_fn)next_symbol("accept");
	real_accept4 = (accept4_fn)next_symbol("accept4");
}

static bool is_tcp_kind(int domain, int type, int protocol)
{
	type &= ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	return (domain == AF_INET || domain == AF_INET6) && type == SOCK_STREAM &&
	       (protocol == 0 || protocol == IPPROTO_TCP || protocol == IPPROTO_MPTCP);
}

static bool is_tcp_fd(int fd)
{
	int domain = 0, type = 0, protocol = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
		return false;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return false;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) < 0)
		return false;
	return is_tcp_kind(domain, type, protocol);
}

/*
 * Said once per process, with write(2) (no stdio: the program's buffers and
 * locks are its own), and only when stderr is not a socket: a daemon that
 * closed its stderr may have a connection on descriptor 2 by now.
 */
static void announce(void)
{
	struct stat st;
	char msg[256];
	int n;

	if (atomic_exchange(&announced, true))
		return;
	if (fstat(STDERR_FILENO, &st) < 0 || S_ISSOCK(st.st_mode))
		return;
	n = snprintf(msg, sizeof(msg),
		     "nagle-trace: --fix nodelay: TCP_NODELAY on every TCP socket of %s (pid %d)\n",
		     program_invocation_short_name, (int)getpid());
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg));
}

static void set_nodelay(int fd)
{
	int one = 1, saved = errno;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0)
		announce();
	errno = saved;
}

EXPORT int socket(int domain, int type, int protocol)
{
	int fd;

	if (!real_socket)
		real_socket = (socket_fn)next_symbol("socket");
	fd = real_socket(domain, type, protocol);
	if (fd >= 0 && is_tcp_kind(domain, type, protocol))
		set_nodelay(fd);
	return fd;
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	int saved = errno;

	if (!real_connect)
		real_connect = (connect_fn)next_symbol("connect");
	if (is_tcp_fd(fd))
		set_nodelay(fd);
	errno = saved;
	return real_connect(fd, addr, len);
}

static int after_accept(int fd)
{
	int saved = errno;

	if (fd >= 0 && is_tcp_fd(fd))
		set_nodelay(fd);
	errno = saved;
	return fd;
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	if (!real_accept)
		real_accept = (accept_fn)next_symbol("accept");
	return after_accept(real_accept(fd, addr, len));
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	if (!real_accept4)
		real_accept4 = (accept4_fn)next_symbol("accept4");
	return after_accept(real_accept4(fd, addr, len, flags));
}
