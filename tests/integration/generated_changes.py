"""The GENERATED event set of the `values` source in tests that stop and resume a pipeline: its
source block, and the file sink's output read back as each key's changes."""
import json
import signal
import time


def generated_source(rows, rounds, delete_every, payload_bytes, rate=0):
    """The YAML `source:` block: `rows` inserts, `rounds` updates of each, a delete of every
    `delete_every`-th id, paced at `rate` events/s (0: as fast as it goes)."""
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.updates-per-row: {rounds}
  generator.delete-every: {delete_every}
  generator.payload-bytes: {payload_bytes}
  generator.rate: {rate}
"""


def output_files(out, writers):
    """The file sink's files: `out` itself, or one per writer (`out.<index>`)."""
    if writers == 1:
        return [out]
    return [out.with_name(f"{out.name}.{i}") for i in range(writers)]


def changes_by_key(text):
    """Each key's lines of one file's text, in order."""
    changes = {}
    for line in text.splitlines():
        change = json.loads(line)
        changes.setdefault((change["after"] or change["before"])["id"], []).append(line)
    return changes


def all_changes_by_key(out, writers):
    """Each key's lines, in the order of the writer's file that holds them (a key's changes all
    go to one writer)."""
    changes = {}
    for path in output_files(out, writers):
        changes.update(changes_by_key(path.read_text()))
    return changes


def stop_mid_stream(proc, how, after):
    """Sends `how` to a running pipeline `after` seconds in, and waits for it to exit; a SIGTERM
    must end it cleanly, with a final checkpoint. Returns its stderr."""
    time.sleep(after)
    assert proc.poll() is None, "the pipeline finished before it was stopped"
    proc.send_signal(how)
    _, err = proc.communicate(timeout=60)
    if how == signal.SIGTERM:
        assert proc.returncode == 0, err
        assert "final checkpoint" in err
    return err
