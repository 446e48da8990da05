#!/usr/bin/env bash
# The link benches' network namespace (bench/netem/README.md): run under `unshare -n` (a private
# network namespace, gone with its last process, devices and routes with it), it routes the given
# TCP ports' packets through two TUN devices — client -> server out of `tuna`, server -> client
# out of `tunb` — for the packet emulator (netem.py) to carry between them, then runs the command.
#   unshare -n bench/netem/netns.sh <port>[,<port>…] -- <command…>
set -euo pipefail

ports=${1:?usage: netns.sh <port>[,<port>...] -- <command...>}
shift
[ "${1:-}" = "--" ] && shift

ip link set lo up
# Chromium reports navigator.onLine === false without a route off loopback, and the uploader then
# pauses: a veth with an address and a default route (to nowhere) makes the machine "online".
ip link add nsv0 type veth peer name nsv1
ip addr add 10.213.0.1/24 dev nsv0
ip link set nsv0 up
ip link set nsv1 up
ip route add default via 10.213.0.2
# No IPv6: `localhost` must be 127.0.0.1, whose packets go through the emulator, never ::1 on
# plain loopback.
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.lo.disable_ipv6=1

ip tuntap add dev tuna mode tun
ip tuntap add dev tunb mode tun
ip link set tuna up mtu 1500
ip link set tunb up mtu 1500
# Packets from 127.0.0.1 to 127.0.0.1 arriving on a TUN device: accepted as local, not filtered.
for i in all default lo tuna tunb; do
  sysctl -qw "net.ipv4.conf.$i.rp_filter=0" "net.ipv4.conf.$i.accept_local=1" "net.ipv4.conf.$i.route_localnet=1"
done
ip route add default dev tuna table 100 src 127.0.0.1
ip route add default dev tunb table 101 src 127.0.0.1
pref=10
for port in ${ports//,/ }; do
  ip rule add pref "$pref" iif lo ipproto tcp dport "$port" lookup 100
  ip rule add pref $((pref + 1)) iif lo ipproto tcp sport "$port" lookup 101
  pref=$((pref + 2))
done
# The local table must come after those rules, or it would deliver the packets straight away.
ip rule del pref 0 lookup local
ip rule add pref 100 lookup local

exec "$@"
