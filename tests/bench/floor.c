// SPDX-License-Identifier: MIT
/*
 * floor.c - the reference the lab-cost benchmark divides by: the least any
 * program must do to make a two-namespace lab with a capture, as a whole
 * process. With no argument: two fresh network namespaces. With "packet":
 * also one AF_PACKET socket bound to loopback, then closed (closing it waits
 * for an RCU grace period in packet_release()).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (unshare(CLONE_NEWNET) < 0 || unshare(CLONE_NEWNET) < 0) {
		perror("floor: unshare");
		return 3;
	}
	if (argc > 1 && strcmp(argv[1], "packet") == 0) {
		struct sockaddr_ll sll = { .sll_family = AF_PACKET,
					   .sll_protocol = htons(ETH_P_ALL),
					   .sll_ifindex = 1 };
		int fd = socket(AF_PACKET, SOCK_RAW, 0);

		if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			perror("floor: AF_PACKET");
			return 3;
		}
		close(fd);
	}
	return 0;
}
