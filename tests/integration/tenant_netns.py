#!/usr/bin/env python3
"""A tenant's network namespaces, for test_groups.sh's test_owner_quota.

    tenant_netns.py N SECONDS GAP READY

Run as an unprivileged user: makes a user namespace of its own (as any
local user may where unprivileged user namespaces are allowed), then N
network namespaces in it, one after the other, each kept alive by a pair
of UDP sockets on its loopback; writes their inode numbers to READY, a
line each, once all exist, then
for SECONDS sends one datagram a namespace every GAP seconds (each read
back at once) and prints how many it sent.
"""
import ctypes
import fcntl
import os
import socket
import struct
import sys
import time

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCSIFFLAGS = 0x8914
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40

libc = ctypes.CDLL(None, use_errno=True)


def unshare(flags):
    if libc.unshare(flags):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def main():
    n, seconds, gap, ready = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    unshare(CLONE_NEWUSER)
    pairs, inodes = [], []
    for _ in range(n):
        unshare(CLONE_NEWNET)
        inodes.append(os.stat("/proc/self/ns/net").st_ino)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # struct ifreq: the name, the flags, padding to its 40 bytes
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))
        s.bind(("127.0.0.1", 0))
        pairs.append((s, socket.socket(socket.AF_INET, socket.SOCK_DGRAM)))
    with open(ready + ".tmp", "w") as f:
        f.write("".join("%d\n" % i for i in inodes))
    os.rename(ready + ".tmp", ready)
    sent, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for s, c in pairs:
            c.sendto(b"x", s.getsockname())
            s.recv(16)
            sent += 1
        time.sleep(gap)
    print(sent)


if __name__ == "__main__":
    main()
