"""Pipeline YAML builders and expected-state helpers shared by the VikingDB sink tests."""
import subprocess
import textwrap

import cdcd_process as cdcd
import generated_changes


def sink_block(emu, **options) -> str:
    opts = {
        "type": "vikingdb",
        "region": "cn-beijing",
        "control-plane.host": f"http://{emu.host}",
        "data-plane.host": emu.host,
        "data-plane.scheme": "http",
        "api-key": "test-api-key",
        "access-key": "AKTEST",
        "secret-key": "SKTEST",
    }
    opts.update({k.replace("_", "-") if k.startswith("sink_") is False and "_" in k and k.islower() and False else k: v
                 for k, v in options.items()})
    lines = ["sink:"]
    for k, v in opts.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        lines.append(f"  {k}: {quote(v)}")
    return "\n".join(lines) + "\n"


def quote(v) -> str:
    s = str(v)
    if s == "" or any(c in s for c in ":#{}[],&*?|<>=!%@`'\"") or s.strip() != s:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return s


def generated_source(rows=100, updates=0, delete_every=0, payload=10, rate=0, bounded=True) -> str:
    return generated_changes.generated_source(rows, updates, delete_every, payload, rate) + \
        f"  generator.bounded: {'true' if bounded else 'false'}\n"


def pipeline_block(name="vdb-test", parallelism=1, checkpoint="1s", extra="") -> str:
    return textwrap.dedent(f"""\
        pipeline:
          name: {name}
          parallelism: {parallelism}
          local-time-zone: Asia/Shanghai
          execution.checkpointing.interval: {checkpoint}
        """) + extra


def run_pipeline(tmp_path, yaml_text, timeout=180, name="pipeline.yaml", state="state"):
    path = cdcd.write_pipeline(tmp_path, yaml_text, name)
    return cdcd.run(["run", path, "--state-dir", tmp_path / state], timeout=timeout)


def expected_generated(rows, updates, delete_every, payload):
    """{id: (version, payload)} after the GENERATED source's inserts, update rounds and deletes."""
    out = {}
    for i in range(1, rows + 1):
        prefix = f"{i}-{updates}-"
        out[i] = (updates, prefix + "x" * max(0, payload - len(prefix)))
    if delete_every:
        for i in range(delete_every, rows + 1, delete_every):
            out.pop(i, None)
    return out


def dump(emu, collection):
    """{id: fields} of every row of a collection."""
    return {r["id"]: r["fields"] for r in emu.rows(collection)["rows"]}


GENERATED = "default_namespace_default_schema_generated"
TABLE1 = "default_namespace_default_schema_table1"
