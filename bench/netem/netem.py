#!/usr/bin/env python3
"""The link benches' packet-level link emulator (bench/netem/README.md).

Inside the bench's private network namespace (bench/netem/netns.sh), the kernel routes the
emulated ports' TCP packets from the clients out of one TUN device (client -> server: the uplink)
and the servers' packets out of another (server -> client: the downlink). This process reads each
packet from one device and writes it into the other when the emulated link would have delivered
it, so the real TCP of Chromium and s3rver runs across a link with real delay, real queues and
real packet loss, and nothing in the applications changes.

Per direction and per packet, as the timeline says at that moment (the segments come from the
sandbox's profile module, sandbox/src/link-profile.ts, as JSON, so both emulators show one link):
  1. a byte-limited drop-tail queue (the uplink's `queueBytes`, the modem's buffer) served at the
     direction's rate (`mbit` up, `downMbit` down);
  2. random loss at the segment's probability;
  3. the one-way delay, half the segment's round trip (in order: a packet never overtakes another);
  4. during an outage everything is dropped: arrivals, what reaches the head of the queue, and
     what would arrive at the far end.

Control on stdin, one command a line: `stats` answers one JSON line on stdout with the counters
(bytes and packets carried and dropped, by cause, per direction) and `t`, ms since the link
started. End of stdin (the bench ended, or died) ends this process; so does SIGTERM.

Python's standard library only (no build step, on every machine that runs the benches); at the
benches' rates (at most 20 Mbit/s: under 2,000 packets a second each way) its few tens of
microseconds per packet are well below the time between packets.
"""
import argparse
import bisect
import collections
import fcntl
import json
import os
import random
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
# The downlink carries ACKs and small responses: a queue of its own, deep enough never to matter.
DOWN_QUEUE_BYTES = 1 << 20


def open_tun(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


class Timeline:
    """The link's segments in order from t = 0 ms; the last one lasts for ever."""

    def __init__(self, segments):
        self.segments = segments
        self.starts = [s["startMs"] for s in segments]

    def at(self, t):
        i = bisect.bisect_right(self.starts, t) - 1
        return self.segments[max(0, min(i, len(self.segments) - 1))]


def counter():
    return {"bytes": 0, "packets": 0}


class Direction:
    """One way across the link: queue, serialisation at the rate, loss, delay, outages."""

    def __init__(self, timeline, rate_key, queue_limit, rng, src, dst):
        self.timeline = timeline
        self.rate_key = rate_key
        self.queue_limit = queue_limit
        self.rng = rng
        self.src = src
        self.dst = dst
        self.queue = collections.deque()  # (arrived_ms, packet)
        self.queued = 0
        self.serving = None  # (done_at_ms, packet)
        self.free_at = 0.0
        self.line = collections.deque()  # (due_ms, packet), due non-decreasing
        self.last_due = 0.0
        self.carried = counter()
        self.dropped = {"queue": counter(), "loss": counter(), "outage": counter(), "write": counter()}

    def drop(self, cause, packet):
        self.dropped[cause]["bytes"] += len(packet)
        self.dropped[cause]["packets"] += 1

    def arrive(self, packet, now):
        segment = self.timeline.at(now)
        if segment["down"]:
            return self.drop("outage", packet)
        if self.queued + len(packet) > self.queue_limit(segment):
            return self.drop("queue", packet)
        self.queue.append((now, packet))
        self.queued += len(packet)

    def step(self, now):
        """Moves packets along: finished serialisations to the delay line, the next into service, arrivals out."""
        while True:
            if self.serving is not None:
                done_at, packet = self.serving
                if done_at > now:
                    break
                self.serving = None
                self.depart(packet, done_at)
            if not self.queue:
                break
            # Back to back with the previous packet when this one was waiting (this loop may run a
            # little late: the link's time must not slip with it).
            arrived, packet = self.queue[0]
            start = max(arrived, self.free_at)
            if start > now:
                break
            self.queue.popleft()
            segment = self.timeline.at(start)
            self.queued -= len(packet)
            if segment["down"]:
                self.drop("outage", packet)
                continue
            done_at = start + len(packet) * 8 / (segment[self.rate_key] * 1000.0)
            self.free_at = done_at
            self.serving = (done_at, packet)
        while self.line and self.line[0][0] <= now:
            _, packet = self.line.popleft()
            try:
                os.write(self.dst, packet)
                self.carried["bytes"] += len(packet)
                self.carried["packets"] += 1
            except OSError:
                self.drop("write", packet)

    def depart(self, packet, at):
        segment = self.timeline.at(at)
        if segment["down"]:
            return self.drop("outage", packet)
        if segment["loss"] > 0 and self.rng.random() < segment["loss"]:
            return self.drop("loss", packet)
        due = max(at + segment["rttMs"] / 2.0, self.last_due)
        if self.timeline.at(due)["down"]:
            return self.drop("outage", packet)
        self.last_due = due
        self.line.append((due, packet))

    def next_event(self):
        times = []
        if self.serving is not None:
            times.append(self.serving[0])
        if self.line:
            times.append(self.line[0][0])
        return min(times) if times else None

    def read(self, now):
        for _ in range(256):
            try:
                packet = os.read(self.src, 65535)
            except BlockingIOError:
                return
            if not packet:
                return
            self.arrive(packet, now)

    def stats(self):
        return {"carried": self.carried, "dropped": self.dropped, "queued": self.queued}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeline", required=True, help="JSON file: {segments: [...]} (sandbox/src/link-profile.ts timelineJson)")
    parser.add_argument("--up", default="tuna", help="the TUN device the clients' packets leave by")
    parser.add_argument("--down", default="tunb", help="the TUN device the servers' packets leave by")
    parser.add_argument("--seed", type=int, default=1, help="the loss draws' seed")
    args = parser.parse_args()

    with open(args.timeline, encoding="utf-8") as f:
        timeline = Timeline(json.load(f)["segments"])
    up_fd = open_tun(args.up)
    down_fd = open_tun(args.down)
    rng = random.Random(args.seed)
    started = time.monotonic()

    def clock():
        return (time.monotonic() - started) * 1000.0

    up = Direction(timeline, "mbit", lambda segment: segment["queueBytes"], rng, up_fd, down_fd)
    down = Direction(timeline, "downMbit", lambda segment: DOWN_QUEUE_BYTES, rng, down_fd, up_fd)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    stdin = sys.stdin.fileno()
    os.set_blocking(stdin, False)
    pending = b""
    print(json.dumps({"ready": True, "t": clock()}), flush=True)

    while True:
        now = clock()
        events = [e for e in (up.next_event(), down.next_event()) if e is not None]
        timeout = max(0.0, (min(events) - now) / 1000.0) if events else 1.0
        readable, _, _ = select.select([up_fd, down_fd, stdin], [], [], min(timeout, 1.0))
        now = clock()
        if up_fd in readable:
            up.read(now)
        if down_fd in readable:
            down.read(now)
        up.step(now)
        down.step(now)
        if stdin in readable:
            chunk = os.read(stdin, 4096)
            if not chunk:
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if line.strip() == b"stats":
                    print(json.dumps({"t": clock(), "up": up.stats(), "down": down.stats()}), flush=True)


if __name__ == "__main__":
    main()
