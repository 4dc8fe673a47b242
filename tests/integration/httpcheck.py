#!/usr/bin/env python3
"""Checks of netstacklat's /metrics server (src/http.c) that curl cannot
make: raw requests and their answers, oversized and malformed requests,
and clients that hold connections without asking.

    httpcheck.py HOST PORT      prints one line per failed check, exits 1
"""
import socket
import sys
import time

HOST, PORT = sys.argv[1], int(sys.argv[2])
failed = []


def ask(raw, timeout=5.0):
    """Sends raw bytes, returns (status, headers dict, body) of the answer."""
    with socket.create_connection((HOST, PORT), timeout=timeout) as s:
        s.sendall(raw)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines[0].startswith("HTTP/1.1 ") else 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


def check(what, cond, detail=""):
    if not cond:
        failed.append(f"{what}{': ' + detail if detail else ''}")


def expect_status(what, raw, want):
    try:
        status, headers, body = ask(raw)
    except OSError as e:
        check(what, False, str(e))
        return None
    check(what, status == want, f"status {status}, expected {want}")
    return status, headers, body


r = expect_status("GET /metrics", b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200)
if r:
    _, h, body = r
    check("GET: Content-Length matches the body", h.get("content-length") == str(len(body)),
          f"{h.get('content-length')} vs {len(body)}")
    check("GET: exposition format", h.get("content-type", "").startswith("text/plain; version=0.0.4"))
    check("GET: body holds the histograms", b"netstacklat_latency_seconds_bucket" in body)
    check("GET: Connection: close", h.get("connection") == "close")
    full = len(body)
r = expect_status("HEAD /metrics", b"HEAD /metrics HTTP/1.1\r\n\r\n", 200)
if r:
    _, h, body = r
    check("HEAD: no body", body == b"", f"{len(body)} bytes")
    check("HEAD: Content-Length of the GET", int(h.get("content-length", 0)) > 0)
expect_status("query string ignored", b"GET /metrics?x=1 HTTP/1.0\r\n\r\n", 200)
expect_status("bare LF line ends", b"GET /metrics HTTP/1.1\n\n", 200)
r = expect_status("POST", b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405)
if r:
    check("405 names the allowed methods", r[1].get("allow") == "GET, HEAD")
expect_status("unknown path", b"GET /nothing HTTP/1.1\r\n\r\n", 404)
expect_status("garbage request line", b"hello\r\n\r\n", 400)
expect_status("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400)
expect_status("overlong target", b"GET /" + b"a" * 1000 + b" HTTP/1.1\r\n\r\n", 400)
expect_status("request head over 8 KiB", b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n", 431)
expect_status("NUL byte in the target", b"GET /met\0rics HTTP/1.1\r\n\r\n", 400)

# A request sent one byte at a time is still answered.
try:
    with socket.create_connection((HOST, PORT), timeout=5) as s:
        for b in b"GET /metrics HTTP/1.1\r\n\r\n":
            s.send(bytes([b]))
            time.sleep(0.005)
        check("request in single bytes", s.recv(12).startswith(b"HTTP/1.1 200"))
except OSError as e:
    check("request in single bytes", False, str(e))

# Connections that never ask (more than the server's 32 slots) do not lock
# a scraper out for long: after a second they give way to new ones.
idle = []
try:
    for _ in range(40):
        idle.append(socket.create_connection((HOST, PORT), timeout=5))
    start = time.monotonic()
    r = expect_status("GET behind 40 idle connections", b"GET /metrics HTTP/1.1\r\n\r\n", 200)
    waited = time.monotonic() - start
    check("answered within 3 s behind 40 idle connections", waited < 3, f"{waited:.1f} s")
except OSError as e:
    check("idle connections", False, str(e))
finally:
    for s in idle:
        s.close()

# A client that stops reading a large answer does not stall the others.
try:
    slow = socket.create_connection((HOST, PORT), timeout=5)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    slow.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")
    expect_status("GET while another client does not read", b"GET /metrics HTTP/1.1\r\n\r\n", 200)
    slow.close()
except OSError as e:
    check("non-reading client", False, str(e))

for f in failed:
    print(f)
sys.exit(1 if failed else 0)
