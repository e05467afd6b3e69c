// SPDX-License-Identifier: MIT
/*
 * mkcap.c - write synthetic but realistic captures for analyze's golden
 * tests and benchmark, with libpcap's dumper.
 *
 * usage: mkcap SCENARIO OUT.pcap
 *        mkcap bench OUT.pcap FLOWS ROUNDS [WAVES]
 *
 * Every scenario is one request/response connection (client 10.0.0.1 or
 * fd00::1, port 40000, to target :7000): handshake with MSS options, rounds of
 * write(header 4) write(body 8) read(reply 2), then FIN. Checksums are right,
 * so tshark and tcpdump read the files as they would a real capture. Times
 * start at 2023-11-14T22:13:20Z and are fixed: the files are reproducible.
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_US 1000LL
#define NS_MS 1000000LL
#define T0_NS 1700000000000000000LL

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

struct cap {
	pcap_t *p;
	pcap_dumper_t *d;
	int linktype;
	int snaplen;
	bool v6;
	bool vlan;
};

struct conn {
	struct cap *cap;
	uint32_t seq[2]; /* next sequence number per side: 0 client, 1 target */
	uint16_t port[2];
	uint8_t host; /* the client's address is 10.0.HOST.1 (bench: past 50,000 flows) */
};

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The link header of side @from's frame into @f; returns its length. */
static size_t put_link(const struct cap *cap, int from, uint8_t *f)
{
	uint16_t ethertype = cap->v6 ? 0x86dd : 0x0800;
	size_t off = 0;

	if (cap->linktype == DLT_EN10MB) {
		static const uint8_t mac[2][6] = { { 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 } };

		memcpy(f, mac[!from], 6);
		memcpy(f + 6, mac[from], 6);
		off = 12;
		if (cap->vlan) {
			f[off++] = 0x81;
			f[off++] = 0x00;
			f[off++] = 0x00;
			f[off++] = 42;
		}
		f[off++] = (uint8_t)(ethertype >> 8);
		f[off++] = (uint8_t)ethertype;
	} else if (cap->linktype == DLT_LINUX_SLL2) {
		f[0] = (uint8_t)(ethertype >> 8);
		f[1] = (uint8_t)ethertype;
		f[7] = 2;	      /* ifindex */
		f[9] = 1;	      /* ARPHRD_ETHER */
		f[10] = from ? 0 : 4; /* PACKET_HOST or PACKET_OUTGOING */
		f[11] = 6;
		f[12] = 2;
		f[17] = (uint8_t)(1 + from);
		off = 20;
	}
	return off;
}

/* The IP header at @ip for @l4_bytes of TCP from @src to @dst; returns its length. */
static size_t put_ip(const struct cap *cap, uint8_t *ip, const uint8_t *src, const uint8_t *dst,
		     size_t l4_bytes)
{
	if (cap->v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)(l4_bytes >> 8);
		ip[5] = (uint8_t)l4_bytes;
		ip[6] = 6;
		ip[7] = 64;
		memcpy(ip + 8, src, 16);
		memcpy(ip + 24, dst, 16);
		return 40;
	}
	uint16_t tot = (uint16_t)(20 + l4_bytes);

	ip[0] = 0x45;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	uint16_t ck = fold(sum16(ip, 20, 0));
	ip[10] = (uint8_t)(ck >> 8);
	ip[11] = (uint8_t)ck;
	return 20;
}

/* The TCP header (@tcp_len bytes) and @len payload bytes of side @from at @t, checksum 0. */
static void put_tcp(const struct conn *c, int from, uint8_t *t, size_t tcp_len, uint8_t flags,
		    uint32_t len, uint32_t ack)
{
	uint32_t seq = c->seq[from];

	t[0] = (uint8_t)(c->port[from] >> 8);
	t[1] = (uint8_t)c->port[from];
	t[2] = (uint8_t)(c->port[!from] >> 8);
	t[3] = (uint8_t)c->port[!from];
	for (int i = 0; i < 4; i++) {
		t[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
		t[8 + i] = (uint8_t)((flags & 0x10 ? ack : 0) >> (24 - 8 * i));
	}
	t[12] = (uint8_t)((tcp_len / 4) << 4);
	t[13] = flags;
	t[14] = 0xfa;
	t[15] = 0xf0;
	if (flags & 0x02) {
		uint16_t mss = c->cap->v6 ? 1440 : 1460;

		t[20] = 2;
		t[21] = 4;
		t[22] = (uint8_t)(mss >> 8);
		t[23] = (uint8_t)mss;
	}
	for (uint32_t i = 0; i < len; i++)
		t[tcp_len + i] = (uint8_t)('a' + i % 26);
}

/* One segment from side @from (0 client, 1 target) at @t_ns. */
static void emit(struct conn *c, int from, int64_t t_ns, uint8_t flags, uint32_t len, uint32_t ack)
{
	struct cap *cap = c->cap;
	uint8_t f[2048];
	size_t off, tcp_len = flags & 0x02 ? 24 : 20;
	uint8_t src[16] = { 0 }, dst[16] = { 0 };
	size_t alen = cap->v6 ? 16 : 4;

	memset(f, 0, sizeof(f));
	if (cap->v6) {
		inet_pton(AF_INET6, from ? "fd00::2" : "fd00::1", src);
		inet_pton(AF_INET6, from ? "fd00::1" : "fd00::2", dst);
	} else {
		inet_pton(AF_INET, from ? "10.0.0.2" : "10.0.0.1", src);
		inet_pton(AF_INET, from ? "10.0.0.1" : "10.0.0.2", dst);
		(from ? dst : src)[2] = c->host;
	}
	off = put_link(cap, from, f);
	off += put_ip(cap, f + off, src, dst, tcp_len + len);
	uint8_t *t = f + off;

	put_tcp(c, from, t, tcp_len, flags, len, ack);
	off += tcp_len + len;

	/* TCP checksum over the pseudo-header (RFC 9293 §3.1, RFC 8200 §8.1). */
	uint32_t s = sum16(src, alen, 0);
	s = sum16(dst, alen, s);
	s += 6 + (uint32_t)(tcp_len + len);
	uint16_t ck = fold(sum16(t, tcp_len + len, s));
	t[16] = (uint8_t)(ck >> 8);
	t[17] = (uint8_t)ck;

	struct pcap_pkthdr h;
	int64_t at = T0_NS + t_ns;

	h.ts.tv_sec = (time_t)(at / 1000000000LL);
	h.ts.tv_usec = (suseconds_t)(at % 1000000000LL); /* nanoseconds: a NANO dumper */
	h.len = (uint32_t)off;
	h.caplen = (uint32_t)off < (uint32_t)cap->snaplen ? (uint32_t)off : (uint32_t)cap->snaplen;
	pcap_dump((u_char *)cap->d, &h, f);
	c->seq[from] += len + ((flags & 0x03) ? 1 : 0);
}

#define SYN  0x02
#define FIN  0x01
#define ACKF 0x10
#define PSH  0x08

static void conn_init(struct conn *c, struct cap *cap, uint16_t cport)
{
	memset(c, 0, sizeof(*c)); /* host 0: 10.0.0.1, as every scenario but bench's */
	c->cap = cap;
	c->seq[0] = 1000000;
	c->seq[1] = 3000000000u;
	c->port[0] = cport;
	c->port[1] = 7000;
}

/* Seen at the client: SYN-ACK one rtt after the SYN; at the target: the ACK is. */
static void handshake(struct conn *c, int64_t t, int64_t rtt_ns, bool at_target)
{
	emit(c, 0, t, SYN, 0, 0);
	t += at_target ? 20 * NS_US : rtt_ns;
	emit(c, 1, t, SYN | ACKF, 0, c->seq[0]);
	t += at_target ? rtt_ns : 20 * NS_US;
	emit(c, 0, t, ACKF, 0, c->seq[1]);
}

static void teardown(struct conn *c, int64_t t)
{
	emit(c, 0, t, FIN | ACKF, 0, c->seq[1]);
	emit(c, 1, t + 30 * NS_US, FIN | ACKF, 0, c->seq[0]);
	emit(c, 0, t + 60 * NS_US, ACKF, 0, c->seq[1]);
}

enum pattern {
	P_STALL,     /* write(4) write(8): body held until the 40 ms delayed ACK */
	P_NODELAY,   /* TCP_NODELAY: header and body back to back */
	P_WRITEV,    /* one 12-byte segment */
	P_THINK,     /* the ACK is late but the body is written 300 ms later */
	P_DELACK200, /* the delayed ACK fires at 200 ms */
};

/*
 * One round at @t seen at the client (rtt 0) or at the target (rtt > 0:
 * the client's segments arrive one rtt after the target's reach it).
 * Returns the round's end.
 */
static int64_t round_at(struct conn *c, int64_t t, enum pattern pat, int64_t rtt, int64_t delack)
{
	switch (pat) {
	case P_STALL:
	case P_DELACK200:
		emit(c, 0, t, PSH | ACKF, 4, c->seq[1]);
		emit(c, 1, t + delack, ACKF, 0, c->seq[0]);
		t += delack + rtt + 20 * NS_US;
		emit(c, 0, t, PSH | ACKF, 8, c->seq[1]);
		break;
	case P_NODELAY:
		emit(c, 0, t, PSH | ACKF, 4, c->seq[1]);
		emit(c, 0, t + 15 * NS_US, PSH | ACKF, 8, c->seq[1]);
		t += 15 * NS_US;
		break;
	case P_WRITEV:
		emit(c, 0, t, PSH | ACKF, 12, c->seq[1]);
		break;
	case P_THINK:
		emit(c, 0, t, PSH | ACKF, 4, c->seq[1]);
		emit(c, 1, t + delack, ACKF, 0, c->seq[0]);
		t += 300 * NS_MS;
		emit(c, 0, t, PSH | ACKF, 8, c->seq[1]);
		break;
	}
	/* The reply, acknowledging the whole request; its ACK rides on the next round. */
	emit(c, 1, t + 40 * NS_US, PSH | ACKF, 2, c->seq[0]);
	return t + 40 * NS_US + rtt;
}

static int open_cap(struct cap *cap, int linktype, int snaplen, const char *path)
{
	cap->linktype = linktype;
	cap->snaplen = snaplen;
	cap->p =
		pcap_open_dead_with_tstamp_precision(linktype, snaplen, PCAP_TSTAMP_PRECISION_NANO);
	if (!cap->p)
		return -1;
	cap->d = pcap_dump_open(cap->p, path);
	if (!cap->d) {
		fprintf(stderr, "mkcap: %s: %s\n", path, pcap_geterr(cap->p));
		return -1;
	}
	return 0;
}

static void close_cap(struct cap *cap)
{
	pcap_dump_close(cap->d);
	pcap_close(cap->p);
}

static void one_conn(struct cap *cap, enum pattern pat, int rounds, int64_t rtt, int64_t delack)
{
	struct conn c;
	int64_t t = 0;

	conn_init(&c, cap, 40000);
	handshake(&c, t, rtt ? rtt : 30 * NS_US, rtt > 0);
	t = 1 * NS_MS;
	for (int r = 0; r < rounds; r++) {
		t = round_at(&c, t, pat, rtt, delack);
		t += 10 * NS_MS;
	}
	teardown(&c, t);
}

struct ev {
	int64_t t;
	uint32_t flow;
	uint8_t step;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->flow != y->flow ? (x->flow < y->flow ? -1 : 1) : x->step - y->step;
}

/* Client ports 10000..59999 on one client address, then the next address. */
#define BENCH_FLOWS_PER_HOST 50000u
#define BENCH_FLOWS_MAX	     (250u * BENCH_FLOWS_PER_HOST)
/*
 * A wave's rounds begin this long after its handshakes, one a period, the
 * flows' starts spread over the first half of each (bench_wave(), bench()).
 */
#define BENCH_ROUNDS_AT_NS (1000 * NS_MS)
#define BENCH_PERIOD_NS	   (100 * NS_MS)
#define BENCH_SPREAD_NS	   (50 * NS_MS)

/*
 * One wave from @t0 on: FLOWS connections (@c, @ev: room for them), each
 * ROUNDS stalled rounds, interleaved in time order.
 */
static void bench_wave(struct conn *c, struct ev *ev, struct cap *cap, uint32_t flows,
		       uint32_t rounds, int64_t t0)
{
	for (uint32_t i = 0; i < flows; i++) {
		conn_init(&c[i], cap, (uint16_t)(10000 + i % BENCH_FLOWS_PER_HOST));
		c[i].host = (uint8_t)(i / BENCH_FLOWS_PER_HOST);
		handshake(&c[i], t0 + (int64_t)i * 1000, 30 * NS_US, false);
	}
	for (uint32_t r = 0; r < rounds; r++) {
		size_t n = 0;

		for (uint32_t i = 0; i < flows; i++) {
			int64_t base = t0 + BENCH_ROUNDS_AT_NS + (int64_t)r * BENCH_PERIOD_NS +
				       (int64_t)i * BENCH_SPREAD_NS / flows;

			ev[n++] = (struct ev){ base, i, 0 };
			ev[n++] = (struct ev){ base + 40 * NS_MS, i, 1 };
			ev[n++] = (struct ev){ base + 40 * NS_MS + 20 * NS_US, i, 2 };
			ev[n++] = (struct ev){ base + 40 * NS_MS + 60 * NS_US, i, 3 };
		}
		qsort(ev, n, sizeof(*ev), cmp_ev);
		for (size_t k = 0; k < n; k++) {
			struct conn *x = &c[ev[k].flow];

			switch (ev[k].step) {
			case 0:
				emit(x, 0, ev[k].t, PSH | ACKF, 4, x->seq[1]);
				break;
			case 1:
				emit(x, 1, ev[k].t, ACKF, 0, x->seq[0]);
				break;
			case 2:
				emit(x, 0, ev[k].t, PSH | ACKF, 8, x->seq[1]);
				break;
			default:
				emit(x, 1, ev[k].t, PSH | ACKF, 2, x->seq[0]);
				break;
			}
		}
	}
}

/* Between waves: longer than analyze's idle timeout (60 s), so a wave's flows leave its table. */
#define BENCH_WAVE_GAP_NS (61000 * NS_MS)

/*
 * bench_wave() WAVES times over, each wave BENCH_WAVE_GAP_NS after the last
 * one's end, on the same ports with new handshakes: new connections.
 */
static int bench(struct cap *cap, uint32_t flows, uint32_t rounds, uint32_t waves)
{
	struct conn *c = calloc(flows, sizeof(*c));
	struct ev *ev = calloc((size_t)flows * 4, sizeof(*ev));
	const int64_t wave_ns =
		BENCH_ROUNDS_AT_NS + (int64_t)rounds * BENCH_PERIOD_NS + BENCH_WAVE_GAP_NS;

	if (!c || !ev || flows > BENCH_FLOWS_MAX) {
		free(c);
		free(ev);
		return -1;
	}
	for (uint32_t w = 0; w < waves; w++)
		bench_wave(c, ev, cap, flows, rounds, (int64_t)w * wave_ns);
	free(c);
	free(ev);
	return 0;
}

int main(int argc, char **argv)
{
	struct cap cap = { 0 };
	const char *sc;
	int ret = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: mkcap SCENARIO OUT.pcap | "
				"mkcap bench OUT.pcap FLOWS ROUNDS [WAVES]\n");
		return 2;
	}
	sc = argv[1];
	if (strcmp(sc, "bench") == 0) {
		if (argc < 5 || argc > 6 || open_cap(&cap, DLT_EN10MB, 262144, argv[2]) < 0)
			return 2;
		ret = bench(&cap, (uint32_t)strtoul(argv[3], NULL, 10),
			    (uint32_t)strtoul(argv[4], NULL, 10),
			    argc == 6 ? (uint32_t)strtoul(argv[5], NULL, 10) : 1);
		close_cap(&cap);
		return ret ? 1 : 0;
	}

	int lt = DLT_EN10MB, snap = 262144;
	enum pattern pat = P_STALL;
	int64_t rtt = 0, delack = 40 * NS_MS + 317 * NS_US;

	if (strcmp(sc, "eth-stall") == 0) {
	} else if (strcmp(sc, "sll2-stall") == 0) {
		lt = DLT_LINUX_SLL2;
	} else if (strcmp(sc, "raw-stall") == 0) {
		lt = DLT_RAW;
	} else if (strcmp(sc, "ipv6-stall") == 0) {
		cap.v6 = true;
	} else if (strcmp(sc, "vlan-stall") == 0) {
		cap.vlan = true;
	} else if (strcmp(sc, "snap54-stall") == 0) {
		snap = 54;
	} else if (strcmp(sc, "receiver-stall") == 0) {
		rtt = 2 * NS_MS;
	} else if (strcmp(sc, "delack200") == 0) {
		pat = P_DELACK200;
		delack = 200 * NS_MS + 1 * NS_MS;
	} else if (strcmp(sc, "nodelay") == 0) {
		pat = P_NODELAY;
	} else if (strcmp(sc, "writev") == 0) {
		pat = P_WRITEV;
	} else if (strcmp(sc, "think") == 0) {
		pat = P_THINK;
	} else {
		fprintf(stderr, "mkcap: unknown scenario \"%s\"\n", sc);
		return 2;
	}
	if (open_cap(&cap, lt, snap, argv[2]) < 0)
		return 1;
	one_conn(&cap, pat, 4, rtt, delack);
	close_cap(&cap);
	return 0;
}
