#!/usr/bin/env python3
"""A tenant's cgroups, for test_groups.sh's test_owner_quota_cgroups.

    tenant_cgroups.py DIR N SECONDS GAP READY [SUBUID]

Run as an unprivileged user in the cgroup DIR, which was delegated to it
(chowned to it, as systemd's Delegate= does): makes N cgroups under DIR
and a process in each, which holds a TCP connection to itself over
127.0.0.1 and, for SECONDS, sends 64 bytes every GAP seconds and reads
them on the other end. Writes the cgroups' ids (their directories' inode
numbers), a line each, to READY once every process is in its cgroup, and
prints the reads of all of them at the end.

With SUBUID: run as root in DIR, which nobody (65534) owns; the tenant
is nobody in a rootless user namespace of its own, whose uids 1 to
65536 are the subordinate uids SUBUID to SUBUID + 65535 (as newuidmap
maps /etc/subuid's range; root writes the map here): there it chowns
cgroup i to its uid i + 1 before a reader moves in (issue #47 item 3).
"""
import ctypes
import os
import socket
import sys
import time


def child(cg, seconds, gap, report):
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write("%d\n" % os.getpid())
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    c = socket.create_connection(lst.getsockname())
    s, _ = lst.accept()
    os.write(report, b"R")  # in its cgroup, connected
    reads, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        c.sendall(b"x" * 64)
        got = 0
        while got < 64:
            got += len(s.recv(64 - got))
            reads += 1
        time.sleep(gap)
    os.write(report, b"%d\n" % reads)


CLONE_NEWUSER = 0x10000000


def rootless_userns(subuid):
    """Forks; the child returns as nobody in a user namespace where it is
    root and uids 1.. are subordinate, the parent waits for it and exits
    with its status."""
    r, w = os.pipe()
    r2, w2 = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWUSER):
            sys.exit("unshare(CLONE_NEWUSER): %s" % os.strerror(ctypes.get_errno()))
        os.write(w, b"u")
        if os.read(r2, 1) != b"m":
            sys.exit("no uid map")
        return
    if os.read(r, 1) != b"u":
        sys.exit("the tenant did not make its user namespace")
    for f in ("uid_map", "gid_map"):
        with open("/proc/%d/%s" % (pid, f), "w") as m:
            m.write("0 65534 1\n1 %d 65536\n" % subuid)
    os.write(w2, b"m")
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


def main():
    top, n, seconds, gap, ready = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \
        float(sys.argv[4]), sys.argv[5]
    subuid = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    if subuid:
        rootless_userns(subuid)
    ids, pipes = [], []
    for i in range(n):
        cg = os.path.join(top, "c%d" % i)
        os.mkdir(cg)
        if subuid:
            os.chown(cg, i + 1, i + 1)
        ids.append(os.stat(cg).st_ino)
        r, w = os.pipe()
        if os.fork() == 0:
            os.close(r)
            try:
                child(cg, seconds, gap, w)
            finally:
                os._exit(0)
        os.close(w)
        pipes.append(r)
    for r in pipes:
        if os.read(r, 1) != b"R":
            sys.exit("a child did not start")
    with open(ready + ".tmp", "w") as f:
        f.write("".join("%d\n" % i for i in ids))
    os.rename(ready + ".tmp", ready)
    total = 0
    for r in pipes:
        data = b""
        while True:
            chunk = os.read(r, 64)
            if not chunk:
                break
            data += chunk
        total += int(data or b"0")
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    print(total)


if __name__ == "__main__":
    main()
