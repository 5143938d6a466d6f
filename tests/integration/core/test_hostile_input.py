"""Hostile input through the binary: YAML that would exhaust memory or the stack is refused
quickly, broken YAML is reported where it is broken, --log-level and --log-format json cannot be
fooled, and secrets from ${ENV} or ${secret_values.*} never reach any output."""
import json
import os
import subprocess
import time

import cdcd_process as cdcd

# Peak memory a refused file may cost the process (a release build validates in ~20 MiB; ASan
# builds need more).
PEAK_RSS_LIMIT_KIB = 512 * 1024


def validate_measured(args, tmp_path, timeout=30):
    """Runs cdcd, returns (returncode, stderr, seconds, peak RSS in KiB) of that one process."""
    err_path = tmp_path / "measured.stderr"
    started = time.monotonic()
    with open(err_path, "wb") as err:
        proc = subprocess.Popen([cdcd.cdcd_bin(), *map(str, args)], stdout=subprocess.DEVNULL,
                                stderr=err)
    while True:  # wait4 gives this child's own peak RSS
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - started > timeout:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise TimeoutError(f"cdcd {args} still running after {timeout} s")
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    return proc.returncode, err_path.read_text(), seconds, usage.ru_maxrss


def test_an_alias_bomb_is_refused_in_bounded_time_and_memory(tmp_path):
    lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]']
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    yaml = cdcd.write_pipeline(tmp_path, "\n".join(lines) + "\n")
    code, err, seconds, peak = validate_measured(["validate", yaml], tmp_path)
    assert code == 1, err
    assert f"{yaml}:5:40: error: YAML document too large: more than 100000 nodes" in err
    assert seconds < 10 and peak < PEAK_RSS_LIMIT_KIB, (seconds, peak)


def test_deep_nesting_is_refused_not_a_stack_overflow(tmp_path):
    depth = 100_000
    for name, text, where in [
        ("lists.yaml", "source: " + "[" * depth + "]" * depth, "1:72"),
        ("maps.yaml", "source: " + "{a: " * depth + "1" + "}" * depth, "1:261"),
    ]:
        yaml = cdcd.write_pipeline(tmp_path, text + "\n", name)
        code, err, seconds, peak = validate_measured(["validate", yaml], tmp_path)
        assert code == 1, err  # not -SIGSEGV
        assert f"{yaml}:{where}: error: YAML too deep: more than 64 levels" in err
        assert seconds < 10 and peak < PEAK_RSS_LIMIT_KIB, (seconds, peak)


def test_a_file_over_16_mib_is_refused(tmp_path):
    yaml = tmp_path / "huge.yaml"
    with open(yaml, "w") as f:
        f.write("source:\n  type: values\n  description: \"" + "x" * (17 << 20) + "\"\n")
    code, err, _, _ = validate_measured(["validate", yaml], tmp_path)
    assert code == 1
    assert f"{yaml}: error: YAML file too large: more than 16777216 bytes (16 MiB)" in err


def test_an_unclosed_quote_is_reported_where_it_starts(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, 'source:\n  type: "kafka\nsink:\n  type: values\n')
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1
    assert result.stderr == (f'{yaml}:2:9: error: YAML syntax error: unclosed double quote: the '
                             'quoted scalar starting here has no closing " before the end of the '
                             'file\n')


def test_an_unknown_type_is_reported_at_its_value(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path,
                               "source:\n  type: values\nsink:\n  name: out\n  type:   nosuch\n")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1
    assert f"{yaml}:5:11: error: unknown sink type `nosuch`" in result.stderr


def test_log_levels_are_case_insensitive_and_unknown_ones_refused(tmp_path):
    quickstart = cdcd.REPO / "examples" / "quickstart.yaml"
    upper = cdcd.run(["run", quickstart, "--state-dir", tmp_path / "s", "--log-level", "INFO"])
    assert upper.returncode == 0, upper.stderr
    assert "final checkpoint" in upper.stderr  # INFO used to turn logging off
    bad = cdcd.run(["run", quickstart, "--state-dir", tmp_path / "s", "--log-level", "verbose"])
    assert bad.returncode == 1
    assert ("--log-level must be one of trace, debug, info, warn (or warning), error, critical, "
            "off (in any case), not 'verbose'") in bad.stderr


def test_json_logs_cannot_be_broken_or_forged(tmp_path):
    # The pipeline name is logged: quotes and a newline in it used to end the JSON object and
    # start a forged one. A raw 0xFF byte must not make the line invalid UTF-8 either.
    yaml = tmp_path / "evil.yaml"
    yaml.write_bytes(b'source:\n  type: values\n  event-set.id: SINGLE_SPLIT_SINGLE_TABLE\n'
                     b'sink:\n  type: values\npipeline:\n'
                     b'  name: "evil\\"}\\n{\\"level\\":\\"critical\\",\\"message\\":\\"forged\\t\\u0007 \xff"\n')
    result = subprocess.run([cdcd.cdcd_bin(), "run", yaml, "--state-dir", tmp_path / "s",
                             "--log-format", "json"], capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.decode("utf-8").splitlines()  # strict: invalid UTF-8 raises
    assert lines
    records = [json.loads(line) for line in lines]
    assert all(set(r) == {"time", "level", "logger", "message"} for r in records)
    assert not any(r["level"] == "critical" for r in records)
    named = [r["message"] for r in records if "evil" in r["message"]]
    assert named and '"}\n{"level":"critical","message":"forged\t\u0007 ' in named[0]


def test_secrets_from_the_environment_never_appear_in_errors(tmp_path):
    # A secret option (vikingdb's api-key) fed from ${ENV}: an error of another option that
    # echoes the same value is redacted; so is one fed from ${secret_values.*}.
    api_key = "env-api-key-Value-7781"
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: values
  event-set.id: ${VIKING_KEY}
sink:
  type: vikingdb
  api-key: ${VIKING_KEY}
  region: cn-beijing
""")
    env = dict(os.environ, VIKING_KEY=api_key)
    result = cdcd.run(["validate", yaml], env=env)
    assert result.returncode == 1
    assert api_key not in result.stdout + result.stderr
    assert f"{yaml}:3:" in result.stderr and "******" in result.stderr


def test_kafka_passwords_in_client_properties_are_redacted(tmp_path):
    # properties.* are passed through to librdkafka undeclared; a key naming a credential is
    # redacted like a secret option, here echoed by another option's error.
    password = "sasl-pw-from-env-5521"
    yaml = cdcd.write_pipeline(tmp_path, """source:
  type: values
  event-set.id: ${KAFKA_PW}
sink:
  type: kafka
  properties.bootstrap.servers: 127.0.0.1:9
  properties.sasl.password: ${KAFKA_PW}
""")
    result = cdcd.run(["validate", yaml], env=dict(os.environ, KAFKA_PW=password))
    assert result.returncode == 1
    assert password not in result.stdout + result.stderr
    assert f"{yaml}:3:" in result.stderr and "******" in result.stderr


def test_a_source_with_invalid_options_and_a_transform_gets_every_diagnostic(tmp_path):
    # Found by the pipeline_yaml fuzz target: the transform check read the source's metadata
    # columns from options that had failed validation, and validate printed only an internal
    # "option `access-key-id` is not set and has no default" without a position.
    yaml = cdcd.write_pipeline(tmp_path, """\
source:
  type: oss-cdc
  scan.incremental.mode: MNS
  oss-endpoint: https://oss-cn-hangzhou.aliyuncs.com
  oss-region: cn-hangzhou
  oss-bucket: my-bucket
  metadata.list: eventName,eventTime
transform:
  - source-table: my-bucket
    projection: key, eventName
sink:
  type: values
""")
    code, err, _, _ = validate_measured(["validate", yaml], tmp_path)
    assert code == 1, err
    assert "is not set and has no default" not in err
    assert f"{yaml}:1:1: error: missing required option `access-key-id`" in err, err
