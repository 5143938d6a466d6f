# Kafka integration tests: the real cdcd binary against a real Kafka broker (tests/services/kafka).
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "services" / "kafka"))

from broker import kafka_broker  # noqa: E402,F401  (session-scoped fixture)

CDCD = os.environ.get("CDCD_BIN", str(ROOT / "build" / "release" / "cmd" / "cdcd"))


# GENERATED into an exactly-once kafka sink: `rate` events a second (0: unlimited), `extra`
# lines at the end of the pipeline block ("\n  parallelism: 2").
GENERATED_EXACTLY_ONCE = """
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.payload-bytes: 10
  generator.updates-per-row: 0
  generator.rate: {rate}
sink:
  type: kafka
  properties.bootstrap.servers: {bootstrap}
  topic: {topic}
  sink.delivery-guarantee: exactly-once
pipeline:
  name: {name}
  execution.checkpointing.interval: 200ms{extra}
"""


def murmur2(data: bytes) -> int:
    """org.apache.kafka.common.utils.Utils#murmur2, in Java int arithmetic."""
    length = len(data)
    seed, m, r = 0x9747B28C, 0x5BD1E995, 24
    mask = 0xFFFFFFFF
    h = (seed ^ length) & mask
    for i in range(length // 4):
        k = data[4 * i] | (data[4 * i + 1] << 8) | (data[4 * i + 2] << 16) | (data[4 * i + 3] << 24)
        k = (k * m) & mask
        k ^= k >> r
        k = (k * m) & mask
        h = (h * m) & mask
        h ^= k
    tail = length & ~3
    rem = length % 4
    if rem == 3:
        h ^= data[tail + 2] << 16
    if rem >= 2:
        h ^= data[tail + 1] << 8
    if rem >= 1:
        h ^= data[tail]
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def java_partition(key: bytes, partitions: int) -> int:
    return (murmur2(key) & 0x7FFFFFFF) % partitions


class Cdcd:
    """Writes a pipeline YAML and runs the cdcd binary on it."""

    def __init__(self, tmp_path: Path, yaml_text: str):
        self.dir = tmp_path
        self.yaml = tmp_path / "pipeline.yaml"
        self.yaml.write_text(yaml_text)
        self.state = tmp_path / "state"
        self.proc = None
        self.log = tmp_path / "cdcd.log"

    def cmd(self):
        return [CDCD, "run", str(self.yaml), "--state-dir", str(self.state)]

    def run(self, timeout=120, check=True):
        p = subprocess.run(self.cmd(), capture_output=True, text=True, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError(f"cdcd exited {p.returncode}\nstdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-5000:]}")
        return p

    def start(self):
        self.logf = open(self.log, "ab")
        self.proc = subprocess.Popen(self.cmd(), stdout=subprocess.DEVNULL, stderr=self.logf)
        return self.proc

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout=60):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def log_text(self):
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@pytest.fixture
def cdcd(tmp_path):
    made = []

    def make(yaml_text: str) -> Cdcd:
        d = tmp_path / f"run{len(made)}"
        d.mkdir(exist_ok=True)
        c = Cdcd(d, yaml_text)
        made.append(c)
        return c

    yield make
    for c in made:
        if c.proc and c.proc.poll() is None:
            c.proc.kill()
            c.proc.wait()


_counter = [0]


def unique(prefix: str) -> str:
    _counter[0] += 1
    return f"{prefix}_{os.getpid()}_{_counter[0]}_{int(time.time() * 1000) % 100000}"


def read_jsonl(path):
    """The JSON lines a file sink has written so far (none before it creates the file)."""
    try:
        return [json.loads(x) for x in open(path).read().splitlines() if x]
    except FileNotFoundError:
        return []


def wait_for(cond, timeout=60, what="condition", interval=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(interval)
    raise TimeoutError(f"timed out waiting for {what}")
