#!/usr/bin/env python3
"""Checks of netstacklat's /metrics server (src/4-sink/http.c, libmicrohttpd) that
curl cannot make: raw requests and the status RFC 9110/9112 prescribe for
each, oversized and malformed requests, pipelining, and clients that hold
connections without asking. Also the helpers of httpattack.py.

    httpcheck.py HOST PORT      prints one line per failed check, exits 1
"""
import gzip
import socket
import sys
import time

# What Prometheus 2.42 sends (scrape/scrape.go): its Accept header, and a
# scrape is abandoned after scrape_timeout (default 10 s).
PROM_ACCEPT = ("application/openmetrics-text;version=1.0.0,"
               "application/openmetrics-text;version=0.0.1;q=0.75,"
               "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
PROM_TIMEOUT = 10.0


def connect(host, port, src="127.0.0.1", timeout=5.0, rcvbuf=None):
    """A TCP connection from address src (any of 127/8 on loopback)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        # before connect(): the window scale is agreed in the handshake
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    try:
        s.bind((src, 0))
        s.connect((host, port))
    except OSError:
        s.close()
        raise
    return s


def read_all(s, deadline=None):
    """Everything until EOF (or a reset, or the deadline: monotonic s)."""
    data = bytearray()	# not bytes: += would copy megabytes every time
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("deadline")
            s.settimeout(left)
        try:
            chunk = s.recv(1 << 16)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return bytes(data)


def parse(data):
    """(status, headers dict, body) of one answer; status 0 if none."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    status = int(parts[1]) if lines[0].startswith("HTTP/1.1 ") and len(parts) > 1 else 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


def ask(host, port, raw, src="127.0.0.1", timeout=5.0):
    """Sends raw bytes, returns (status, headers, body, all bytes received)."""
    with connect(host, port, src, timeout) as s:
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass	# answered and closed before all was sent: read it
        data = read_all(s)
    return parse(data) + (data,)


# HTTP/1.1 requires a Host header (RFC 9112 3.2: a server MUST answer 400
# without one); libmicrohttpd 1.0 (trixie) does, 0.9.75 (bookworm) let it
# pass. Every 1.1 request here that tests something else carries one.
HOST = "Host: x\r\n"
# Where libmicrohttpd's versions differ and RFC 9112 allows both, a case
# accepts a tuple of statuses; 0: closed without an answer.
CLOSED = 0


def accepts(want, status):
    """Whether a case's want (a status or a tuple of them) takes status."""
    return status in want if isinstance(want, tuple) else status == want


def request_cases(host, port):
    """RFC 9110/9112: request lines and heads, and the status each gets."""
    return [
    ("query string ignored", b"GET /metrics?x=1 HTTP/1.0\r\n\r\n", 200),
    ("bare LF line ends", b"GET /metrics HTTP/1.1\nHost: x\n\n", 200),
    ("absolute-form target (RFC 9112 3.2.2)",
     f"GET http://{host}:{port}/metrics HTTP/1.1\r\n{HOST}\r\n".encode(), 200),
    ("HTTP/1.9 is processed as 1.1 (RFC 9110 2.5)", f"GET /metrics HTTP/1.9\r\n{HOST}\r\n".encode(), 200),
    ("POST", f"POST /metrics HTTP/1.1\r\n{HOST}Content-Length: 0\r\n\r\n".encode(), 405),
    ("POST with a body", f"POST /metrics HTTP/1.1\r\n{HOST}Content-Length: 5\r\n\r\nhello".encode(), 405),
    ("methods are case-sensitive: get", f"get /metrics HTTP/1.1\r\n{HOST}\r\n".encode(), 501),
    ("unknown method", f"BREW /metrics HTTP/1.1\r\n{HOST}\r\n".encode(), 501),
    ("method not a token", f"G(T /metrics HTTP/1.1\r\n{HOST}\r\n".encode(), 400),
    ("unknown path", f"GET /nothing HTTP/1.1\r\n{HOST}\r\n".encode(), 404),
    ("long unknown path", f"GET /{'a' * 1000} HTTP/1.1\r\n{HOST}\r\n".encode(), 404),
    # an invalid request line: RFC 9112 3 says SHOULD 400; 1.0 closes
    ("no space after the method", f"GET/metrics HTTP/1.1\r\n{HOST}\r\n".encode(), (400, CLOSED)),
    ("no version", b"GET /metrics\r\n\r\n", 400),
    ("junk after the version", b"GET /metrics HTTP/1.1junk\r\n\r\n", 400),
    ("version on a line of its own", b"GET /metrics\r\nHTTP/1.1\r\n\r\n", 400),
    ("header line without a colon", f"GET /metrics HTTP/1.1\r\n{HOST}bad\r\n\r\n".encode(), 400),
    ("HTTP/2.0 (RFC 9110 15.6.6)", b"GET /metrics HTTP/2.0\r\n\r\n", 505),
    ("HTTP/0.9", b"GET /metrics HTTP/0.9\r\n\r\n", 505),
    ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
    ("request head over 8 KiB", b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n", 431),
    ("request line over 8 KiB", b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", 414),
    # libmicrohttpd 0.9.75 cuts the target at the NUL byte ("/met", not
    # ours), 1.0 refuses the request line and closes
    ("NUL byte in the target", f"GET /met\0rics HTTP/1.1\r\n{HOST}\r\n".encode(), (404, CLOSED)),
    ] + [(m, f"{m} /metrics HTTP/1.1\r\n{HOST}\r\n".encode(), 405)
         for m in ("PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND")]


def prom_scrape(host, port, src="127.0.0.1"):
    """A scrape as Prometheus makes it. Returns (error or None, seconds)."""
    start = time.monotonic()
    deadline = start + PROM_TIMEOUT
    req = (f"GET /metrics HTTP/1.1\r\nHost: {host}:{port}\r\n"
           "User-Agent: Prometheus/2.42.0\r\n"
           f"Accept: {PROM_ACCEPT}\r\nAccept-Encoding: gzip\r\n"
           f"X-Prometheus-Scrape-Timeout-Seconds: {PROM_TIMEOUT:g}\r\n\r\n").encode()
    try:
        with connect(host, port, src, PROM_TIMEOUT) as s:
            s.sendall(req)
            data = read_all(s, deadline)
    except OSError as e:
        return f"{type(e).__name__}: {e}", time.monotonic() - start
    took = time.monotonic() - start
    status, headers, body = parse(data)
    if not data:
        return "closed without an answer", took
    if status != 200:
        return f"status {status} ({len(data)} bytes)", took
    if headers.get("content-length") != str(len(body)):
        return f"body of {len(body)} bytes, Content-Length {headers.get('content-length')}", took
    if headers.get("content-encoding") != "gzip":
        return f"Content-Encoding {headers.get('content-encoding')} for a scraper that takes gzip", took
    try:
        body = gzip.decompress(body)
    except (OSError, EOFError) as e:
        return f"the gzip body does not inflate: {e}", took
    if b"netstacklat_latency_seconds_bucket" not in body:
        return "no histogram in the body", took
    return None, took


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    failed = []

    def check(what, cond, detail=""):
        if not cond:
            failed.append(f"{what}{': ' + detail if detail else ''}")

    def expect_status(what, raw, want):
        try:
            status, headers, body, _ = ask(host, port, raw)
        except OSError as e:
            check(what, False, str(e))
            return None
        check(what, accepts(want, status), f"status {status}, expected {want}")
        return status, headers, body

    r = expect_status("GET /metrics", b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200)
    if r:
        _, h, body = r
        check("GET: Content-Length matches the body", h.get("content-length") == str(len(body)),
              f"{h.get('content-length')} vs {len(body)}")
        check("GET: exposition format", h.get("content-type", "").startswith("text/plain; version=0.0.4"))
        check("GET: body holds the histograms", b"netstacklat_latency_seconds_bucket" in body)
        check("GET: Connection: close", h.get("connection") == "close")
    r = expect_status("HEAD /metrics", f"HEAD /metrics HTTP/1.1\r\n{HOST}\r\n".encode(), 200)
    if r:
        _, h, body = r
        check("HEAD: no body", body == b"", f"{len(body)} bytes")
        check("HEAD: Content-Length of the GET", int(h.get("content-length", 0)) > 0)
    err, _ = prom_scrape(host, port)
    check("a scrape as Prometheus makes it", err is None, err or "")
    # gzip for a client that takes it, the same bytes inflated for one
    # that does not (one answer serves both within NSL_HTTP_FRESH_MS)
    try:
        _, hz, zbody, _ = ask(host, port, f"GET /metrics HTTP/1.1\r\n{HOST}"
                              "Accept-Encoding: br;q=1.0, gzip;q=0.5\r\n\r\n".encode())
        _, hp, pbody, _ = ask(host, port, f"GET /metrics HTTP/1.1\r\n{HOST}"
                              "Accept-Encoding: gzip;q=0, identity\r\n\r\n".encode())
        check("gzip: Content-Encoding", hz.get("content-encoding") == "gzip",
              hz.get("content-encoding", "none"))
        check("gzip: Vary", "accept-encoding" in hz.get("vary", "").lower(), hz.get("vary", "none"))
        check("gzip refused: plain", "content-encoding" not in hp, hp.get("content-encoding", ""))
        check("gzip: Content-Length of the gzip body", hz.get("content-length") == str(len(zbody)))
        check("plain: Content-Length of the body", hp.get("content-length") == str(len(pbody)))
        check("gzip and plain: the same answer", gzip.decompress(zbody) == pbody,
              f"{len(gzip.decompress(zbody))} vs {len(pbody)} bytes")
    except (OSError, EOFError) as e:
        check("gzip", False, str(e))

    for what, raw, want in request_cases(host, port):
        r = expect_status(what, raw, want)
        if r and want == 405:
            check(f"{what}: Allow", r[1].get("allow") == "GET, HEAD", r[1].get("allow", "none"))
        if r and r[0] != CLOSED:
            check(f"{what}: Connection: close", r[1].get("connection") == "close")
    # No space at all: not a request line. libmicrohttpd 0.9.75 closes the
    # connection without an answer (RFC 9112 3 says SHOULD 400).
    try:
        status, _, _, data = ask(host, port, b"hello\r\n\r\n")
        check("a line without a space: closed without an answer", data == b"",
              f"status {status}")
    except OSError as e:
        check("a line without a space", False, str(e))

    # Pipelined requests: the first is answered ("Connection: close"),
    # whole, then the connection closes; the rest are not answered.
    try:
        status, h, body, data = ask(host, port, f"GET /metrics HTTP/1.1\r\n{HOST}\r\n".encode() * 2 +
                                    f"HEAD /metrics HTTP/1.1\r\n{HOST}\r\n".encode())
        check("pipelined: first answered", status == 200, f"status {status}")
        check("pipelined: Connection: close", h.get("connection") == "close")
        check("pipelined: one whole answer, then the end",
              h.get("content-length") == str(len(body)) and data.count(b"HTTP/1.1 ") == 1,
              f"{data.count(b'HTTP/1.1 ')} answers, body {len(body)} of {h.get('content-length')}")
    except OSError as e:
        check("pipelined", False, str(e))

    # A request sent one byte at a time is still answered.
    try:
        with connect(host, port) as s:
            for b in f"GET /metrics HTTP/1.1\r\n{HOST}\r\n".encode():
                s.send(bytes([b]))
                time.sleep(0.005)
            check("request in single bytes", s.recv(12).startswith(b"HTTP/1.1 200"))
    except OSError as e:
        check("request in single bytes", False, str(e))

    # Connections that never ask, from another address, do not keep a
    # scraper out.
    idle = []
    try:
        for _ in range(40):
            idle.append(connect(host, port, "127.0.0.2"))
        err, _ = prom_scrape(host, port)
        check("scrape behind 40 idle connections", err is None, err or "")
    except OSError as e:
        check("idle connections", False, str(e))
    finally:
        for s in idle:
            s.close()

    # A client that stops reading does not stall the others.
    try:
        with connect(host, port, "127.0.0.2", rcvbuf=1024) as slow:
            slow.sendall(f"GET /metrics HTTP/1.1\r\n{HOST}\r\n".encode())
            err, _ = prom_scrape(host, port)
            check("scrape while another client does not read", err is None, err or "")
    except OSError as e:
        check("non-reading client", False, str(e))

    for f in failed:
        print(f)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
