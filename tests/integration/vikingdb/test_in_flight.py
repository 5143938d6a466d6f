"""A writer keeps several requests in flight (up to 4, writer.cpp's kMaxInFlight) while a key's
operations still reach VikingDB in order: the emulator's `delay` faults hold requests so that they
overlap, and random delays make them finish out of order."""
import random
import textwrap

from vdb_pipelines import GENERATED, dump, generated_source, pipeline_block, run_pipeline, sink_block

MAX_IN_FLIGHT = 4  # per writer (sinks/vikingdb/writer.cpp)


def test_a_writer_keeps_several_upserts_in_flight(emu, tmp_path):
    # Every upsert is held 300 ms: one at a time, 20 batches would take 6 s.
    emu.inject_faults({"kind": "delay", "delay_ms": 300, "count": 1000, "match": "upsert"})
    y = generated_source(rows=2000, payload=8) + sink_block(emu) + pipeline_block()
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    c = emu.counters()
    assert c["max_in_flight"]["upsert"] == MAX_IN_FLIGHT, c["max_in_flight"]
    assert c["upsert_rows_histogram"] == {"100": 20}  # still exactly 100 records per request
    assert len(dump(emu, GENERATED)) == 2000


MOD = 17


def key_of(i, version):
    """The primary key moving_key_source gives row `i` at `version`."""
    return i if i % 2 == 0 else (i // 2 + version) % MOD + 1000


def moving_key_source(rows, updates, delete_every):
    """GENERATED rows under a primary key k: an even id keeps its id as k, so its upserts repeat in
    every update round; an odd id moves among MOD keys (1000 + (id / 2 + version) % MOD): each of its
    updates is a delete of the old key and an upsert of the new one, and the next odd row's update
    deletes the key this one just upserted. So the same keys are upserted and deleted over and over,
    in batches right behind each other."""
    return generated_source(rows=rows, updates=updates, delete_every=delete_every, payload=8) + textwrap.dedent(f"""\
        transform:
          - source-table: default_namespace.default_schema.generated
            projection: IF(id % 2 = CAST(0 AS BIGINT), id, (id / 2 + version) % {MOD} + 1000) AS k, id, version
            primary-keys: k
        """)


def expected_moving_keys(rows, updates, delete_every):
    """{k: (id, version)} after the GENERATED events, with the key moves the sink makes of them."""
    state = {}
    for i in range(1, rows + 1):
        state[key_of(i, 0)] = (i, 0)
    for r in range(1, updates + 1):
        for i in range(1, rows + 1):
            state.pop(key_of(i, r - 1), None)
            state[key_of(i, r)] = (i, r)
    if delete_every:
        for i in range(delete_every, rows + 1, delete_every):
            state.pop(key_of(i, updates), None)
    return state


def test_repeated_keys_end_in_the_last_write_with_requests_finishing_out_of_order(emu, tmp_path):
    # Random holds from 0 to 40 ms on the first 1500 data-plane requests: requests sent together
    # are answered in a shuffled order.
    rng = random.Random(7)
    emu.inject_faults(*({"kind": "delay", "delay_ms": rng.randrange(0, 41), "count": 1, "plane": "data"}
                        for _ in range(1500)))
    rows, updates, delete_every = 120, 4, 4
    y = (moving_key_source(rows, updates, delete_every) +
         sink_block(emu, **{"sink.bulk-flush.batch-size": 5}) + pipeline_block())
    r = run_pipeline(tmp_path, y)
    assert r.returncode == 0, r.stderr
    got = {int(k): (f["id"], f["version"]) for k, f in dump(emu, GENERATED).items()}
    assert got == expected_moving_keys(rows, updates, delete_every)
    c = emu.counters()
    assert c["rows_deleted"] > 0 and c["requests"]["delete"] > 100 and c["requests"]["upsert"] > 100
    assert c["max_in_flight"]["upsert"] > 1 or c["max_in_flight"].get("delete", 0) > 1, c["max_in_flight"]
