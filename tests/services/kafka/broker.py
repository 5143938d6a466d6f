"""A real single-node Apache Kafka broker for pytest, driven through kafka.sh.

    from broker import KafkaBroker            # with tests/services/kafka on sys.path
    b = KafkaBroker(); b.start()              # fresh KRaft broker on a free 127.0.0.1 port
    b.bootstrap                               # "127.0.0.1:PORT"
    b.create_topic("t", partitions=3)
    b.produce("t", ["a", "b"], key="k", headers={"h": "v"})      # -> [(partition, offset), ...]
    b.consume("t", 2, timeout=10)             # -> [Record(topic, partition, offset, key, value, headers, timestamp)]
    b.stop(keep=True); b.start(resume=True)   # same port, same data
    b.committed_offsets("group", "t")         # -> {partition: next offset}
    KafkaBroker(extra_listeners=["SASL_SSL"], extra_props={...}).listener("SASL_SSL")  # "127.0.0.1:PORT"
    b.close()                                 # stop and wipe

Or the session-scoped fixture ``kafka_broker`` (import it into a conftest.py).
Clients are confluent-kafka (librdkafka); see requirements.txt.

Also a tiny CLI used by kafka.sh: ``broker.py --bootstrap HOST:PORT create NAME [PARTITIONS] [k=v ...]``
and ``broker.py --bootstrap HOST:PORT delete NAME``.
"""
from __future__ import annotations

import atexit
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Iterable, Mapping

from confluent_kafka import (OFFSET_BEGINNING, Consumer, ConsumerGroupTopicPartitions, KafkaError,
                             KafkaException, Producer, TopicPartition)
from confluent_kafka.admin import AdminClient, NewTopic

HERE = Path(__file__).resolve().parent
KAFKA_SH = HERE / "kafka.sh"

Headers = Mapping[str, Any] | Iterable[tuple[str, Any]] | None


@dataclasses.dataclass(frozen=True)
class Record:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]
    timestamp: int  # ms since epoch (create time)


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _bytes(x: Any) -> bytes | None:
    if x is None or isinstance(x, bytes):
        return x
    if isinstance(x, (bytearray, memoryview)):
        return bytes(x)
    return str(x).encode()


def _headers(h: Headers) -> list[tuple[str, bytes | None]] | None:
    if h is None:
        return None
    items = h.items() if isinstance(h, Mapping) else h
    return [(str(k), _bytes(v)) for k, v in items]


class KafkaBroker:
    """One broker in its own run directory (a fresh temp dir unless ``run_dir`` is given).

    ``quick_jvm`` (default True) runs the broker JVM with the C1 JIT only: ~40% less start-up CPU;
    pass False for throughput benchmarks.

    ``bootstrap=`` attaches to an already running broker instead (start/stop then raise).
    """

    def __init__(self, run_dir: str | os.PathLike | None = None, port: int | None = None, *,
                 auto_create_topics: bool = False, heap: str = "512m", quick_jvm: bool = True,
                 extra_props: Mapping[str, Any] | None = None, bootstrap: str | None = None,
                 extra_listeners: Iterable[str] = ()):
        self.external = bootstrap is not None
        self._own_dir = run_dir is None and not self.external
        self.run_dir = None if self.external else Path(run_dir or tempfile.mkdtemp(prefix="cdcd-kafka-"))
        self.port = port
        self.bootstrap: str | None = bootstrap
        self.auto_create_topics = auto_create_topics
        self.heap = heap
        self.quick_jvm = quick_jvm  # C1-only JIT: faster start, lower peak throughput (False for benchmarks)
        self.extra_props = dict(extra_props or {})
        # More listeners, each named after its protocol (SASL_PLAINTEXT, SASL_SSL, SSL): their
        # settings go in extra_props (listener.name.ssl.ssl.keystore.location=...); addresses
        # via listener(). Ports are picked once and kept across restarts.
        self.listener_ports = {name.upper(): _free_port() for name in extra_listeners}
        self.startup_seconds: float | None = None
        self._admin: AdminClient | None = None
        self._atexit = False

    # ---- lifecycle -------------------------------------------------------------------------
    def _sh(self, *args: str, timeout: float = 240, check: bool = True) -> subprocess.CompletedProcess:
        if self.external:
            raise RuntimeError("attached to an external broker: no lifecycle control")
        env = dict(os.environ, KAFKA_HEAP=self.heap)
        if self.listener_ports:
            env["KAFKA_EXTRA_LISTENERS"] = " ".join(f"{n}:{p}" for n, p in self.listener_ports.items())
        if self.extra_props:
            env["KAFKA_EXTRA_PROPS"] = "\n".join(f"{k}={v}" for k, v in self.extra_props.items())
        p = subprocess.run(["bash", str(KAFKA_SH), "--run-dir", str(self.run_dir), *args], env=env,
                           capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if check and p.returncode != 0:
            raise RuntimeError(f"kafka.sh {' '.join(args)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
        return p

    def start(self, resume: bool = False, port: int | None = None) -> str:
        """Start the broker (fresh data unless ``resume``). Returns the bootstrap address."""
        args = ["start"]
        if resume:
            args.append("--resume")
        port = port or (None if resume else self.port)
        if port:
            args += ["--port", str(port)]
        if self.auto_create_topics and not resume:
            args.append("--auto-create-topics")
        if self.quick_jvm and not resume:
            args.append("--quick-jvm")
        # A client of the previous broker process may sit in its reconnect backoff: start afresh.
        self._close_clients()
        t0 = time.monotonic()
        out = self._sh(*args).stdout
        self.startup_seconds = time.monotonic() - t0
        lines = [ln for ln in out.splitlines() if ln.startswith("BOOTSTRAP=")]
        if not lines:
            raise RuntimeError(f"kafka.sh start printed no BOOTSTRAP= line:\n{out}")
        self.bootstrap = lines[-1].split("=", 1)[1].strip()
        self.port = int(self.bootstrap.rsplit(":", 1)[1])
        if not self._atexit:
            atexit.register(self._stop_at_exit)
            self._atexit = True
        return self.bootstrap

    def stop(self, keep: bool = True) -> None:
        """Stop the broker (SIGTERM, bounded wait, SIGKILL). ``keep=True`` keeps the data for start(resume=True)."""
        self._sh("stop", *(["--keep"] if keep else []))

    def restart(self) -> str:
        self.stop(keep=True)
        return self.start(resume=True)

    def transactions(self, *args: str, timeout: float = 60) -> str:
        """Kafka's kafka-transactions.sh against this broker (``"list"``, ``"find-hanging",
        "--broker-id", "1"``, ...): what its transaction coordinator knows. Output and errors as
        text, for a failing test to show."""
        try:
            p = self._sh("transactions", *args, timeout=timeout, check=False)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            return f"kafka-transactions {' '.join(args)}: {e}"
        return (p.stdout + p.stderr).strip()

    def listener(self, name: str) -> str:
        """host:port of an extra listener (see ``extra_listeners``)."""
        return f"127.0.0.1:{self.listener_ports[name.upper()]}"

    def is_running(self) -> bool:
        return self._sh("status", check=False).returncode == 0

    def close(self) -> None:
        """Stop, wipe the data, and remove the run dir if this object created it."""
        self._close_clients()
        if self.external:
            return
        self._sh("stop", check=False)
        if self._own_dir and self.run_dir and self.run_dir.exists():
            shutil.rmtree(self.run_dir, ignore_errors=True)

    def _stop_at_exit(self) -> None:
        """Never leave a broker behind: stop it (and wipe a temp run dir we made) at interpreter exit."""
        try:
            if self.run_dir and (self.run_dir / "kafka.pid").exists():
                self._sh("stop", *([] if self._own_dir else ["--keep"]), check=False, timeout=60)
            if self._own_dir and self.run_dir and self.run_dir.exists():
                shutil.rmtree(self.run_dir, ignore_errors=True)
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass

    def __enter__(self) -> "KafkaBroker":
        if not self.external and self.bootstrap is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def log_tail(self, n: int = 50) -> str:
        """Last lines of the broker's server.log (for failure messages)."""
        if not self.run_dir:
            return ""
        p = self.run_dir / "logs" / "server.log"
        return "\n".join(p.read_text(errors="replace").splitlines()[-n:]) if p.exists() else ""

    # ---- clients ---------------------------------------------------------------------------
    def _conf(self, base: Mapping[str, Any], conf: Mapping[str, Any] | None, kw: Mapping[str, Any]) -> dict:
        if not self.bootstrap:
            raise RuntimeError("broker not started")
        c = {"bootstrap.servers": self.bootstrap, **base, **(conf or {})}
        c.update({k.replace("_", "."): v for k, v in kw.items()})
        return c

    def admin(self) -> AdminClient:
        if self._admin is None:
            self._admin = AdminClient(self._conf({}, None, {}))
        return self._admin

    def _close_clients(self) -> None:
        self._admin = None

    def producer(self, conf: Mapping[str, Any] | None = None, **kw: Any) -> Producer:
        """A confluent_kafka Producer on this broker (idempotent by default). kw: linger_ms=5 -> linger.ms."""
        return Producer(self._conf({"enable.idempotence": True, "linger.ms": 5}, conf, kw))

    def transactional_producer(self, transactional_id: str | None = None, conf: Mapping[str, Any] | None = None,
                               timeout: float = 30, **kw: Any) -> Producer:
        """A Producer with init_transactions() done; use begin/commit/abort_transaction on it."""
        p = Producer(self._conf({"transactional.id": transactional_id or f"cdcd-test-{uuid.uuid4().hex[:12]}",
                                 "linger.ms": 5}, conf, kw))
        p.init_transactions(timeout)
        return p

    def consumer(self, group: str | None = None, conf: Mapping[str, Any] | None = None, **kw: Any) -> Consumer:
        """A Consumer (auto commit off, earliest, read_committed unless overridden)."""
        return Consumer(self._conf({"group.id": group or f"cdcd-test-{uuid.uuid4().hex[:12]}",
                                    "enable.auto.commit": False, "auto.offset.reset": "earliest",
                                    "isolation.level": "read_committed"}, conf, kw))

    # ---- topics ----------------------------------------------------------------------------
    def create_topic(self, name: str, partitions: int = 1, config: Mapping[str, Any] | None = None,
                     timeout: float = 30) -> None:
        """Create a topic (replication factor 1) and wait until every partition has a leader."""
        nt = NewTopic(name, num_partitions=partitions, replication_factor=1,
                      config={k: str(v) for k, v in (config or {}).items()})
        self.admin().create_topics([nt], operation_timeout=timeout, request_timeout=timeout)[name].result(timeout)
        self._wait(lambda: self._ready(name, partitions), timeout, f"topic {name} leaders")

    def delete_topic(self, name: str, timeout: float = 30) -> None:
        self.admin().delete_topics([name], operation_timeout=timeout, request_timeout=timeout)[name].result(timeout)
        self._wait(lambda: name not in self.list_topics(), timeout, f"topic {name} deletion")

    def list_topics(self, internal: bool = False) -> set[str]:
        md = self.admin().list_topics(timeout=10)
        return {t for t in md.topics if internal or not t.startswith("__")}

    def describe_topic(self, name: str) -> dict[int, dict[str, Any]]:
        """{partition: {"leader": id, "replicas": [...], "isrs": [...]}}; KeyError if absent."""
        deadline = time.monotonic() + 10
        while True:
            try:
                t = self.admin().list_topics(name, timeout=10).topics.get(name)
                break
            except KafkaException as e:
                # Just after a (re)start the first connection can fail at once: bounded retry.
                if e.args[0].code() != KafkaError._TRANSPORT or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        if t is None or t.error is not None:
            raise KeyError(f"topic {name}: {t.error if t else 'absent'}")
        return {p.id: {"leader": p.leader, "replicas": list(p.replicas), "isrs": list(p.isrs)}
                for p in t.partitions.values()}

    def partitions(self, topic: str) -> list[int]:
        return sorted(self.describe_topic(topic))

    def end_offsets(self, topic: str, isolation: str = "read_uncommitted") -> dict[int, int]:
        """{partition: high watermark} (last stable offset if isolation='read_committed')."""
        c = self.consumer(isolation_level=isolation)
        try:
            return {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                    for p in self.partitions(topic)}
        finally:
            c.close()

    def _ready(self, name: str, partitions: int) -> bool:
        try:
            d = self.describe_topic(name)
        except KeyError:
            return False
        return len(d) == partitions and all(p["leader"] >= 0 for p in d.values())

    @staticmethod
    def _wait(cond, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond():
                return
            time.sleep(0.05)
        raise TimeoutError(f"timed out waiting for {what}")

    # ---- data ------------------------------------------------------------------------------
    def produce(self, topic: str, messages: Iterable[Any], key: Any = None, headers: Headers = None,
                partition: int | None = None, timeout: float = 30, producer: Producer | None = None,
                **conf: Any) -> list[tuple[int, int]]:
        """Produce and flush; returns [(partition, offset)] in message order. Raises on any failure.

        A message is a value (str/bytes/None), a (key, value) tuple, or a dict with any of
        value/key/headers/partition. ``key``/``headers``/``partition`` are defaults for all.
        ``producer=`` sends through your producer (e.g. inside a transaction).
        """
        p = producer or self.producer(**conf)
        results: list[Any] = []

        def cb(i: int):
            def done(err, msg):
                results[i] = err if err is not None else (msg.partition(), msg.offset())
            return done

        deadline = time.monotonic() + timeout
        for i, m in enumerate(messages):
            if isinstance(m, dict):
                k, v, h, part = m.get("key", key), m.get("value"), m.get("headers", headers), m.get("partition", partition)
            elif isinstance(m, tuple):
                (k, v), h, part = m, headers, partition
            else:
                k, v, h, part = key, m, headers, partition
            results.append(None)
            kwargs: dict[str, Any] = {"value": _bytes(v), "key": _bytes(k), "on_delivery": cb(i)}
            if h is not None:
                kwargs["headers"] = _headers(h)
            if part is not None:
                kwargs["partition"] = part
            while True:
                try:
                    p.produce(topic, **kwargs)
                    break
                except BufferError:
                    if time.monotonic() > deadline:
                        raise TimeoutError("producer queue full") from None
                    p.poll(0.05)
            p.poll(0)
        left = p.flush(max(0.0, deadline - time.monotonic()))
        if left:
            raise TimeoutError(f"{left} message(s) not delivered within {timeout}s")
        errs = [r for r in results if isinstance(r, KafkaError)]
        if errs:
            raise KafkaException(errs[0])
        return results

    def consume(self, topic: str, n: int | None, timeout: float = 30, isolation: str = "read_committed",
                group: str | None = None, commit: bool = False, offsets: Mapping[int, int] | None = None,
                partitions: Iterable[int] | None = None) -> list[Record]:
        """Read ``n`` messages (or, with n=None, everything up to the end of every partition).

        Without ``group``: assigns the partitions directly (no group join) from the beginning, or
        from ``offsets`` {partition: offset}. With ``group``: subscribes as that group, starting at
        its committed offsets (earliest if none), and commits what it read if ``commit``.
        Raises TimeoutError if fewer than ``n`` arrive within ``timeout``.
        Isolation: 'read_committed' (default) or 'read_uncommitted'.
        """
        if isolation not in ("read_committed", "read_uncommitted"):
            raise ValueError(isolation)
        c = self.consumer(group, isolation_level=isolation, enable_partition_eof=True)
        out: list[Record] = []
        try:
            if group is None:
                parts = sorted(partitions) if partitions is not None else self.partitions(topic)
                c.assign([TopicPartition(topic, p, (offsets or {}).get(p, OFFSET_BEGINNING)) for p in parts])
                want_eof = set(parts)
            else:
                c.subscribe([topic])
                want_eof = set(self.partitions(topic))
            eof: set[int] = set()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if n is not None and len(out) >= n:
                    break
                if n is None and eof >= want_eof:
                    break
                batch = c.consume(num_messages=500 if n is None else min(500, n - len(out)), timeout=0.2)
                for m in batch:
                    err = m.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF:
                            eof.add(m.partition())
                            continue
                        raise KafkaException(err)
                    eof.discard(m.partition())
                    out.append(Record(m.topic(), m.partition(), m.offset(), m.key(), m.value(),
                                      list(m.headers() or []), m.timestamp()[1]))
            else:
                if n is not None and len(out) < n:
                    raise TimeoutError(f"consumed {len(out)} of {n} messages from {topic} in {timeout}s")
                if n is None:
                    raise TimeoutError(f"end of {topic} not reached in {timeout}s ({len(out)} read)")
            if group is not None and commit and out:
                last: dict[int, int] = {}
                for r in out:
                    last[r.partition] = r.offset
                c.commit(offsets=[TopicPartition(topic, p, o + 1) for p, o in last.items()], asynchronous=False)
        finally:
            c.close()
        return out

    def consume_all(self, topic: str, timeout: float = 30, isolation: str = "read_committed") -> list[Record]:
        return self.consume(topic, None, timeout=timeout, isolation=isolation)

    def commit_offsets(self, group: str, topic: str, offsets: Mapping[int, int]) -> None:
        """Commit {partition: next offset} for ``group`` without joining it."""
        c = self.consumer(group)
        try:
            c.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
        finally:
            c.close()

    def committed_offsets(self, group: str, topic: str, timeout: float = 10) -> dict[int, int]:
        """{partition: committed offset} for the partitions of ``topic`` that ``group`` has committed."""
        req = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in self.partitions(topic)])
        res = self.admin().list_consumer_group_offsets([req], request_timeout=timeout)[group].result(timeout)
        return {tp.partition: tp.offset for tp in res.topic_partitions if tp.error is None and tp.offset >= 0}


try:  # the session-scoped pytest fixture; import it into your conftest.py
    import pytest

    @pytest.fixture(scope="session")
    def kafka_broker():
        b = KafkaBroker()
        b.start()
        try:
            yield b
        finally:
            b.close()
except ImportError:  # pragma: no cover - pytest is optional for the CLI
    pass


def _main(argv: list[str]) -> int:
    import argparse
    ap = argparse.ArgumentParser(description="topic admin for kafka.sh")
    ap.add_argument("--bootstrap", required=True)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create")
    c.add_argument("name")
    c.add_argument("partitions", nargs="?", type=int, default=1)
    c.add_argument("config", nargs="*", help="key=value topic configs")
    d = sub.add_parser("delete")
    d.add_argument("name")
    a = ap.parse_args(argv)
    b = KafkaBroker(bootstrap=a.bootstrap)
    try:
        if a.cmd == "create":
            b.create_topic(a.name, a.partitions, dict(kv.split("=", 1) for kv in a.config))
            print(f"created {a.name} ({a.partitions} partitions)")
        else:
            b.delete_topic(a.name)
            print(f"deleted {a.name}")
    except KafkaException as e:
        print(f"broker.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
