"""State-directory faults with the dingtalk-cdc source and the file sink: the state directory's
disk filling up while the pipeline runs (ridden out when tolerated, else a clear error and a
restart), a read-only state directory and a second instance on the same directory. The file sink
is exactly-once across restarts, so every document created arrives exactly once whatever
happens."""
import collections
import re

import cdcd_process as cdcd
from dingtalk_env import OPERATOR, paragraph, pipeline_yaml, rows, wait_for
from state_faults import read_only, small_disk


def tolerate(yaml, n):
    return yaml + f"  execution.checkpointing.tolerable-failed-checkpoints: {n}\n"


def failed_writes(d):
    return len(re.findall(r"checkpoint \d+ failed: cannot write checkpoint", d.output()))


class Case:
    def __init__(self, emu, tmp_path):
        self.emu = emu
        self.ws = emu.create_workspace("Faults", owner_id=OPERATOR)
        self.out = tmp_path / "out.jsonl"
        self.docs = []

    def add(self, n):
        start = len(self.docs)
        for i in range(start, start + n):
            self.docs.append(self.emu.create_document(self.ws["rootNodeId"], f"doc {i}",
                                                      blocks=[paragraph(f"text {i}")])["nodeId"])

    def yaml(self, tolerable=None):
        text = pipeline_yaml(self.emu, self.out, [self.ws["workspaceId"]])
        return tolerate(text, tolerable) if tolerable is not None else text

    def created(self):
        """Documents written: "c" from the snapshot, "u" (upserts) from the incremental scans."""
        return collections.Counter(r["doc_id"] for r in rows(self.out))

    def all_once(self):
        return self.created() == collections.Counter(self.docs)


def test_a_full_state_disk_is_ridden_out_and_each_document_arrives_once(emu, tmp_path, daemon):
    case = Case(emu, tmp_path)
    case.add(3)
    with small_disk(tmp_path / "disk") as disk:
        d = daemon(case.yaml(tolerable=50))
        d.state = disk.root / "state"
        d.start()
        wait_for(case.all_once, 30)
        disk.fill()
        wait_for(lambda: failed_writes(d) >= 1, 20)
        case.add(3)
        failed = failed_writes(d)
        wait_for(lambda: failed_writes(d) >= failed + 3, 20)
        assert d.alive(), d.output()[-3000:]
        disk.free()
        wait_for(lambda: re.search(r"checkpoint \d+ written after \d+ failed attempt", d.output()), 20)
        wait_for(lambda: len(case.created()) == 6, 30)
        assert d.stop() == 0, d.output()[-3000:]
    assert case.all_once(), case.created()


def test_a_full_state_disk_fails_by_default_and_a_restart_delivers_each_document_once(emu, tmp_path, daemon):
    case = Case(emu, tmp_path)
    case.add(3)
    with small_disk(tmp_path / "disk") as disk:
        state = disk.root / "state"
        d = daemon(case.yaml())
        d.state = state
        d.start()
        wait_for(case.all_once, 30)
        disk.fill()
        case.add(3)
        assert cdcd.wait_exit(d.proc, 30) == 1, d.output()[-3000:]
        assert re.search(rf"cannot write checkpoint \d+ to {re.escape(str(state))}: IO error: No space left on device",
                         d.output()), d.output()[-3000:]
        d.stop()
        disk.free()
        again = daemon(case.yaml(), "again.yaml")
        again.state = state
        again.start()
        wait_for(lambda: "restored checkpoint" in again.output() and "running:" in again.output().split("restored")[-1], 20)
        wait_for(lambda: len(case.created()) == 6, 30)
        assert again.stop() == 0, again.output()[-3000:]
    assert case.all_once(), case.created()


def test_a_read_only_state_dir_is_refused_before_the_source_calls_dingtalk(emu, tmp_path, daemon):
    case = Case(emu, tmp_path)
    case.add(3)
    d = daemon(case.yaml())
    d.start()
    wait_for(case.all_once, 30)
    assert d.stop() == 0
    case.add(2)
    emu.clear_requests()
    with read_only(d.state):
        refused = cdcd.run(["run", d.yaml, "--state-dir", d.state])
    assert refused.returncode == 1
    assert re.search(rf"state directory {re.escape(str(d.state))}.*Read-only file system", refused.stderr), \
        refused.stderr
    assert not any(emu.requests().values())  # not one DingTalk request
    d.start()
    wait_for(lambda: len(case.created()) == 5, 30)
    assert d.stop() == 0
    assert case.all_once(), case.created()


def test_a_second_instance_is_refused_and_the_first_is_not_disturbed(emu, tmp_path, daemon):
    case = Case(emu, tmp_path)
    case.add(3)
    d = daemon(case.yaml())
    d.start()
    wait_for(case.all_once, 30)
    second = cdcd.run(["run", d.yaml, "--state-dir", d.state], timeout=60)
    assert second.returncode == 1
    assert f"state directory {d.state} is in use by another cdcd process (pid {d.proc.pid})" in second.stderr
    assert "running:" not in second.stderr
    case.add(2)
    wait_for(lambda: len(case.created()) == 5, 30)
    assert d.stop() == 0, d.output()[-3000:]
    assert case.all_once(), case.created()
