"""Answers over their size limit (docs/reliability.md, "Limits"): an OSS listing or MNS batch too
large stops the pipeline at once with an error naming the URL, the limit and the connector, having
read no more than the limit; an object too large for FETCH_CONTENT is a bad record."""
import os
import signal

import cdcd_process as cdcd
from oss_helpers import Daemon, fields, pipeline

MIB = 1 << 20
# A quarter of a GiB: under the old 1 GiB limit it was read whole (and held in memory).
HUGE = 256 * MIB


def opts(emu, **extra):
    o = {"scan.startup.mode": "SNAPSHOT", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou",
         "oss-bucket": "b1"}
    o.update(extra)
    return o


def run_measured(tmp_path, yaml_text, tag="run", timeout=60.0):
    """Runs cdcd to its end: (exit code, daemon, peak RSS in MiB), the peak from wait4()."""
    d = Daemon(tmp_path, yaml_text, tag=tag).start()
    pid = d.proc.pid
    stopped = cdcd.wait_for(lambda: _exited(pid), timeout, 0.05)
    if not stopped:
        os.kill(pid, signal.SIGKILL)
    _, status, usage = os.wait4(pid, 0)
    d.proc.returncode = os.waitstatus_to_exitcode(status)
    d.out.close()
    d.err.close()
    assert stopped, f"cdcd did not stop within {timeout} s: {d.stderr()[-2000:]}"
    return d.proc.returncode, d, usage.ru_maxrss / 1024


def _exited(pid: int) -> bool:
    """True once `pid` is a zombie (exited, not yet reaped: wait4 reaps it with its usage)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_an_oversized_listing_stops_the_pipeline_clearly_with_bounded_memory(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": "a.txt", "content": "a"}])
    emu.inject_fault("ListObjectsV2", kind="oversize", size=HUGE, count=100)
    rc, d, peak_mib = run_measured(tmp_path, pipeline(emu, **opts(emu)))
    err = d.stderr()
    assert rc == 1, err
    assert "response too large" in err
    assert f"({emu.endpoint}/b1/)" in err  # the URL, without its query
    assert "list-type" not in err and "Signature" not in err
    assert "16777216 bytes (16 MiB)" in err
    assert "the oss-cdc source's fixed limit on ListObjectsV2 answers" in err
    # Not retried: the same answer would come again.
    assert emu.counters()["ListObjectsV2"] == 1
    assert peak_mib < 128, f"peak RSS {peak_mib:.0f} MiB"


def test_an_announced_oversized_listing_is_refused_before_its_body(emu, tmp_path):
    emu.create_bucket("b1")
    emu.inject_fault("ListObjectsV2", kind="oversize", size=HUGE, chunked=False)
    rc, d, peak_mib = run_measured(tmp_path, pipeline(emu, **opts(emu)))
    assert rc == 1
    assert "the body exceeds 16777216 bytes (16 MiB)" in d.stderr()
    assert peak_mib < 128, f"peak RSS {peak_mib:.0f} MiB"


def test_an_oversized_mns_batch_stops_the_pipeline_clearly(emu, tmp_path):
    emu.create_bucket("b1")
    mns = emu.mns
    mns.create_queue("q1")
    emu.add_notification("b1", "q1")
    mns.inject_fault("BatchReceiveMessage", kind="oversize", size=HUGE, count=100)
    yaml_text = pipeline(emu, **{"scan.incremental.mode": "MNS", "scan.startup.mode": "LATEST_OFFSET",
                                 "mns.endpoint": mns.url, "mns.region": "cn-hangzhou",
                                 "mns.queue-name": "q1", "mns.polling-wait-time": "1s"})
    rc, d, peak_mib = run_measured(tmp_path, yaml_text)
    err = d.stderr()
    assert rc == 1, err
    assert "MNS BatchReceiveMessage" in err and "response too large" in err
    assert "4194304 bytes (4 MiB), the oss-cdc source's fixed limit on MNS answers" in err
    assert mns.counters()["BatchReceiveMessage"] == 1
    assert peak_mib < 128, f"peak RSS {peak_mib:.0f} MiB"


TRANSFORM = "transform:\n  - source-table: b1\n    projection: key, FETCH_CONTENT(url) AS content\n"


def test_an_object_sent_whole_past_fetch_content_max_size_is_a_bad_record(emu, tmp_path):
    # The server ignores the Range: the object comes whole, and reading stops at the limit.
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": "a.txt", "content": "small"}, {"key": "big.bin", "content": "b"}])
    policy = "pipeline:\n  bad-record.policy: skip\n"
    yaml_text = pipeline(emu, transform=TRANSFORM, **opts(emu, **{"fetch-content.max-size": "1mb"}))
    yaml_text = yaml_text.replace("pipeline:\n", policy, 1)
    # GetObject of a.txt comes first (keys in order): the fault hits big.bin.
    emu.inject_fault("GetObject", kind="delay", delay_ms=0)
    emu.inject_fault("GetObject", kind="oversize", size=HUGE)
    rc, d, peak_mib = run_measured(tmp_path, yaml_text)
    err = d.stderr()
    assert rc == 0, err
    rows = {fields(e[3])[0]: fields(e[3])[1] for e in d.events()}
    assert set(rows) == {"a.txt"}
    assert "oss://b1/big.bin" in err and "fetch-content.max-size" in err
    assert peak_mib < 128, f"peak RSS {peak_mib:.0f} MiB"

    # Under `fail` (the default) the pipeline stops naming the object.
    emu.inject_fault("GetObject", kind="delay", delay_ms=0)
    emu.inject_fault("GetObject", kind="oversize", size=HUGE)
    rc, d, _ = run_measured(tmp_path, pipeline(emu, name="f", transform=TRANSFORM,
                                               **opts(emu, **{"fetch-content.max-size": "1mb"})),
                            tag="fail")
    assert rc == 1
    assert "GetObject oss://b1/big.bin: object exceeds fetch-content.max-size (1048576)" in d.stderr()
