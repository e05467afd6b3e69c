/* SPDX-License-Identifier: MIT */
/*
 * procnet.h - parsers for the text of /proc/net/tcp, /proc/net/tcp6 and
 * /proc/net/netstat. Pure functions over a string: no I/O, so they are tested
 * on lines recorded from a real kernel.
 *
 * /proc/net/tcp lines come from get_tcp4_sock() (net/ipv4/tcp_ipv4.c) and
 * get_tcp6_sock() (net/ipv6/tcp_ipv6.c):
 *
 *   sl local rem st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
 *   refcnt ptr rto ato quick<<1|pingpong cwnd ssthresh
 *
 * Addresses are the raw __be32 words printed with %08X in the host's byte
 * order, ports are %04X of the host-order port; times (rto, ato) are clock_t,
 * USER_HZ units (jiffies_to_clock_t()).
 */
#ifndef NT_LIVE_PROCNET_H
#define NT_LIVE_PROCNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* USER_HZ: clock_t in /proc is 1/100 s on every architecture (it is ABI, unlike HZ). */
#define NT_PROCNET_USER_HZ 100

/* TCP_ESTABLISHED in include/net/tcp_states.h. */
#define NT_PROCNET_ESTABLISHED 1

/**
 * struct nt_procnet_tcp - one socket line of /proc/net/tcp or tcp6
 * @v6: the line has 128-bit addresses
 * @local_words: local address as printed: 1 word (IPv4) or 4 (IPv6), host order
 *               of the kernel's __be32 words, so memcpy() gives network bytes
 * @local_port: local port
 * @remote_words: remote address, as @local_words
 * @remote_port: remote port
 * @state: TCP state (1 established, 10 listen, ...)
 * @tx_queue_bytes: write_seq - snd_una (sent or not, unacknowledged)
 * @rx_queue_bytes: rcv_nxt - copied_seq (received, unread)
 * @inode: socket inode
 * @rto_ticks: icsk_rto in clock_t
 * @ato_ticks: icsk_ack.ato in clock_t
 * @quick: icsk_ack.quick, the quick-ACK budget left
 * @pingpong: inet_csk_in_pingpong_mode()
 * @cwnd: snd_cwnd in segments
 * @ssthresh: snd_ssthresh, -1 in initial slow start
 */
struct nt_procnet_tcp {
	bool v6;
	uint32_t local_words[4];
	uint16_t local_port;
	uint32_t remote_words[4];
	uint16_t remote_port;
	unsigned state;
	uint32_t tx_queue_bytes;
	uint32_t rx_queue_bytes;
	unsigned long inode;
	unsigned long rto_ticks;
	unsigned long ato_ticks;
	unsigned quick;
	bool pingpong;
	unsigned cwnd;
	long ssthresh;
};

/**
 * nt_procnet_parse_tcp_line() - parse one line of /proc/net/tcp or tcp6
 * @line: the line, up to its newline or NUL
 * @out: filled on success
 *
 * Return: 0; -ENOENT for the title line ("  sl  local_address ..."); -EINVAL
 * for a line that is not a socket line (too few fields, bad numbers).
 */
int nt_procnet_parse_tcp_line(const char *line, struct nt_procnet_tcp *out);

/**
 * nt_procnet_find_tcp() - the first socket in a whole file's text with these
 * ports and state
 * @text: the file's text, NUL-terminated
 * @local_port: local port to match
 * @remote_port: remote port to match
 * @state: TCP state to match, 0 for any
 * @out: filled on success
 *
 * Return: 0, or -ENOENT when no line matches.
 */
int nt_procnet_find_tcp(const char *text, uint16_t local_port, uint16_t remote_port, unsigned state,
			struct nt_procnet_tcp *out);

/**
 * nt_procnet_is_pid() - is this name of a /proc entry a process's (all digits)
 * @name: the entry's name
 *
 * Return: true for "1234", false for "self", "net", "".
 */
bool nt_procnet_is_pid(const char *name);

/**
 * nt_procnet_find_inode() - the socket line of a whole file's text with this inode
 * @text: the file's text, NUL-terminated
 * @inode: the socket's inode (as sock_diag's idiag_inode gives it)
 * @out: filled on success
 *
 * Return: 0, or -ENOENT when no line has it.
 */
int nt_procnet_find_inode(const char *text, unsigned long inode, struct nt_procnet_tcp *out);

/**
 * nt_procnet_ticks_to_ms() - a clock_t value of /proc/net/tcp in milliseconds
 * @ticks: USER_HZ ticks
 *
 * Return: milliseconds.
 */
static inline uint64_t nt_procnet_ticks_to_ms(unsigned long ticks)
{
	return (uint64_t)ticks * 1000 / NT_PROCNET_USER_HZ;
}

/**
 * nt_procnet_netstat_value() - one counter of /proc/net/netstat or /proc/net/snmp
 * @text: the file's text, NUL-terminated: pairs of lines "Prefix: name name ..."
 *        then "Prefix: value value ..."
 * @prefix: the group without colon, e.g. "TcpExt"
 * @name: the counter, e.g. "DelayedACKs"
 * @out: set on success
 *
 * Return: 0; -ENOENT when the group or the counter is absent; -EINVAL when
 * the value line is missing, short or not a number.
 */
int nt_procnet_netstat_value(const char *text, const char *prefix, const char *name, uint64_t *out);

/**
 * nt_procnet_open() - a /proc/net file of the calling thread's network
 * namespace (/proc/thread-self/net/NAME: /proc/net follows the main
 * thread's, which a thread that entered another namespace is not in)
 * @name: "tcp", "tcp6", "netstat"
 *
 * Return: the descriptor (O_CLOEXEC), or -1 with errno set.
 */
int nt_procnet_open(const char *name);

/**
 * nt_procnet_read() - a /proc file's whole text from offset 0
 * @fd: the file, -1 fails
 * @buf: the buffer, NUL-terminated on success; grown with realloc() (a NULL
 *       *@buf starts at 16 KiB) while it is under @max_bytes
 * @bytes: its size, updated when it grows
 * @max_bytes: the most it may grow to; what does not fit is cut
 *
 * seq_read_iter() fills its page-sized buffer with whole records and stops
 * early only when the next record does not fit, so a read that asked for a
 * page or more (the buffer grows to leave that room) and got less than half
 * a page reached the end: no further pread() is made. A read that asked for
 * less gets at most what it asked, which says nothing of the end: taking it
 * for one cut /proc/net/tcp at 16 KiB, about 110 sockets. Each one at
 * a new offset walks the table again from the start, and for /proc/net/tcp
 * that walk is the whole established hash: a namespace made with the default
 * net.ipv4.tcp_child_ehash_entries = 0 shares the host's table (262144
 * buckets here, about 0.9 ms per walk).
 *
 * Return: true, or false when the file could not be read (or memory ran out).
 */
bool nt_procnet_read(int fd, char **buf, size_t *bytes, size_t max_bytes);

#endif
