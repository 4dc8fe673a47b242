#!/usr/bin/env python3
"""jailwatch.py PID KILLS SECONDS: watches the grandchildren of process PID
(the tool: its /metrics servers, started by its child the starter,
src/4-sink/jailproc.c) for SECONDS, polling
every millisecond, and SIGKILLs the first KILLS new ones the moment they
appear: before they can say they serve, as a child that cannot start
would fail. Prints "child PID T KILLED|KEPT" for each new child, T the
CLOCK_MONOTONIC second it was first seen."""
import glob
import os
import signal
import sys
import time


def children(pid):
    found = set()
    for f in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            with open(f) as fh:
                found.update(int(c) for c in fh.read().split())
        except OSError:
            pass
    return found


def grandchildren(pid):
    found = set()
    for c in children(pid):
        found.update(children(c))
    return found


def main():
    pid, kills, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    seen = grandchildren(pid)
    end = time.monotonic() + seconds
    while time.monotonic() < end and os.path.exists(f"/proc/{pid}"):
        for c in sorted(grandchildren(pid) - seen):
            seen.add(c)
            t = time.monotonic()
            if kills > 0:
                try:
                    os.kill(c, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                kills -= 1
                print(f"child {c} {t:.3f} KILLED", flush=True)
            else:
                print(f"child {c} {t:.3f} KEPT", flush=True)
        time.sleep(0.001)


if __name__ == "__main__":
    main()
