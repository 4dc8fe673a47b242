#!/usr/bin/env python3
"""prototype_standing.py SERVER_JSON [TARGET_NS INTERVAL_NS]: the upstream
prototype's standing-queue episodes (never merged; docs/hooks.md,
"Standing queues"), from the reads a trafficgen server recorded with
--rx-stamps, so that test_standing.sh sets its semantics beside the
tool's on the very same reads. Its rules, per socket, at the read hook
only: a read whose sojourn (now minus the RX stamp of what it read) is
at or above target extends the episode (first_above, last_above); a
read below target, or one that leaves the queue empty, ends it, and an
episode of at least interval is recorded with its length. A read left
the queue empty when the reader's next poll() did not find data at once
(more than 200 us after the read returned), or it is the last read.
Prints "EPISODES TOTAL_MS"."""
import json
import sys

path = sys.argv[1]
target = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
interval = int(sys.argv[3]) if len(sys.argv) > 3 else 10000000
reads = json.load(open(path))["rx"]
first = last = 0
episodes = []


def end():
    global first, last
    if first and last - first >= interval:
        episodes.append(last - first)
    first = last = 0


for i, (ready, start, stamp, done, nbytes) in enumerate(reads):
    if stamp <= 0:
        continue
    if done - stamp >= target:
        first = first or done
        last = done
    else:
        end()
    if i + 1 == len(reads) or reads[i + 1][0] - done > 200000:
        end()
print(len(episodes), sum(episodes) // 1000000)
