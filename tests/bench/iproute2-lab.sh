#!/bin/sh
# SPDX-License-Identifier: MIT
# The iproute2 reference: the same two namespaces, veth pair, addresses and
# links made with `ip`, then deleted. Run inside `unshare -Urnm` with a private
# tmpfs on /run, so its named namespaces never exist outside that mount namespace.
set -e
mount -t tmpfs none /run
ip netns add nt-bench-c
ip netns add nt-bench-t
ip link add nt-c netns nt-bench-c type veth peer name nt-t netns nt-bench-t
ip -n nt-bench-c link set lo up
ip -n nt-bench-t link set lo up
ip -n nt-bench-c addr add 192.0.2.1/30 dev nt-c
ip -n nt-bench-t addr add 192.0.2.2/30 dev nt-t
ip -n nt-bench-c link set nt-c up
ip -n nt-bench-t link set nt-t up
ip netns del nt-bench-c
ip netns del nt-bench-t
