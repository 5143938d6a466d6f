# Options refused with their key and reason, and the password never in logs or errors.
import subprocess

from conftest import Cdcd, pipeline_yaml
from cdcd_process import cdcd_bin
from server import PASSWORD


def validate(tmp_path, yaml_text):
    path = tmp_path / "p.yaml"
    path.write_text(yaml_text)
    return subprocess.run([cdcd_bin(), "validate", str(path)], capture_output=True, text=True, timeout=60,
                          env={"PG_TEST_PASSWORD": PASSWORD, "PATH": "/usr/bin:/bin"})


def test_bad_options_are_refused_naming_the_key(pg, tmp_path):
    base = pipeline_yaml(pg, "slot_opts", "cdcd.public.orders")
    for extra, words in [("  decoding.plugin.name: decoderbufs\n", ["decoding.plugin.name", "pgoutput"]),
                         ("  debezium.snapshot.mode: never\n", ["debezium.snapshot.mode", "is refused"]),
                         ("  scan.startup.mode: timestamp\n", ["scan.startup.mode"]),
                         ("  metadata.list: op_ts,row_kind\n", ["metadata.list", "unknown metadata 'row_kind'"])]:
        proc = validate(tmp_path, base.replace("sink:\n", extra + "sink:\n", 1))
        assert proc.returncode != 0, extra
        for w in words:
            assert w in proc.stderr + proc.stdout, (extra, proc.stderr)
    proc = validate(tmp_path, base.replace("cdcd.public.orders", "public.orders"))
    assert proc.returncode != 0 and "db.schema.table" in proc.stderr + proc.stdout
    assert validate(tmp_path, base).returncode == 0


def test_wrong_password_fails_without_showing_it(pg, tmp_path):
    wrong = "Wrong-Secret-" + PASSWORD[::-1]
    yaml_text = pipeline_yaml(pg, "slot_pw", "cdcd.public.orders", "  connect.max-retries: 0\n")
    cdcd = Cdcd(tmp_path, yaml_text.replace("${PG_TEST_PASSWORD}", wrong)).start()
    assert cdcd.wait_exit() != 0
    err = cdcd.stderr()
    assert "password authentication failed" in err
    assert wrong not in err and wrong not in "\n".join(cdcd.lines())


def test_password_never_in_logs_of_a_run(pg, fresh_table, tmp_path):
    t = fresh_table
    pg.sql(f"CREATE TABLE public.{t} (id int PRIMARY KEY, secret text); INSERT INTO public.{t} VALUES (1, 'x')")
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, f"slot_{t}", f"cdcd.public.{t}")).start()
    cdcd.wait_lines(2)
    assert cdcd.stop() == 0
    assert PASSWORD not in cdcd.stderr()
    show = subprocess.run([cdcd_bin(), "checkpoints", "show", "--state-dir", str(cdcd.state)],
                          capture_output=True, text=True, timeout=60)
    assert show.returncode == 0, show.stderr
    assert '"slot":' in show.stdout and PASSWORD not in show.stdout


def test_no_matching_table_is_an_error_naming_tables(pg, tmp_path):
    cdcd = Cdcd(tmp_path, pipeline_yaml(pg, "slot_none", "cdcd.public.no_such_table_here")).start()
    assert cdcd.wait_exit() != 0
    assert "no table of database cdcd matches `tables`" in cdcd.stderr()


def test_existing_slot_under_initial_is_refused_with_the_way_out(pg, tmp_path):
    pg.sql("CREATE TABLE IF NOT EXISTS public.slot_taken (id int PRIMARY KEY)")
    pg.sql("SELECT pg_create_logical_replication_slot('slot_taken', 'pgoutput')")
    try:
        cdcd = Cdcd(tmp_path, pipeline_yaml(pg, "slot_taken", "cdcd.public.slot_taken")).start()
        assert cdcd.wait_exit() != 0
        assert "replication slot slot_taken already exists" in cdcd.stderr()
        assert "committed-offset" in cdcd.stderr()
    finally:
        pg.drop_slot("slot_taken")
        pg.sql("DROP PUBLICATION IF EXISTS pub_slot_taken; DROP TABLE public.slot_taken")
