#!/usr/bin/env python3
"""Attacks on netstacklat's /metrics server, each while a scraper scrapes
as Prometheus does (its Accept header, 10 s timeout, once a second).
Bounded in count and time; loopback only.

The attackers connect from other loopback addresses than the scraper
(127.0.0.2 and up: all of 127/8 is loopback), as they would come from
other hosts in the real world, so that the server's per-address limits
keep them apart from the scraper at 127.0.0.1; `same_address` attacks
from the scraper's own address, to show what happens then.

    httpattack.py HOST PORT ATTACK

Prints "FAIL: ..." per failed check and one "MEASURED {json}" line;
exits 1 if a check failed. The orchestration, file descriptors and
memory of the tool are tests/integration/test_http_abuse.sh's.
"""
import json
import multiprocessing
import resource
import selectors
import socket
import sys
import threading
import time

from httpcheck import accepts, ask, connect, parse, prom_scrape, read_all, request_cases

HOST, PORT = sys.argv[1], int(sys.argv[2])
ATTACKERS = [f"127.0.0.{i}" for i in range(2, 6)]	# 4 addresses
GET = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
failures = []
measured = {}


def fail(msg):
    failures.append(msg)


class Scraper:
    """Scrapes once a second until stopped; every scrape must succeed. A
    process of its own, so that the attackers' threads never hold it up."""

    def __init__(self, src="127.0.0.1"):
        self.src, self.stop = src, multiprocessing.Event()
        self.results, theirs = multiprocessing.Pipe(duplex=False)
        self.proc = multiprocessing.Process(target=self.run, args=(theirs,), daemon=True)
        self.proc.start()

    def run(self, out):
        results = []
        while not self.stop.is_set():
            start = time.monotonic()
            results.append(prom_scrape(HOST, PORT, self.src))
            self.stop.wait(max(0.0, 1.0 - (time.monotonic() - start)))
        out.send(results)

    def finish(self):
        self.stop.set()
        results = self.results.recv() if self.results.poll(15) else []
        self.proc.join(5)
        errors = [e for e, _ in results if e]
        took = [t for e, t in results if not e]
        measured["scrapes"] = len(results)
        measured["scrapes_failed"] = len(errors)
        measured["scrape_max_s"] = round(max(took), 3) if took else None
        for e in errors[:3]:
            fail(f"scrape during the attack: {e}")
        if not results:
            fail("no scrape made during the attack")


def gone(s):
    """Has the server closed (or reset) this connection? Its TCP state
    (struct tcp_info's first byte) says so, also while unread data waits."""
    try:
        return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] != 1	# ESTABLISHED
    except OSError:
        return True


def hold_idle(conns, seconds):
    """Keeps idle connections for a while; returns how many the server closed."""
    time.sleep(seconds)
    n = sum(gone(s) for s in conns)
    for s in conns:
        s.close()
    return n


def non_reading():
    """A new non-reading client (tiny receive buffer, request sent, never
    reads a byte) every 0.25 s for 8 s, 32 in all, on a multi-MB answer."""
    conns = []
    for i in range(32):
        try:
            s = connect(HOST, PORT, ATTACKERS[i % len(ATTACKERS)], rcvbuf=1)
            s.sendall(GET)
            conns.append(s)
        except OSError as e:
            fail(f"non-reading client {i}: {e}")
        time.sleep(0.25)
    measured["clients"] = len(conns)
    measured["closed_by_server"] = hold_idle(conns, 4)


class SlowReader(threading.Thread):
    """Sends its request, then reads 1 MB a second: progress enough to
    keep the inactivity timeout away (the server's send buffer must drain
    by a third of its 4 MB to let the library write again), too slow to
    take a 16 MB answer within the 10 s deadline."""

    def __init__(self, src):
        super().__init__(daemon=True)
        self.src, self.got, self.lived, self.cut = src, 0, 0.0, False

    def run(self):
        start = time.monotonic()
        try:
            with connect(HOST, PORT, self.src, timeout=5, rcvbuf=1 << 18) as s:
                s.sendall(GET)
                while time.monotonic() - start < 30:
                    want = 250000
                    while want > 0:
                        chunk = s.recv(want)
                        if not chunk:
                            raise EOFError
                        self.got += len(chunk)
                        want -= len(chunk)
                    time.sleep(0.25)
        except (OSError, EOFError):
            pass	# cut by the server
        self.lived = time.monotonic() - start
        self.cut = self.lived < 30


def slow_readers():
    """A non-reading and a slow-reading client, alternately, every 0.25 s
    for 8 s: the slow ones only the deadline from accept stops."""
    readers, conns = [], []
    for i in range(32):
        src = ATTACKERS[i % len(ATTACKERS)]
        if i % 2:
            r = SlowReader(src)
            r.start()
            readers.append(r)
        else:
            try:
                s = connect(HOST, PORT, src, rcvbuf=1)
                s.sendall(GET)
                conns.append(s)
            except OSError as e:
                fail(f"non-reading client {i}: {e}")
        time.sleep(0.25)
    for r in readers:
        r.join(40)
    for s in conns:
        s.close()
    measured["slow_readers"] = len(readers)
    measured["slow_readers_cut"] = sum(r.cut for r in readers)
    measured["slow_reader_max_life_s"] = round(max(r.lived for r in readers), 1)
    measured["slow_reader_max_bytes"] = max(r.got for r in readers)
    if not all(r.cut for r in readers):
        fail("a slow reader was not cut off within 30 s")


def idle_1000():
    """1,000 connections at once that never send a byte, held 5 s."""
    conns = []
    for i in range(1000):
        try:
            conns.append(connect(HOST, PORT, ATTACKERS[i % len(ATTACKERS)], timeout=10))
        except OSError as e:
            fail(f"idle connection {i}: {e}")
            break
    measured["connections"] = len(conns)
    measured["closed_by_server"] = hold_idle(conns, 5)


def idle_flood():
    """400 new idle connections a second for 5 s (2,000), each kept open
    until the server closes it or the flood ends."""
    sel = selectors.DefaultSelector()
    opened = closed = 0
    start = time.monotonic()
    for tick in range(100):		# 100 ticks of 50 ms, 20 connections each
        for _ in range(20):
            try:
                s = connect(HOST, PORT, ATTACKERS[opened % len(ATTACKERS)], timeout=5)
                s.setblocking(False)
                sel.register(s, selectors.EVENT_READ)
                opened += 1
            except OSError as e:
                fail(f"flood connection {opened}: {e}")
                break
        for key, _ in sel.select(0):
            if gone(key.fileobj):
                sel.unregister(key.fileobj)
                key.fileobj.close()
                closed += 1
        time.sleep(max(0.0, start + (tick + 1) * 0.05 - time.monotonic()))
    measured["opened"] = opened
    measured["rate_per_s"] = round(opened / (time.monotonic() - start))
    measured["closed_by_server"] = closed
    for key in list(sel.get_map().values()):
        key.fileobj.close()


def slowloris():
    """64 connections that send a request head one byte a second, never
    ending it: each keeps the inactivity timeout away; the deadline from
    accept ends it."""
    conns, born, lived = [], {}, []
    for i in range(64):
        try:
            s = connect(HOST, PORT, ATTACKERS[i % 2])
            s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
            conns.append(s)
            born[s] = time.monotonic()
        except OSError as e:
            fail(f"slowloris connection {i}: {e}")
    while conns and time.monotonic() - min(born.values()) < 30:
        time.sleep(1)
        for s in list(conns):
            try:
                if gone(s):
                    raise ConnectionResetError
                s.send(b"a")
            except OSError:
                lived.append(time.monotonic() - born[s])
                conns.remove(s)
                s.close()
    measured["connections"] = len(born)
    measured["cut"] = len(lived)
    measured["max_life_s"] = round(max(lived), 1) if lived else None
    if conns:
        fail(f"{len(conns)} slowloris connections still open after 30 s")
    for s in conns:
        s.close()


def oversized_heads():
    """Request heads of 64 KiB and 1 MiB, alternately, for 3 s: 431."""
    statuses = {}
    start = time.monotonic()
    for i in range(1000):
        if time.monotonic() - start > 3:
            break
        size = (64 << 10) if i % 2 else (1 << 20)
        raw = b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * size + b"\r\n\r\n"
        try:
            status, _, _, _ = ask(HOST, PORT, raw, ATTACKERS[i % len(ATTACKERS)])
        except OSError as e:
            status = type(e).__name__
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    measured["statuses"] = statuses
    if list(statuses) != ["431"]:
        fail(f"oversized heads: {statuses}, expected 431 for all")


def pipelined():
    """Connections with 3 pipelined requests each, for 3 s (at least 20):
    one whole answer (Connection: close), then the end."""
    answers = []
    start = time.monotonic()
    for i in range(1000):
        if i >= 20 and time.monotonic() - start > 3:
            break
        try:
            with connect(HOST, PORT, ATTACKERS[i % len(ATTACKERS)], timeout=10) as s:
                s.sendall(GET * 3)
                data = read_all(s, time.monotonic() + 10)
        except OSError as e:
            fail(f"pipelined connection {i}: {e}")
            continue
        status, headers, body = parse(data)
        whole = headers.get("content-length") == str(len(body))
        answers.append(data.count(b"HTTP/1.1 "))
        if status != 200 or not whole or headers.get("connection") != "close":
            fail(f"pipelined connection {i}: status {status}, body {len(body)} "
                 f"of {headers.get('content-length')}, Connection {headers.get('connection')}")
    measured["connections"] = len(answers)
    measured["answers_per_connection"] = sorted(set(answers))
    if any(n != 1 for n in answers):
        fail(f"pipelined: answers per connection {sorted(set(answers))}")


def malformed():
    """The request cases of httpcheck.py, over and over for 3 s, from 4
    addresses: each gets its status every time."""
    cases = request_cases(HOST, PORT) * 100
    wrong = sent = 0
    start = time.monotonic()
    for i, (what, raw, want) in enumerate(cases):
        if time.monotonic() - start > 3:
            break
        sent += 1
        try:
            status = ask(HOST, PORT, raw, ATTACKERS[i % len(ATTACKERS)])[0]
        except OSError as e:
            status = type(e).__name__
        if not accepts(want, status):
            wrong += 1
            fail(f"{what}: status {status}, expected {want}")
    measured["requests"] = sent
    measured["wrong_status"] = wrong


def same_address():
    """32 idle connections from the scraper's own address (its whole
    per-address allowance): its scrape is refused while they are held;
    once the server has closed them (3 s idle) it is served again."""
    conns = [connect(HOST, PORT, "127.0.0.1") for _ in range(32)]
    time.sleep(0.5)		# all accepted by now
    err, _ = prom_scrape(HOST, PORT)
    measured["scrape_while_held"] = err or "served"
    if err is None:
        fail("a scrape from the attackers' address was served while they held every slot")
    start = time.monotonic()
    while time.monotonic() - start < 20 and not all(gone(s) for s in conns):
        time.sleep(0.1)
    measured["held_s"] = round(time.monotonic() - start + 0.5, 1)
    err, took = prom_scrape(HOST, PORT)
    measured["scrape_after_s"] = round(took, 3)
    if err:
        fail(f"scrape once the idle connections were closed: {err}")
    for s in conns:
        s.close()


ATTACKS = {f.__name__: f for f in (non_reading, slow_readers, idle_1000, idle_flood,
                                   slowloris, oversized_heads, pipelined, malformed,
                                   same_address)}


def main():
    attack = ATTACKS[sys.argv[3]]
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    start = time.monotonic()
    if attack is same_address:
        attack()	# the scrapes are the attack's own
    else:
        scraper = Scraper()
        attack()
        scraper.finish()
    measured["attack_s"] = round(time.monotonic() - start, 1)
    for f in failures[:10]:
        print(f"FAIL: {f}")
    if len(failures) > 10:
        print(f"FAIL: ... and {len(failures) - 10} more")
    print("MEASURED " + json.dumps(measured))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
