// SPDX-License-Identifier: MIT
/*
 * test_community_id.c - nt_community_id_v1() gives the spec's published
 * values: every port-carrying flow of community-id-spec's baseline tables
 * (baseline_deflt.json, seed 0, and baseline_seed1.json, seed 1), in both
 * directions. ICMP rows carry the type/code already mapped to ports by the
 * spec's rule; the one row without ports (protocol 46) hashes no ports,
 * which no flow nagle-trace tracks has, and is left out.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/render/community_id.h"

/**
 * struct vector - one baseline row
 * @saddr: source address
 * @daddr: destination address
 * @seed0: the ID with seed 0
 * @seed1: the ID with seed 1
 * @sport: source port (ICMP: the mapped type)
 * @dport: destination port (ICMP: the mapped code)
 * @proto: IP protocol
 */
struct vector {
	const char *saddr, *daddr;
	const char *seed0, *seed1;
	uint16_t sport, dport;
	uint8_t proto;
};

/* clang-format off */
static const struct vector vectors[] = {
	{ "fe80::200:86ff:fe05:80da", "fe80::260:97ff:fe07:69ea",
	  "1:dGHyGvjMfljg6Bppwm3bg0LO8TY=", "1:kHa1FhMYIT6Ym2Vm2AOtoOARDzY=", 135, 136, 58 },
	{ "fe80::260:97ff:fe07:69ea", "fe80::200:86ff:fe05:80da",
	  "1:zavyT/cezQr1fmImYCwYnMXbgck=", "1:2hSqmsDZ2kdcY9kbiUzOEBic0iM=", 135, 136, 58 },
	{ "3ffe:501:1800:2345::2", "3ffe:507:0:1:200:86ff:fe05:80da",
	  "1:2ObVBgIn28oZvibYZhZMBgh7WdQ=", "1:lVEtCZpYu84Xqaa++3lXFyuu2n4=", 3, 0, 58 },
	{ "3ffe:501:410:0:2c0:dfff:fe47:33e", "3ffe:507:0:1:200:86ff:fe05:80da",
	  "1:hLZd0XGWojozrvxqE0dWB1iM6R0=", "1:W8MHwXpWzpoSTD+cGcaJr4u0ys8=", 1, 4, 58 },
	{ "3ffe:507:0:1:200:86ff:fe05:80da", "3ffe:501:0:1001::2",
	  "1:+TW+HtLHvV1xnGhV1lv7XoJrqQg=", "1:GfZxjAkDk2MkegpBYHV6tadtFXQ=", 128, 129, 58 },
	{ "fe80::200:86ff:fe05:80da", "ff02::2",
	  "1:hO+sN4H+MG5MY/8hIrXPqc4ZQz0=", "1:L7Ka0ZMYu+J3bL4ulW2PrqyXNo8=", 133, 134, 58 },
	{ "fe80::260:97ff:fe07:69ea", "ff02::1",
	  "1:pkvHqCL88/tg1k4cPigmZXUtL00=", "1:K/ee5UCqAMAQXDorP5nSa2CGLjc=", 134, 133, 58 },
	{ "192.168.0.89", "192.168.0.1",
	  "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=", "1:03g6IloqVBdcZlPyX8r0hgoE7kA=", 8, 0, 1 },
	{ "10.0.0.1", "10.0.0.2",
	  "1:YHxtAirCG//0OzkcVAukqKQN9xM=", "1:XjUibYHaafLQ3pxQeiMI8g25q20=", 11, 0, 1 },
	{ "2001:470:e5bf:dead:4957:2174:e82c:4887", "2607:f8b0:400c:c03::1a",
	  "1:/qFaeAR+gFe1KYjMzVDsMv+wgU4=", "1:eJYTW6AOzFLlSUoESovMjnu7rMw=", 63943, 25, 6 },
	{ "192.168.170.8", "192.168.170.56",
	  "1:MP2EtRCAUIZvTw6MxJHLV7N7JDs=", "1:5w3ZRjeKBzqT3zsaEECDGjUbYeg=", 7, 7, 132 },
	{ "128.232.110.120", "66.35.250.204",
	  "1:LQU9qZlK+B5F3KDmev6m5PMibrg=", "1:3V71V58M3Ksw/yuFALMcW0LAHvc=", 34855, 80, 6 },
	{ "192.168.1.52", "8.8.8.8",
	  "1:d/FP5EW3wiY1vCndhwleRRKHowQ=", "1:Q9We8WO3piVF8yEQBNJF4uiSVrI=", 54585, 53, 17 },
};
/* clang-format on */

static int parse(const char *s, uint8_t *addr)
{
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1)
		return AF_INET;
	assert_int_equal(inet_pton(AF_INET6, s, addr), 1);
	return AF_INET6;
}

static void check(const struct vector *v, uint16_t seed, const char *want)
{
	uint8_t s[16], d[16];
	int family = parse(v->saddr, s);
	char buf[NT_COMMUNITY_ID_LEN];

	assert_int_equal(parse(v->daddr, d), family);
	assert_string_equal(nt_community_id_v1(family, s, v->sport, d, v->dport, v->proto, seed,
					       buf, sizeof(buf)),
			    want);
	/* The other direction of the same flow: the same ID. */
	assert_string_equal(nt_community_id_v1(family, d, v->dport, s, v->sport, v->proto, seed,
					       buf, sizeof(buf)),
			    want);
}

static void test_baseline_seed0(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		check(&vectors[i], 0, vectors[i].seed0);
}

static void test_baseline_seed1(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		check(&vectors[i], 1, vectors[i].seed1);
}

/* The spec's example: both orders of 10.0.0.1:1234 <-> 127.0.0.1:80 order the same way. */
static void test_order_and_bad_input(void **state)
{
	uint8_t a[16], b[16];
	char x[NT_COMMUNITY_ID_LEN], y[NT_COMMUNITY_ID_LEN], small[8];

	(void)state;
	parse("10.0.0.1", a);
	parse("127.0.0.1", b);
	nt_community_id_v1(AF_INET, a, 1234, b, 80, NT_COMMUNITY_ID_TCP, 0, x, sizeof(x));
	nt_community_id_v1(AF_INET, b, 80, a, 1234, NT_COMMUNITY_ID_TCP, 0, y, sizeof(y));
	assert_string_equal(x, y);
	assert_int_equal(strlen(x), NT_COMMUNITY_ID_LEN - 1);
	/* Equal addresses: the ports decide, and the ID still joins both directions. */
	nt_community_id_v1(AF_INET, a, 9, a, 7, NT_COMMUNITY_ID_TCP, 0, x, sizeof(x));
	nt_community_id_v1(AF_INET, a, 7, a, 9, NT_COMMUNITY_ID_TCP, 0, y, sizeof(y));
	assert_string_equal(x, y);
	assert_string_equal(nt_community_id_v1(AF_UNIX, a, 1, b, 2, 6, 0, x, sizeof(x)), "");
	assert_string_equal(nt_community_id_v1(AF_INET, a, 1, b, 2, 6, 0, small, sizeof(small)),
			    "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_seed0),
		cmocka_unit_test(test_baseline_seed1),
		cmocka_unit_test(test_order_and_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
