#!/usr/bin/env python3
"""Dependency-free Kafka readiness probe (fallback when kcat is absent).

    kafka_ping.py HOST:PORT [--timeout S]

Sends ApiVersions, then a Metadata request (all topics) over plain TCP, and exits 0 only if the
broker answers with at least one broker and every partition it lists has a leader.
Exit 1 otherwise, with the reason on stderr.
"""
import socket
import struct
import sys

METADATA, API_VERSIONS = 3, 18


def _request(sock, api_key, version, corr, body=b""):
    client = b"cdcd-ping"
    hdr = struct.pack(">hhih", api_key, version, corr, len(client)) + client
    msg = hdr + body
    sock.sendall(struct.pack(">i", len(msg)) + msg)
    (size,) = struct.unpack(">i", _read(sock, 4))
    data = _read(sock, size)
    (got,) = struct.unpack(">i", data[:4])
    if got != corr:
        raise RuntimeError("correlation id mismatch")
    return data[4:]


def _read(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed")
        buf += chunk
    return buf


class _R:
    def __init__(self, b):
        self.b, self.i = b, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.i)
        self.i += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        s = self.b[self.i:self.i + n].decode()
        self.i += n
        return s


def probe(host, port, timeout):
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        r = _R(_request(s, API_VERSIONS, 0, 1))
        err = r.take(">h")
        if err:
            raise RuntimeError(f"ApiVersions error {err}")
        versions = {}
        for _ in range(r.take(">i")):
            k, lo, hi = r.take(">hhh")
            versions[k] = (lo, hi)
        lo, hi = versions.get(METADATA, (0, -1))
        # v4..v8 share the non-flexible layout parsed below; pick 4 if allowed.
        if not lo <= 4 <= hi:
            raise RuntimeError(f"broker Metadata versions {lo}..{hi} exclude v4")
        body = struct.pack(">ib", -1, 0)  # topics=null (all), allow_auto_topic_creation=false
        r = _R(_request(s, METADATA, 4, 2, body))
        r.take(">i")  # throttle_time_ms
        brokers = []
        for _ in range(r.take(">i")):
            node = r.take(">i")
            h = r.string()
            p = r.take(">i")
            r.string()  # rack
            brokers.append((node, h, p))
        r.string()  # cluster id
        r.take(">i")  # controller id
        problems = []
        for _ in range(r.take(">i")):
            terr = r.take(">h")
            name = r.string()
            r.take(">b")  # is_internal
            if terr:
                problems.append(f"{name}: error {terr}")
            for _ in range(r.take(">i")):
                perr, pidx, leader = r.take(">hii")
                for _ in range(2):  # replicas, isr
                    for _ in range(r.take(">i")):
                        r.take(">i")
                if perr or leader < 0:
                    problems.append(f"{name}[{pidx}]: leader {leader} error {perr}")
        if not brokers:
            raise RuntimeError("no brokers in metadata")
        if problems:
            raise RuntimeError("partitions not ready: " + ", ".join(problems[:5]))
        return brokers


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    host, _, port = argv[0].rpartition(":")
    timeout = float(argv[argv.index("--timeout") + 1]) if "--timeout" in argv else 2.0
    try:
        brokers = probe(host or "127.0.0.1", int(port), timeout)
    except Exception as e:  # noqa: BLE001 - a probe reports any failure the same way
        print(f"kafka_ping: {e}", file=sys.stderr)
        return 1
    print(" ".join(f"{n}@{h}:{p}" for n, h, p in brokers))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
