#!/usr/bin/env python3
"""notifyrecv.py SOCKET SECONDS ERRFILE: systemd's side of sd_notify() for
test_daemon's test_service_notify. Binds the datagram socket SOCKET, then
prints each message it gets within SECONDS as one line: the time since
binding, and the message's assignments joined by '|'. A READY=1 line also
says whether ERRFILE (the tool's stderr) said "attached" by then.
Ends early on STOPPING=1."""
import os
import socket
import sys
import time

path, seconds, errfile = sys.argv[1], float(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
open(path + ".ready", "w").close()
start = time.monotonic()
while time.monotonic() - start < seconds:
    s.settimeout(max(0.01, seconds - (time.monotonic() - start)))
    try:
        msg = s.recv(4096).decode()
    except socket.timeout:
        break
    line = f"{time.monotonic() - start:.3f} " + "|".join(msg.strip().split("\n"))
    if "READY=1" in msg:
        with open(errfile) as f:
            line += " attached-before=%d" % ("attached" in f.read())
    print(line, flush=True)
    if "STOPPING=1" in msg:
        break
os.unlink(path)
