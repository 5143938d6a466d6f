#!/usr/bin/env python3
"""dingtalk-cdc against the DingTalk emulator (not a test; always exits 0).

One workspace seeded with BENCH_DOCS (10,000) documents in a folder tree (fan-out
BENCH_FANOUT), a few blocks each; emulator without QPS limits, cdcd's rate limits raised to
100,000 rps; `cdcd run` with scan.startup.mode initial, a short poll interval and a file sink.
Measures
  (a) the initial sync: wall time, requests per endpoint (emulator counters),
  (b) one poll with no change: requests per endpoint (must hold no DocBlocksQuery),
  (c) one poll after editing 10 documents: exactly those fetched; wall time and requests,
cdcd's peak RSS (VmHWM, VmRSS sampled every 50 ms) and CPU seconds per phase, and the
emulator's CPU seconds. Then a plain Python client (aiohttp, one keep-alive connection,
sequential like one cdcd split) replays the same request mix, so the report shows whether cdcd
or the emulator is the limit. Writes bench/reports/dingtalk.md.
"""
from __future__ import annotations

import asyncio
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

REPO = pathlib.Path(__file__).resolve().parents[2]
CDCD = os.environ.get("CDCD_BIN", str(REPO / "build" / "release" / "cmd" / "cdcd"))
DOCS = int(os.environ.get("BENCH_DOCS", "10000"))
FANOUT = int(os.environ.get("BENCH_FANOUT", "30"))
BLOCKS = int(os.environ.get("BENCH_BLOCKS_PER_DOC", "4"))
OTHER_FILES = int(os.environ.get("BENCH_OTHER_FILES", "50"))
PREFIX = int(os.environ.get("BENCH_PREFIX_SIZE", "100"))  # the option's default
POLL_S = float(os.environ.get("BENCH_POLL_S", "2"))
SINK = os.environ.get("BENCH_SINK", "file")  # file | values (rows are then not counted)
CHANGED = 10
RSS_TARGET_MB = 64
ENDPOINTS = ("GetAccessToken", "GetWorkspace", "ListWorkspaces", "ListNodes", "GetNode",
             "DocBlocksQuery")

sys.path.insert(0, str(REPO / "tests" / "emulators" / "dingtalk"))
sys.path.insert(0, str(REPO / "tests" / "integration"))
from cdcd_process import wait_for as wait_until  # noqa: E402
from client import DingTalkEmulator  # noqa: E402

APP_KEY, APP_SECRET, OPERATOR = "dingbenchkey0001", "bench-secret", "opBench001"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    except OSError:
        return float("nan")


class Sampler(threading.Thread):
    """VmRSS / VmHWM of a process every 50 ms."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.stop_event = pid, threading.Event()
        self.peak_rss_kb = self.hwm_kb = self.last_rss_kb = 0

    def run(self):
        while not self.stop_event.wait(0.05):
            try:
                for line in pathlib.Path(f"/proc/{self.pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        self.last_rss_kb = int(line.split()[1])
                        self.peak_rss_kb = max(self.peak_rss_kb, self.last_rss_kb)
                    elif line.startswith("VmHWM:"):
                        self.hwm_kb = max(self.hwm_kb, int(line.split()[1]))
            except OSError:
                return


def counts(emu) -> dict[str, int]:
    c = emu.counters()
    return {k: v["total"] for k, v in c.items()}


def log(emu) -> dict[str, list]:
    return emu.requests()


def bursts(times: list[float], gap: float) -> list[tuple[float, float]]:
    """Groups sorted timestamps into (first, last) bursts separated by more than `gap`."""
    out = []
    for t in sorted(times):
        if out and t - out[-1][1] <= gap:
            out[-1][1] = t
        else:
            out.append([t, t])
    return [tuple(b) for b in out]


def in_range(entries, lo, hi):
    return [e for e in entries if lo <= e["t"] <= hi]


def wait_poll_idle(emu, min_idle: float, timeout: float):
    """Waits until a walk has finished: the last ListNodes is at least `min_idle` s old and at
    least one ListNodes arrived since the call. Returns the wall-clock time."""
    start = time.time()

    def idle():
        ln = emu.requests("ListNodes").get("ListNodes", [])
        if not ln or ln[-1]["t"] < start:
            return False
        return time.time() - ln[-1]["t"] >= min_idle

    return wait_until(idle, timeout, 0.02)


def pipeline_yaml(emu, out: pathlib.Path) -> str:
    opts = {
        "object-type": "document",
        "app-key": APP_KEY,
        "app-secret": APP_SECRET,
        "operator-id": OPERATOR,
        "endpoint": emu.url,
        "scan.startup.mode": "initial",
        "scan.poll-interval": f"{int(POLL_S * 1000)}ms",
        "scan.prefix-size": str(PREFIX),
        "scan.discovery.interval": "10min",
        "scan.discovery.rate-limit.requests-per-second": "100000",
        "scan.metadata.rate-limit.requests-per-second": "100000",
        "scan.content.rate-limit.requests-per-second": "100000",
        "scan.fetch.rate-limit.requests-per-second": "100000",
    }
    src = "\n".join(f"  {k}: {json.dumps(v)}" for k, v in opts.items())
    sink = (f"  type: file\n  path: {out}\n  format: debezium-json" if SINK == "file" else
            "  type: values\n  print.enabled: false")
    return f"""
source:
  type: dingtalk-cdc
{src}
sink:
{sink}
pipeline:
  name: bench-dingtalk
  execution.checkpointing.interval: 1s
"""


def line_count(path: pathlib.Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


# ---- the plain Python client ------------------------------------------------------------------
class SyncClient:
    """http.client on one keep-alive connection: the cheapest plain-Python sequential client."""

    def __init__(self, port: int):
        import http.client
        self.conn = http.client.HTTPConnection("127.0.0.1", port)
        body = json.dumps({"appKey": APP_KEY, "appSecret": APP_SECRET})
        self.conn.request("POST", "/v1.0/oauth2/accessToken", body,
                          {"Content-Type": "application/json"})
        self.token = json.loads(self.conn.getresponse().read())["accessToken"]
        self.n = {"ListNodes": 0, "GetNode": 0, "DocBlocksQuery": 0}

    def get(self, path: str, params: dict, endpoint: str):
        from urllib.parse import urlencode
        self.conn.request("GET", f"{path}?{urlencode(params)}",
                          headers={"x-acs-dingtalk-access-token": self.token})
        r = self.conn.getresponse()
        body = json.loads(r.read())
        if r.status != 200:
            raise RuntimeError(f"{endpoint}: {r.status} {body}")
        self.n[endpoint] += 1
        return body


def walk(get, root: str) -> list[str]:
    """Depth-first ListNodes walk (maxResults 50, as cdcd); the ALIDOC documents found."""
    docs, stack = [], [root]
    while stack:
        parent, token, children = stack.pop(), "", []
        while True:
            p = {"parentNodeId": parent, "operatorId": OPERATOR, "maxResults": "50"}
            if token:
                p["nextToken"] = token
            body = get("/v2.0/wiki/nodes", p, "ListNodes")
            for node in body.get("nodes", []):
                if node.get("hasChildren"):
                    children.append(node["nodeId"])
                if node.get("type") == "FILE" and node.get("category") == "ALIDOC":
                    docs.append(node["nodeId"])
            token = body.get("nextToken") or ""
            if not token:
                break
        stack.extend(reversed(children))
    return docs


def fetch(get, doc: str) -> None:
    """GetNode, block pages of 10 until a short page, GetNode (cdcd's consistent read)."""
    get(f"/v2.0/wiki/nodes/{doc}", {"operatorId": OPERATOR}, "GetNode")
    start = 0
    while True:
        body = get(f"/v1.0/doc/suites/documents/{doc}/blocks",
                   {"operatorId": OPERATOR, "startIndex": str(start), "endIndex": str(start + 9)},
                   "DocBlocksQuery")
        if len(body["result"]["data"]) < 10:
            break
        start += 10
    get(f"/v2.0/wiki/nodes/{doc}", {"operatorId": OPERATOR}, "GetNode")


def python_sequential(port: int, root: str, walks: int, docs: list[str]):
    """`walks` walks then a consistent read of each of `docs`, one request at a time.
    Returns (seconds of the walks, seconds of the fetches, {endpoint: requests})."""
    c = SyncClient(port)
    t, cpu = time.perf_counter(), time.process_time()
    for _ in range(walks):
        walk(c.get, root)
    t_walks = time.perf_counter() - t
    t = time.perf_counter()
    for d in docs:
        fetch(c.get, d)
    return t_walks, time.perf_counter() - t, c.n, time.process_time() - cpu


async def python_concurrent(url: str, docs: list[str], concurrency: int):
    """Consistent reads of `docs` over `concurrency` aiohttp keep-alive connections: the
    emulator's capacity when the client is not one-request-at-a-time."""
    import aiohttp

    n = {"GetNode": 0, "DocBlocksQuery": 0}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as s:
        async with s.post(f"{url}/v1.0/oauth2/accessToken",
                          json={"appKey": APP_KEY, "appSecret": APP_SECRET}) as r:
            h = {"x-acs-dingtalk-access-token": (await r.json())["accessToken"]}

        async def get(path, params, endpoint):
            async with s.get(f"{url}{path}", params=params, headers=h) as r:
                body = await r.json()
            n[endpoint] += 1
            return body

        async def worker(queue):
            while queue:
                d = queue.pop()
                await get(f"/v2.0/wiki/nodes/{d}", {"operatorId": OPERATOR}, "GetNode")
                await get(f"/v1.0/doc/suites/documents/{d}/blocks",
                          {"operatorId": OPERATOR, "startIndex": "0", "endIndex": "9"},
                          "DocBlocksQuery")
                await get(f"/v2.0/wiki/nodes/{d}", {"operatorId": OPERATOR}, "GetNode")

        queue = list(docs)
        t, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(worker(queue) for _ in range(concurrency)))
        return time.perf_counter() - t, n, time.process_time() - cpu


def fmt_counts(c: dict[str, int]) -> str:
    keys = [k for k in ENDPOINTS if c.get(k)] + sorted(k for k in c if k not in ENDPOINTS and c[k])
    return ", ".join(f"{k} {c[k]:,}" for k in keys) or "none"


def run_bench(tmp: pathlib.Path, notes: list[str]) -> dict:
    res: dict = {}
    emu = DingTalkEmulator()
    emu.start()
    proc = None
    log_file = None
    sampler = None
    try:
        emu.create_app(APP_KEY, APP_SECRET)
        emu.create_operators(OPERATOR)
        t = time.perf_counter()
        seeded = emu.seed(DOCS, fanout=FANOUT, ownerId=OPERATOR, blocksPerDoc=BLOCKS,
                          otherFiles=OTHER_FILES)
        res["seed_s"] = time.perf_counter() - t
        res["folders"] = len(seeded["folderIds"])
        res["files"] = len(seeded["fileIds"])
        ws, root = seeded["workspaceId"], seeded["rootNodeId"]
        doc_ids = seeded["documentIds"]
        emu_pid = emu.proc.pid
        emu.clear_requests()

        out = tmp / "out.jsonl"
        yaml = tmp / "bench.yaml"
        yaml.write_text(pipeline_yaml(emu, out))
        cdcd_log = tmp / "cdcd.log"
        log_file = open(cdcd_log, "w")
        emu_cpu0 = cpu_seconds(emu_pid)
        t0 = time.time()
        proc = subprocess.Popen([CDCD, "run", str(yaml), "--state-dir", str(tmp / "state")],
                                stdout=log_file, stderr=subprocess.STDOUT)
        sampler = Sampler(proc.pid)
        sampler.start()

        # (a) initial sync: until the snapshot-complete log line.
        def snapshot_done():
            if proc.poll() is not None:
                raise RuntimeError(f"cdcd exited {proc.returncode}: "
                                   f"{cdcd_log.read_text()[-2000:]}")
            return "snapshot complete" in cdcd_log.read_text()

        if not wait_until(snapshot_done, 1800, 0.05):
            raise RuntimeError("initial sync did not complete in 30 min")
        t1 = time.time()
        cpu1, emu_cpu1 = cpu_seconds(proc.pid), cpu_seconds(emu_pid)
        c_initial = counts(emu)
        lg = log(emu)
        first = min(e["t"] for v in lg.values() for e in v)
        last_blocks = max(e["t"] for e in lg.get("DocBlocksQuery", [{"t": first}]))
        rows = wait_until(lambda: line_count(out) >= DOCS, 30, 0.05) and line_count(out)
        # time between consecutive requests, by the kind of the later one: walk vs fetch
        seq = sorted((e["t"], k) for k, v in lg.items() for e in v)
        split_s = {"walk": 0.0, "fetch": 0.0}
        for (ta, _), (tb, kb) in zip(seq, seq[1:]):
            split_s["walk" if kb == "ListNodes" else "fetch"] += tb - ta
        res["initial"] = {
            "wall_s": t1 - t0, "first_to_last_block_s": last_blocks - first,
            "counts": c_initial, "cpu_s": cpu1, "emu_cpu_s": emu_cpu1 - emu_cpu0,
            "rows": line_count(out), "rss_kb": sampler.peak_rss_kb,
            "distinct_blocks_docs": len({e["key"] for e in lg.get("DocBlocksQuery", [])}),
            "walk_s": split_s["walk"], "fetch_s": split_s["fetch"],
        }
        del rows
        per_walk_guess = res["folders"] + 1
        emu.clear_requests()  # a small log keeps the driver's own control calls cheap

        # (b) an unchanged poll: the next complete walk after the snapshot. Polls are
        # POLL_S apart; a walk is over when no ListNodes arrived for POLL_S / 2.
        wait_poll_idle(emu, POLL_S / 2, 120)
        emu.clear_requests()
        cpu_b0, emu_b0 = cpu_seconds(proc.pid), cpu_seconds(emu_pid)
        wait_poll_idle(emu, POLL_S / 2, 120)
        cpu_b1, emu_b1 = cpu_seconds(proc.pid), cpu_seconds(emu_pid)
        lg = log(emu)
        c_b = counts(emu)
        ln = [e["t"] for e in lg.get("ListNodes", [])]
        all_t = sorted(e["t"] for v in lg.values() for e in v)
        res["per_walk"] = c_b.get("ListNodes", 0) / max(1, len(bursts(ln, POLL_S / 2)))
        res["unchanged"] = {
            "counts": c_b, "wall_s": (all_t[-1] - all_t[0]) if all_t else float("nan"),
            "polls": len(bursts(ln, POLL_S / 2)), "cpu_s": cpu_b1 - cpu_b0,
            "emu_cpu_s": emu_b1 - emu_b0, "per_walk_guess": per_walk_guess,
        }

        # (c) edit 10 documents right after a walk, then measure the poll that picks them up.
        step = max(1, len(doc_ids) // CHANGED)
        edited = [doc_ids[i * step + 7 % step] for i in range(CHANGED)]
        rows_before = line_count(out)
        wait_poll_idle(emu, POLL_S / 2, 120)
        emu.clear_requests()
        for i, d in enumerate(edited):
            emu.edit(d, name=f"Edited {i}", blocks=[
                {"blockType": "heading", "heading": {"level": 1, "text": f"Edited {i}"},
                 "children": [{"text": f"Edited {i}"}]},
                {"blockType": "paragraph", "paragraph": {"text": "changed"},
                 "children": [{"text": "changed"}]}])
        t_edit = time.time()
        cpu_c0, emu_c0 = cpu_seconds(proc.pid), cpu_seconds(emu_pid)
        got = wait_until(lambda: line_count(out) >= rows_before + CHANGED, 120, 0.02)
        t_rows = time.time()
        # let the walk finish (no more requests in flight), then read the log
        wait_until(lambda: time.time() - max((e["t"] for v in log(emu).values() for e in v),
                                             default=0) > 0.2, 30, 0.05)
        cpu_c1, emu_c1 = cpu_seconds(proc.pid), cpu_seconds(emu_pid)
        lg = log(emu)
        ln = [e["t"] for e in lg.get("ListNodes", [])]
        polls = bursts(ln, POLL_S / 2)
        fetch_keys = [e["key"] for e in lg.get("DocBlocksQuery", [])]
        # the poll that fetched: the ListNodes burst before the first block request
        poll_start = max((b[0] for b in polls if fetch_keys and b[0] <= min(
            e["t"] for e in lg["DocBlocksQuery"])), default=None)
        poll_entries = {k: in_range(v, poll_start, poll_start + POLL_S / 2 + 60)
                        for k, v in lg.items()} if poll_start else {}
        # stop at the end of that poll: the first ListNodes of the next burst
        nxt = [b[0] for b in polls if poll_start and b[0] > poll_start]
        if nxt:
            poll_entries = {k: [e for e in v if e["t"] < nxt[0]] for k, v in poll_entries.items()}
        c_c = {k: len(v) for k, v in poll_entries.items() if v}
        last = max((e["t"] for v in poll_entries.values() for e in v), default=float("nan"))
        res["changed"] = {
            "counts": c_c, "wall_s": last - poll_start if poll_start else float("nan"),
            "edit_to_rows_s": t_rows - t_edit, "rows": line_count(out) - rows_before,
            "rows_ok": bool(got),
            "fetched": sorted(set(fetch_keys)), "edited": sorted(edited),
            "getnode_keys": sorted({e["key"] for e in lg.get("GetNode", [])}),
            "cpu_s": cpu_c1 - cpu_c0, "emu_cpu_s": emu_c1 - emu_c0,
        }

        res["cdcd_cpu_total_s"] = cpu_seconds(proc.pid)
        res["rss_last_kb"] = sampler.last_rss_kb
        sampler.stop_event.set()
        sampler.join()
        res["peak_rss_kb"], res["hwm_kb"] = sampler.peak_rss_kb, sampler.hwm_kb
        proc.send_signal(signal.SIGTERM)
        try:
            res["exit"] = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            res["exit"] = "killed after 30 s"
        proc = None

        # Python client: the same request mix, sequential on one keep-alive connection.
        walks = round(c_initial.get("ListNodes", 0) / max(1, res["per_walk"])) or 1
        emu.clear_requests()
        e0 = cpu_seconds(emu_pid)
        t_walks, t_fetch, n, cpu = python_sequential(emu.port, root, walks, doc_ids)
        res["py_initial"] = {"s": t_walks + t_fetch, "walks_s": t_walks, "fetch_s": t_fetch,
                             "counts": n, "walks": walks, "emu_cpu_s": cpu_seconds(emu_pid) - e0,
                             "cpu_s": cpu}
        e0 = cpu_seconds(emu_pid)
        secs, n, cpu = asyncio.run(python_concurrent(emu.url, doc_ids, 16))
        res["py_fetch16"] = {"s": secs, "counts": n, "emu_cpu_s": cpu_seconds(emu_pid) - e0,
                             "cpu_s": cpu}
        res["loadavg"] = pathlib.Path("/proc/loadavg").read_text().split()[:3]
    except Exception:
        notes.append("benchmark failed: " + traceback.format_exc(limit=3))
    finally:
        if sampler is not None:
            sampler.stop_event.set()
            res.setdefault("peak_rss_kb", sampler.peak_rss_kb)
            res.setdefault("hwm_kb", sampler.hwm_kb)
        if proc is not None:
            proc.kill()
            proc.wait()
        if log_file:
            log_file.close()
        emu.stop()
    return res


def verdict(ratio: float) -> str:
    """cdcd wall / plain-Python wall for the same requests, in words."""
    if ratio <= 1.15:
        return (f"cdcd needs {ratio:.2f}× the time a plain Python client needs for the same "
                "requests: the emulator and the round trips, not cdcd, are the limit")
    return (f"cdcd needs {ratio:.2f}× the time a plain Python client needs for the same "
            "requests: cdcd adds time of its own beyond the emulator's")


def report(res: dict, notes: list[str]) -> str:
    mb = lambda kb: kb / 1024  # noqa: E731
    lines = [
        "# dingtalk-cdc benchmark",
        "",
        f"Written by `bench/dingtalk/run.py`; `cdcd` at `{CDCD}`; {os.cpu_count()} cores shared "
        "by cdcd, the emulator (one Python process) and the driver.",
        "",
        f"One workspace seeded with {DOCS:,} documents ({BLOCKS} top-level blocks each, one "
        f"block page per document), {res.get('folders', '?')} folders (fan-out {FANOUT}) and "
        f"{res.get('files', '?')} other files. Timings are wall-clock on a shared machine "
        "(see the load average below); CPU seconds and request counts are the stable figures. "
        "Emulator without QPS limits; cdcd's four "
        f"rate limits at 100,000 rps; `scan.startup.mode: initial`, `scan.poll-interval: "
        f"{POLL_S:g}s`, `scan.prefix-size: {PREFIX}`; file sink (debezium-json), checkpoint "
        "every 1 s.",
        "",
    ]
    if "initial" in res:
        a, b, c = res["initial"], res.get("unchanged", {}), res.get("changed", {})
        lines += [
            "| phase | wall s | requests per endpoint | cdcd CPU s | emulator CPU s |",
            "|---|---:|---|---:|---:|",
            f"| (a) initial sync ({a['rows']:,} rows) | {a['wall_s']:.2f} | "
            f"{fmt_counts(a['counts'])} | {a['cpu_s']:.2f} | {a['emu_cpu_s']:.2f} |",
        ]
        if b:
            lines.append(
                f"| (b) unchanged poll ×{b['polls']} | {b['wall_s']:.2f} | "
                f"{fmt_counts(b['counts'])} | {b['cpu_s']:.2f} | {b['emu_cpu_s']:.2f} |")
        if c:
            lines.append(
                f"| (c) poll after editing {CHANGED} documents | {c['wall_s']:.2f} | "
                f"{fmt_counts(c['counts'])} | {c['cpu_s']:.2f} | {c['emu_cpu_s']:.2f} |")
        lines.append("")
        lines.append(f"- initial sync: {a['wall_s']:.2f} s from `cdcd run` to the "
                     f"snapshot-complete log line ({DOCS / a['wall_s']:,.0f} documents/s); "
                     f"{a['distinct_blocks_docs']:,} distinct documents fetched; "
                     f"{a['counts'].get('ListNodes', 0):,} ListNodes = "
                     f"{a['counts'].get('ListNodes', 0) / res.get('per_walk', 1):.1f} walks of "
                     f"{res.get('per_walk', 0):.0f} ListNodes pages (a walk per scan of at most "
                     f"`scan.prefix-size` = {PREFIX} documents)")
        ac = a["counts"]
        quota_s = (ac.get("ListNodes", 0) / 5, ac.get("GetNode", 0) / 20,
                   ac.get("DocBlocksQuery", 0) / 10)
        lines.append(
            f"- at the default rate limits (discovery 5, metadata 20, content 10 rps) the same "
            f"requests need at least {sum(quota_s) / 60:,.0f} min, of which the re-walks take "
            f"{quota_s[0] / 60:,.0f} min (ListNodes), GetNode {quota_s[1] / 60:,.0f} min and "
            f"DocBlocksQuery {quota_s[2] / 60:,.0f} min: with `scan.prefix-size` far below the "
            "document count, walking dominates the snapshot")
        if b:
            blocks = b["counts"].get("DocBlocksQuery", 0)
            lines.append(
                f"- unchanged poll: **{'PASS' if blocks == 0 else 'FAIL'}** — DocBlocksQuery "
                f"requests: {blocks}, GetNode: {b['counts'].get('GetNode', 0)}; "
                f"ListNodes per poll: {b['counts'].get('ListNodes', 0) / max(1, b['polls']):.0f}")
        if c:
            exact = c["fetched"] == c["edited"] and set(c["getnode_keys"]) <= set(c["edited"])
            lines.append(
                f"- 10-change poll: **{'PASS' if exact else 'FAIL'}** — documents fetched "
                f"(DocBlocksQuery keys) {len(c['fetched'])}, equal to the edited set: "
                f"{c['fetched'] == c['edited']}; GetNode only on edited documents: "
                f"{set(c['getnode_keys']) <= set(c['edited'])}; {c['rows']} rows emitted; "
                f"{c['edit_to_rows_s']:.2f} s from the last edit to the rows in the file "
                f"(includes up to one poll interval of waiting)")
        lines.append("")
    peak = max(res.get("hwm_kb", 0), res.get("peak_rss_kb", 0))
    if peak:
        lines += [
            f"cdcd memory: peak RSS **{mb(peak):.1f} MB** (VmHWM; sampled VmRSS peak "
            f"{mb(res.get('peak_rss_kb', 0)):.1f} MB, "
            f"{mb(res.get('initial', {}).get('rss_kb', 0)):.1f} MB at the end of the initial "
            f"sync, {mb(res.get('rss_last_kb', 0)):.1f} MB at the end) — target ≤ {RSS_TARGET_MB} "
            f"MB: **{'PASS' if mb(peak) <= RSS_TARGET_MB else 'FAIL'}**. cdcd CPU over the whole "
            f"run: {res.get('cdcd_cpu_total_s', float('nan')):.2f} s.",
            "",
        ]
    if "py_initial" in res:
        p, f16 = res["py_initial"], res["py_fetch16"]
        a = res["initial"]
        total = lambda c: sum(c.values())  # noqa: E731
        walk_n = a["counts"].get("ListNodes", 0)
        fetch_n = a["counts"].get("GetNode", 0) + a["counts"].get("DocBlocksQuery", 0)
        lines += [
            "## cdcd or the emulator?",
            "",
            "A plain Python client (`http.client`, one keep-alive connection, one request at a "
            "time like one cdcd split) replays the same requests against the same emulator after "
            "cdcd stopped: the same number of walks, then GetNode, blocks, GetNode per document. "
            "cdcd's walk/fetch split comes from the emulator's request log (time before each "
            "ListNodes counts as walking).",
            "",
            "| client | requests | wall s | walks s (ms/ListNodes) | fetches s (ms/request) |",
            "|---|---|---:|---:|---:|",
            f"| cdcd, initial sync | {fmt_counts(a['counts'])} | {a['wall_s']:.2f} | "
            f"{a['walk_s']:.2f} ({1000 * a['walk_s'] / max(1, walk_n):.3f}) | "
            f"{a['fetch_s']:.2f} ({1000 * a['fetch_s'] / max(1, fetch_n):.3f}) |",
            f"| Python sequential, same requests ({p['walks']} walks) | {fmt_counts(p['counts'])} "
            f"| {p['s']:.2f} | {p['walks_s']:.2f} "
            f"({1000 * p['walks_s'] / max(1, p['counts']['ListNodes']):.3f}) | {p['fetch_s']:.2f} "
            f"({1000 * p['fetch_s'] / max(1, total(p['counts']) - p['counts']['ListNodes']):.3f}) |",
            f"| Python aiohttp, fetches only, 16 connections | {fmt_counts(f16['counts'])} | "
            f"{f16['s']:.2f} | – | {f16['s']:.2f} ({1000 * f16['s'] / max(1, total(f16['counts'])):.3f}) |",
            "",
            "| client | its own CPU s | emulator CPU s | emulator CPU per request ms |",
            "|---|---:|---:|---:|",
            f"| cdcd, initial sync | {a['cpu_s']:.2f} | {a['emu_cpu_s']:.2f} | "
            f"{1000 * a['emu_cpu_s'] / max(1, total(a['counts'])):.3f} |",
            f"| Python sequential | {p['cpu_s']:.2f} | {p['emu_cpu_s']:.2f} | "
            f"{1000 * p['emu_cpu_s'] / max(1, total(p['counts'])):.3f} |",
            f"| Python aiohttp ×16 | {f16['cpu_s']:.2f} | {f16['emu_cpu_s']:.2f} | "
            f"{1000 * f16['emu_cpu_s'] / max(1, total(f16['counts'])):.3f} |",
            "",
            f"- cdcd CPU per request during the initial sync: "
            f"{1e6 * a['cpu_s'] / max(1, total(a['counts'])):.0f} µs (HTTP, JSON, rendering, the "
            f"pipeline and the file sink) against the emulator's "
            f"{1e6 * a['emu_cpu_s'] / max(1, total(a['counts'])):.0f} µs: in the one-request-at-"
            "a-time ping-pong of a split the emulator is the larger share of every round trip",
            "- " + verdict(a["wall_s"] / p["s"]),
            f"- load average at the end: {' '.join(res.get('loadavg', []))} (2 cores shared "
            "with other work)",
            f"- cdcd wall / sequential Python wall for the same requests: "
            f"**{a['wall_s'] / p['s']:.2f}×**",
            "",
        ]
    if notes:
        lines += ["## Notes", ""] + [f"```\n{n}\n```" for n in notes] + [""]
    return "\n".join(lines)


def main():
    notes: list[str] = []
    res: dict = {}
    if not pathlib.Path(CDCD).exists():
        notes.append(f"cdcd binary not found at {CDCD}; build it or set CDCD_BIN")
    else:
        try:
            with tempfile.TemporaryDirectory(prefix="cdcd-bench-dingtalk-") as tmp:
                res = run_bench(pathlib.Path(tmp), notes)
        except Exception:
            notes.append(traceback.format_exc(limit=3))
    text = report(res, notes)
    out = REPO / "bench" / "reports" / "dingtalk.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)
    print(json.dumps({k: v for k, v in res.items() if k != "changed"}, default=str)[:4000],
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a benchmark reports, it does not fail
        traceback.print_exc()
        sys.exit(0)
