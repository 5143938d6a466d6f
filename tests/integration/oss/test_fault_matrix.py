"""oss-cdc's cells of the fault matrix (docs/reliability.md) that no other test shows, in MNS mode
and in POLLING mode: each fault meets a running pipeline, and the values sink's output is checked
for events lost (none) and repeated (none unless stated), and whether the daemon got over it by
itself. MNS kill -9: test_mns.py::test_kill_9_loses_no_event_and_deletes_nothing_before_the_checkpoint."""
import random
import time

import pytest

import cdcd_process as cdcd
from oss_helpers import Daemon, OssEmulator, fields, pipeline

FAULTS = {
    "5xx": dict(kind="error", status=503, code="ServiceUnavailable"),
    # OSS and MNS send no Retry-After: their throttling answers (MNS 429 TooManyRequests, OSS 503
    # TotalQpsLimitExceeded) are retried on cdcd's own backoff.
    "throttled": dict(kind="throttle"),
    "connection-reset": dict(kind="reset"),
}


def keys_of(events):
    return [fields(e[3] if e[3] != "[]" else e[2])[0] for e in events]


def mns_yaml(emu, **extra):
    return pipeline(emu, **{"mns.endpoint": emu.mns.url, "mns.region": "cn-hangzhou", "mns.queue-name": "q1",
                            "mns.polling-wait-time": "1s",
                            "scan.startup.mode": "EARLIEST_OFFSET", **extra})


def poll_yaml(emu, **extra):
    return pipeline(emu, **{"scan.incremental.mode": "POLLING", "oss-endpoint": emu.endpoint,
                            "oss-region": "cn-hangzhou", "oss-bucket": "b1", "polling.interval": "300ms", **extra})


def mns_setup(emu, visibility=30):
    emu.create_bucket("b1")
    emu.mns.create_queue("q1", visibility_timeout=visibility)
    emu.add_notification("b1", "q1")


def put(emu, keys, notify=False):
    emu.put_objects("b1", [{"key": k, "content": k} for k in keys], notify=notify)


def exactly_once(d, keys):
    got = keys_of(d.events())
    assert sorted(got) == sorted(keys), (len(got), len(set(got)))


# ---- MNS mode -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fault", FAULTS)
def test_mns_http_faults_lose_and_repeat_nothing(fault, emu, tmp_path):
    mns_setup(emu)
    for action in ("BatchReceiveMessage", "DeleteMessage"):
        emu.mns.inject_fault(action, count=2, **FAULTS[fault])
    d = Daemon(tmp_path, mns_yaml(emu, **{"mns.batch-size": 8})).start()
    keys = [f"f/{i}" for i in range(30)]
    put(emu, keys, notify=True)
    assert d.wait_events(lambda ev: len(ev) >= 30, 30), d.stderr()
    assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 20)  # all acknowledged after checkpoints
    assert d.proc.poll() is None  # recovered by itself
    assert d.stop() == 0
    exactly_once(d, keys)
    assert emu.mns.control("GET", "/faults")["faults"] == []


def test_mns_receive_answer_that_never_comes_loses_and_repeats_nothing(emu, tmp_path):
    # The receive times out after mns.polling-wait-time + request.timeout (1 s + 1 s); the answer
    # would come after 5 s. The emulator made the messages invisible for the answer nobody read;
    # they come back after the queue's visibility timeout and are emitted once.
    mns_setup(emu, visibility=2)
    put(emu, ["slow/1", "slow/2"], notify=True)
    emu.mns.inject_fault("BatchReceiveMessage", "delay", count=1, delay_ms=5_000)
    d = Daemon(tmp_path, mns_yaml(emu, **{"request.timeout": "1s"})).start()
    assert d.wait_events(lambda ev: len(ev) >= 2, 30), d.stderr()
    assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 20)
    assert d.proc.poll() is None
    assert d.stop() == 0
    exactly_once(d, ["slow/1", "slow/2"])


def test_mns_sigterm_mid_stream_then_restart_loses_nothing(emu, tmp_path):
    mns_setup(emu, visibility=3)
    # 20 records/s: the SIGTERM comes while most of the 60 events are still in the queue.
    yaml = mns_yaml(emu, **{"mns.batch-size": 4, "scan.rate-limit.records-per-second": 20})
    keys = [f"s/{i}" for i in range(60)]
    d = Daemon(tmp_path, yaml).start()
    put(emu, keys, notify=True)
    assert d.wait_events(lambda ev: len(ev) >= 10, 30), d.stderr()
    assert d.stop() == 0  # SIGTERM: a final checkpoint deletes what was emitted
    assert len(keys_of(d.events())) < 60
    d2 = Daemon(tmp_path, yaml, tag="second").start()
    assert d2.wait_events(lambda ev: len(set(keys_of(d.events() + ev))) >= 60, 30), d2.stderr()
    assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 20)
    assert d2.stop() == 0
    # Exactly once: the final checkpoint of the SIGTERM deleted every message the first run emitted.
    assert sorted(keys_of(d.events()) + keys_of(d2.events())) == sorted(keys)


def test_mns_emulator_restart_is_ridden_out(tmp_path):
    with OssEmulator(with_mns=True, state_file=str(tmp_path / "oss.state")) as emu:
        mns_setup(emu)
        d = Daemon(tmp_path, mns_yaml(emu)).start()
        put(emu, ["r/1", "r/2"], notify=True)
        assert d.wait_events(lambda ev: len(ev) >= 2, 30), d.stderr()
        # The values sink prints before the checkpoint that deletes these two: their delete may
        # meet the restart, fail its retries, and is then tried again after the next checkpoint.
        emu.restart()
        put(emu, ["r/3", "r/4"], notify=True)
        assert d.wait_events(lambda ev: len(ev) >= 4, 30), d.stderr()
        assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 30), d.stderr()[-3000:]
        assert d.proc.poll() is None
        assert d.stop() == 0
        exactly_once(d, ["r/1", "r/2", "r/3", "r/4"])


def test_mns_deletes_that_fail_every_retry_are_tried_again_after_the_next_checkpoint(emu, tmp_path):
    # MNS answers 503 to the first three deletes: the first message's delete fails both its tries
    # (mns.delete-max-retries 1). Held again, both messages are deleted after the next checkpoint,
    # long before their visibility (30 s) would lapse and bring them back to be emitted again.
    mns_setup(emu)
    emu.mns.inject_fault("DeleteMessage", "error", count=3, status=503, code="ServiceUnavailable")
    d = Daemon(tmp_path, mns_yaml(emu, **{"mns.delete-max-retries": 1})).start()
    put(emu, ["x/1", "x/2"], notify=True)
    assert d.wait_events(lambda ev: len(ev) >= 2, 30), d.stderr()
    assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 15), d.stderr()[-3000:]
    assert "trying again after the next checkpoint" in d.stderr()
    assert d.stop() == 0
    exactly_once(d, ["x/1", "x/2"])


def test_mns_revoked_sts_token_fails_clearly_and_a_restart_with_new_credentials_loses_nothing(emu, tmp_path):
    # An STS token expires: MNS answers 403 to it. cdcd takes a fixed security-token, so it cannot
    # renew one: the pipeline must stop with a clear error, delete nothing it did not deliver, and
    # a restart with a fresh token must deliver the rest.
    mns_setup(emu, visibility=3)
    emu.mns.set_credentials("STS.AK1", "sts-secret-1", security_token="token-1")
    emu.set_credentials("STS.AK1", "sts-secret-1", security_token="token-1")
    creds = {"access-key-id": "STS.AK1", "access-key-secret": "sts-secret-1", "security-token": "token-1"}
    d = Daemon(tmp_path, mns_yaml(emu, **creds)).start()
    put(emu, ["t/1"], notify=True)
    assert d.wait_events(lambda ev: len(ev) >= 1, 30), d.stderr()
    emu.mns.set_credentials("STS.AK2", "sts-secret-2", security_token="token-2")
    put(emu, ["t/2", "t/3"], notify=True)
    assert d.wait(60) != 0
    assert "403" in d.stderr() and "sts-secret" not in d.stderr() and "token-1" not in d.stderr()
    creds = {"access-key-id": "STS.AK2", "access-key-secret": "sts-secret-2", "security-token": "token-2"}
    d2 = Daemon(tmp_path, mns_yaml(emu, **creds), tag="second").start()
    assert d2.wait_events(lambda ev: {"t/2", "t/3"} <= set(keys_of(ev)), 30), d2.stderr()
    assert cdcd.wait_for(lambda: emu.mns.messages("q1") == [], 20)
    assert d2.stop() == 0
    everything = keys_of(d.events()) + keys_of(d2.events())
    assert sorted(set(everything)) == ["t/1", "t/2", "t/3"]
    # At-least-once: a message whose delete was refused is delivered again, once.
    assert all(everything.count(k) <= 2 for k in everything)


# ---- POLLING mode -------------------------------------------------------------------------------

@pytest.mark.parametrize("fault", FAULTS)
def test_polling_http_faults_lose_and_repeat_nothing(fault, emu, tmp_path):
    emu.create_bucket("b1")
    put(emu, ["old/1"])
    d = Daemon(tmp_path, poll_yaml(emu)).start()
    assert cdcd.wait_for(lambda: "baseline scan" in d.stderr(), 20), d.stderr()
    emu.inject_fault("ListObjectsV2", count=3, **FAULTS[fault])
    keys = [f"n/{i}" for i in range(20)]
    put(emu, keys)
    assert d.wait_events(lambda ev: len(ev) >= 20, 30), d.stderr()
    assert emu.control("GET", "/faults")["faults"] == []
    time.sleep(1)  # more scans: nothing emitted again
    assert d.proc.poll() is None
    assert d.stop() == 0
    exactly_once(d, keys)


def test_polling_list_answer_that_never_comes_is_timed_out_and_retried(emu, tmp_path):
    # request.timeout 1 s; the listing's answer would come after 5 s: the scan retries it and
    # goes on, losing and repeating nothing.
    emu.create_bucket("b1")
    put(emu, ["old/1"])
    d = Daemon(tmp_path, poll_yaml(emu, **{"request.timeout": "1s"})).start()
    assert cdcd.wait_for(lambda: "baseline scan" in d.stderr(), 20), d.stderr()
    emu.inject_fault("ListObjectsV2", "delay", count=1, delay_ms=5_000)
    keys = [f"late/{i}" for i in range(10)]
    put(emu, keys)
    assert d.wait_events(lambda ev: len(ev) >= 10, 30), d.stderr()
    assert emu.control("GET", "/faults")["faults"] == []
    time.sleep(1)  # more scans: nothing emitted again
    assert d.proc.poll() is None
    assert d.stop() == 0
    exactly_once(d, keys)


def test_polling_kill_9_at_random_moments_loses_nothing(emu, tmp_path):
    emu.create_bucket("b1")
    yaml = poll_yaml(emu, **{"scan.startup.mode": "INITIAL"})
    rng = random.Random(1301)
    keys, runs = [], []
    for round_ in range(4):
        batch = [f"k/{round_}/{i}" for i in range(25)]
        put(emu, batch)
        keys += batch
        d = Daemon(tmp_path, yaml, tag=f"run{round_}").start()
        time.sleep(rng.uniform(0.3, 1.5))
        d.kill9()
        runs.append(d)
    last = Daemon(tmp_path, yaml, tag="last").start()
    seen = lambda: set(k for r in runs + [last] for k in keys_of(r.events()))
    assert cdcd.wait_for(lambda: seen() >= set(keys), 30), last.stderr()
    time.sleep(1)
    assert last.stop() == 0
    everything = [k for r in runs + [last] for k in keys_of(r.events())]
    assert set(everything) == set(keys)
    # At-least-once: what a killed run emitted after its last checkpoint is emitted again, so an
    # object is repeated at most once per kill.
    assert max(everything.count(k) for k in keys) <= 1 + len(runs)


def test_polling_emulator_restart_is_ridden_out(tmp_path):
    with OssEmulator(with_mns=False, state_file=str(tmp_path / "oss.state")) as emu:
        emu.create_bucket("b1")
        put(emu, ["old/1"])
        d = Daemon(tmp_path, poll_yaml(emu)).start()
        assert cdcd.wait_for(lambda: "baseline scan" in d.stderr(), 20), d.stderr()
        put(emu, ["p/1"])
        assert d.wait_events(lambda ev: len(ev) >= 1, 30), d.stderr()
        emu.restart()
        put(emu, ["p/2"])
        assert d.wait_events(lambda ev: len(ev) >= 2, 30), d.stderr()
        time.sleep(1)
        assert d.proc.poll() is None
        assert d.stop() == 0
        exactly_once(d, ["p/1", "p/2"])


def test_polling_revoked_sts_token_fails_clearly_and_a_restart_with_new_credentials_loses_nothing(emu, tmp_path):
    # As in MNS mode: OSS answers 403 to an expired STS token, which cdcd (given a fixed
    # security-token) cannot renew. The pipeline stops with a clear error that shows no secret; a
    # restart with a fresh token lists again and emits what changed, losing nothing.
    emu.create_bucket("b1")
    emu.set_credentials("STS.AK1", "sts-secret-1", security_token="token-1")
    creds = {"access-key-id": "STS.AK1", "access-key-secret": "sts-secret-1", "security-token": "token-1"}
    put(emu, ["old/1"])
    d = Daemon(tmp_path, poll_yaml(emu, **creds)).start()
    assert cdcd.wait_for(lambda: "baseline scan" in d.stderr(), 20), d.stderr()
    put(emu, ["t/1"])
    assert d.wait_events(lambda ev: len(ev) >= 1, 30), d.stderr()
    time.sleep(1)  # a checkpoint covers t/1
    emu.set_credentials("STS.AK2", "sts-secret-2", security_token="token-2")
    put(emu, ["t/2", "t/3"])
    assert d.wait(60) != 0
    err = d.stderr()
    assert "403" in err and "sts-secret" not in err and "token-1" not in err, err
    creds = {"access-key-id": "STS.AK2", "access-key-secret": "sts-secret-2", "security-token": "token-2"}
    d2 = Daemon(tmp_path, poll_yaml(emu, **creds), tag="second").start()
    assert d2.wait_events(lambda ev: {"t/2", "t/3"} <= set(keys_of(ev)), 30), d2.stderr()
    time.sleep(1)
    assert d2.stop() == 0
    everything = keys_of(d.events()) + keys_of(d2.events())
    assert sorted(set(everything)) == ["t/1", "t/2", "t/3"]
    assert sorted(everything) == ["t/1", "t/2", "t/3"]  # t/1 was checkpointed: not again
