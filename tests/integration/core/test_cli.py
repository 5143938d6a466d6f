"""The command line: validate reports every error with its position, describe prints option
tables, version and help work, secrets never reach any output."""
import cdcd_process as cdcd


def test_validate_accepts_the_quickstart():
    result = cdcd.run(["validate", cdcd.REPO / "examples" / "quickstart.yaml"])
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout


def test_validate_reports_every_error_with_file_and_line(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: values
  event-set.id: NOT_A_SET
sink:
  type: values
  print.enabld: true
route:
  - source-table: a(b
    sink-table: x
pipeline:
  parallelism: zero
""")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1
    err = result.stderr
    assert f"{yaml}:3:" in err and "NOT_A_SET" in err
    assert f"{yaml}:6:" in err and "print.enabled" in err  # suggestion
    assert f"{yaml}:8:" in err
    assert f"{yaml}:11:" in err and "parallelism" in err


def test_an_option_refused_is_not_reported_again_by_the_rules_that_read_its_default(tmp_path):
    # `scan.startup.mode: bogus-mode` is refused; the source's rules across options then read
    # its default (group-offsets) and also said "scan.startup.mode group-offsets needs
    # properties.group.id", about a value nobody wrote. A rule that does not involve it (the table
    # id) is still reported in the same run.
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: kafka
  topic: t
  properties.bootstrap.servers: 127.0.0.1:9092
  scan.startup.mode: bogus-mode
  value.format: debezium-json
sink:
  type: values
""")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 2, errors
    refusal, table_id = sorted(errors, key=lambda e: "table-id" in e)
    assert f"{yaml}:5:" in refusal and "bogus-mode" in refusal and "allowed values" in refusal
    assert "table-id.fixed.name" in table_id


def test_unknown_connector_lists_the_known_ones(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, "source:\n  type: nosuch\nsink:\n  type: values\n")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1
    assert "unknown source type `nosuch`" in result.stderr and "values" in result.stderr


def test_describe_prints_option_tables():
    listing = cdcd.run(["describe"])
    assert listing.returncode == 0 and "values" in listing.stdout and "file" in listing.stdout
    values = cdcd.run(["describe", "values"])
    assert values.returncode == 0
    assert "event-set.id" in values.stdout and "print.enabled" in values.stdout
    assert cdcd.run(["describe", "nosuch"]).returncode == 1
    pipeline = cdcd.run(["describe", "pipeline"])
    assert pipeline.returncode == 0
    assert "bad-record.policy" in pipeline.stdout and "fail|skip|dead-letter" in pipeline.stdout
    assert "execution.checkpointing.interval" in pipeline.stdout


def test_describe_prints_markdown_tables_as_in_the_docs():
    result = cdcd.run(["describe", "--format", "markdown", "file"])
    assert result.returncode == 0, result.stderr
    assert "Options of sink file:" in result.stdout
    assert "| Option | Type | Default | Required | Description |" in result.stdout
    assert "| `path` | STRING | – | yes | File to write. |" in result.stdout
    assert "| `if-exists` | ENUM: `fail`, `append`, `overwrite` | `fail` | no |" in result.stdout
    bad = cdcd.run(["describe", "--format", "html", "file"])
    assert bad.returncode != 0
    assert "--format must be text or markdown, not 'html'" in bad.stderr


def test_version_and_help():
    assert cdcd.run(["version"]).stdout.startswith("cdcd ")
    assert "cdcd run PIPELINE.yaml" in cdcd.run(["--help"]).stdout
    bad = cdcd.run(["run", "--bogus"])
    assert bad.returncode == 1 and "unknown option --bogus" in bad.stderr


def test_options_may_follow_the_file(tmp_path):
    result = cdcd.run(["run", cdcd.REPO / "examples" / "quickstart.yaml", "--state-dir", tmp_path / "s",
                       "--log-format", "json"])
    assert result.returncode == 0, result.stderr
    assert result.stderr.lstrip().startswith("{")
    assert "DataChangeEvent{tableId=quickstart.members" in result.stdout


def test_secret_values_never_appear_in_output(tmp_path):
    secret = "s3cr3t-Value-42"
    secrets = tmp_path / "secrets.env"
    secrets.write_text(f"file_path_secret={secret}\n")
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: values
  event-set.id: NOT_A_SET_${secret_values.file_path_secret}
sink:
  type: values
""")
    result = cdcd.run(["validate", yaml, "--secrets", secrets])
    assert result.returncode == 1
    assert secret not in result.stdout + result.stderr
    assert "******" in result.stderr


def test_restore_into_an_incompatible_pipeline_is_refused(tmp_path):
    state = tmp_path / "s"
    first = cdcd.write_pipeline(tmp_path, "source:\n  type: values\nsink:\n  type: values\npipeline:\n  name: p\n", "a.yaml")
    assert cdcd.run(["run", first, "--state-dir", state]).returncode == 0
    out = tmp_path / "out.jsonl"
    second = cdcd.write_pipeline(tmp_path, f"source:\n  type: values\nsink:\n  type: file\n  path: {out}\npipeline:\n  name: p\n", "b.yaml")
    refused = cdcd.run(["run", second, "--state-dir", state])
    assert refused.returncode == 1
    assert "sink.type=values" in refused.stderr and "--reset-state" in refused.stderr
    assert cdcd.run(["run", second, "--state-dir", state, "--reset-state"]).returncode == 0
