"""Helpers of the operations tests: free ports, the admin endpoint, pipelines under test."""
import http.client
import socket
import subprocess

import cdcd_process as cdcd


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str, timeout: float = 5.0):
    """(status, body) of GET http://127.0.0.1:port/path; (None, error) when nothing answers."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read().decode()
        conn.close()
        return resp.status, body
    except OSError as e:
        return None, str(e)


def generated(name, rows=10_000_000, rate=0, bounded=False, sink="values", sink_options="  print.enabled: false",
              interval="200ms", extra_pipeline=""):
    rate_line = f"  generator.rate: {rate}\n" if rate else ""
    return f"""
source:
  type: values
  event-set.id: GENERATED
  generator.rows: {rows}
  generator.bounded: {str(bounded).lower()}
{rate_line}sink:
  type: {sink}
{sink_options}
pipeline:
  name: {name}
  execution.checkpointing.interval: {interval}
{extra_pipeline}"""


def start_with_admin(tmp_path, yaml_text, port, extra_args=(), **popen):
    yaml = cdcd.write_pipeline(tmp_path, yaml_text)
    popen.setdefault("stdout", subprocess.DEVNULL)
    popen.setdefault("stderr", subprocess.PIPE)
    popen.setdefault("text", True)
    return cdcd.start(["run", yaml, "--state-dir", tmp_path / "state", "--admin-address", f"127.0.0.1:{port}",
                       *extra_args], **popen)


def wait_ready(port, proc, timeout=20.0):
    ok = cdcd.wait_for(lambda: proc.poll() is not None or get(port, "/readyz")[0] == 200, timeout)
    assert ok and proc.poll() is None, "the pipeline did not become ready"
