#!/usr/bin/env python3
"""Kafka → Kafka latency benchmark (issue 18; not a test, always exits 0 once it has measured).

Each relay runs alone in turn (rounds alternate) on one local broker (KRaft):
  kcat -C -u -o end | kcat -P -u      (unbuffered: a record is passed on as soon as it is read)
  cdcd run relay.yaml                 (kafka source → route → kafka sink, at-least-once)
A paced producer writes debezium-json messages at a fixed rate (default 5,000/s for 20 s); a
consumer of the input and one of each output, each in a process of its own, note when each
message (by its id) arrives. A relay's latency = arrival in its output − arrival in the input,
per message: what the relay adds, whatever the producer's own delays (which measured seconds
with both relays running at once on the machine's two cores, shared with the broker). The first two
seconds of messages are a warm-up and are left out. Writes bench/reports/kafka_latency.md.
Usage: bench/kafka_latency/run.py [--rate N] [--seconds S]
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import multiprocessing
import queue
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "services" / "kafka"))
from broker import KafkaBroker  # noqa: E402
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402

CDCD = os.environ.get("CDCD_BIN", str(ROOT / "build" / "release" / "cmd" / "cdcd"))
ID = re.compile(rb'"id":(\d+)')
WARM_UP_S = 2.0


def message(i):
    return ('{"before":null,"after":{"id":%d,"name":"customer-%d","email":"user%d@example.com",'
            '"amount":%d.%02d},"op":"c","source":{"db":"shop","table":"orders%d"}}'
            % (i, i, i, i % 10000, i % 100, i % 4)).encode()


def produce_paced(bootstrap, topic, rate, seconds):
    """Sends rate×seconds messages at a fixed pace; returns the count."""
    # A few ms of linger: one request per message would cap the producer near the rate itself.
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 2})
    total = int(rate * seconds)
    start = time.monotonic()
    for i in range(total):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        producer.produce(topic, message(i), key=str(i).encode())
        producer.poll(0)
    producer.flush(30)
    return total


def arrivals(bootstrap, topic, partitions, expected, ready, done, results):
    """In a process of its own (the GIL would make a consumer thread the bottleneck): reads a
    topic from its start and puts {message id: arrival time in µs} in `results` once `expected`
    have arrived or `done` is set."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"latency-{topic}",
                         "fetch.wait.max.ms": 1, "enable.auto.commit": False})
    # Assigned, not subscribed: a group join would hold the first seconds back.
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    consumer.poll(0.5)
    ready.set()
    got = {}
    while not done.is_set() and len(got) < expected:
        # One at a time: consume(n) would hold messages until n have arrived.
        msg = consumer.poll(0.1)
        if msg is None or msg.error():
            continue
        now_us = time.time_ns() // 1000
        m = ID.search(msg.value() or b"")
        if m:
            got[int(m.group(1))] = now_us
    consumer.close()
    results.put(got)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def start_relay(name, bootstrap, src, dst, cdcd, work):
    """The relay's processes, reading `src` from its end and writing `dst`."""
    if name == "kcat":
        c = subprocess.Popen(["kcat", "-C", "-u", "-b", bootstrap, "-t", src, "-o", "end", "-q"],
                             stdout=subprocess.PIPE)
        p = subprocess.Popen(["kcat", "-P", "-u", "-b", bootstrap, "-t", dst], stdin=c.stdout)
        c.stdout.close()
        return [c, p]
    env = dict(os.environ, KAFKA_BOOTSTRAP=bootstrap, RELAY_IN=src, RELAY_OUT=dst,
               RELAY_GROUP=f"latency-{src}")
    log = open(work / f"cdcd-{src}.log", "wb")
    return [subprocess.Popen([cdcd, "run", str(HERE / "relay.yaml"), "--state-dir", str(work / f"state-{src}")],
                             env=env, stdout=subprocess.DEVNULL, stderr=log)]


def measure(name, b, rnd, rate, seconds, cdcd, work):
    """One relay alone on the broker: {message id: (input arrival µs, output arrival µs)}."""
    src, dst = f"in_{name}_{rnd}", f"out_{name}_{rnd}"
    b.create_topic(src, partitions=4)
    b.create_topic(dst, partitions=1)
    procs = start_relay(name, b.bootstrap, src, dst, cdcd, work)
    time.sleep(5)  # it has joined and sits at the end of the input
    total = int(rate * seconds)
    done = multiprocessing.Event()
    readers = {}
    for role, topic, partitions in (("in", src, 4), ("out", dst, 1)):
        ready, results = multiprocessing.Event(), multiprocessing.Queue()
        proc = multiprocessing.Process(target=arrivals, daemon=True,
                                       args=(b.bootstrap, topic, partitions, total, ready, done, results))
        proc.start()
        ready.wait(30)
        readers[role] = (proc, results)
    sent = produce_paced(b.bootstrap, src, rate, seconds)
    got = {}
    for role, (proc, results) in readers.items():
        try:  # what arrived within 30 s after the last send
            got[role] = results.get(timeout=30)
        except queue.Empty:
            done.set()
            got[role] = results.get(timeout=30)
        proc.join(10)
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    return sent, got["in"], got["out"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=5000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kafka_latency_bench_"))
    cdcd = str(work / "cdcd")
    shutil.copy2(CDCD, cdcd)
    warm_up = int(args.rate * WARM_UP_S)  # the first messages' ids
    latencies = {"kcat": [], "cdcd": []}
    arrived_counts = {"kcat": [], "cdcd": []}
    with KafkaBroker(quick_jvm=False) as b:
        for rnd in range(args.rounds):
            for name in ("kcat", "cdcd"):
                sent, read_in, read_out = measure(name, b, rnd, args.rate, args.seconds, cdcd, work)
                lat = [(at - read_in[i]) / 1000.0 for i, at in read_out.items() if i >= warm_up and i in read_in]
                if not lat:
                    raise SystemExit(f"{name}: no message arrived; see {work}")
                latencies[name] += lat
                arrived_counts[name].append(len(read_out))
                print(f"round {rnd} {name}: {len(read_out):,} of {sent:,} arrived, p50 {percentile(lat, 50):.1f} ms, "
                      f"p99 {percentile(lat, 99):.1f} ms", flush=True)
        load = os.getloadavg()

    rows = []
    figures = {}
    for name, lat in latencies.items():
        figures[name] = {q: percentile(lat, q) for q in (50, 90, 99)}
        figures[name]["max"] = max(lat)
        rows.append(f"| {name} | {' / '.join(f'{n:,}' for n in arrived_counts[name])} of {sent:,} | "
                    f"{figures[name][50]:.1f} | {figures[name][90]:.1f} | {figures[name][99]:.1f} | "
                    f"{figures[name]['max']:.1f} |")
    k, c_ = figures["kcat"], figures["cdcd"]
    lines = [
        "# Kafka → Kafka latency: kcat | kcat versus cdcd",
        "",
        f"Generated by `bench/kafka_latency/run.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"{sent:,} debezium-json messages per round at {args.rate:,}/s into a 4-partition topic of a local Kafka broker "
        f"(KRaft); each relay alone in turn, {args.rounds} rounds alternating, reading a fresh input topic and "
        "writing a 1-partition topic; percentiles over every round's messages. Latency = arrival of a "
        "message at a consumer of the relay's output − its arrival at a consumer of the input; the first "
        f"{WARM_UP_S:.0f} s are left out. Machine: {os.cpu_count()} cores, shared with the broker (load average "
        f"at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}).",
        "",
        "| relay | arrived per round | p50 ms | p90 ms | p99 ms | max ms |",
        "|---|---|---:|---:|---:|---:|",
        *rows,
        "",
        f"- **p50 cdcd / kcat: {c_[50] / k[50]:.2f}×**, **p99: {c_[99] / k[99]:.2f}×** (target ≤ 1.5× each)",
        "",
    ]
    out = ROOT / "bench" / "reports" / "kafka_latency.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"report: {out}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
