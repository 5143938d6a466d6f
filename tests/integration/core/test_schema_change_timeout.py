"""pipeline.schema-operator.rpc-timeout bounds one schema change: the sink writers flushing the
events before it, then the sink applying it. A sink that does not answer fails the pipeline with
an error naming the option, instead of the pipeline waiting for as long as the sink's own request
timeouts and retries allow."""
import socket
import threading
import time

import cdcd_process as cdcd


class SilentServer:
    """Accepts TCP connections and never answers: a server that hangs."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.held = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self):
        self.listener.close()
        for connection in self.held:
            connection.close()


def pipeline(port: int, timeout_line: str) -> str:
    # The VikingDB sink opens (looks up) a table's collection when it applies CREATE TABLE; its
    # own request timeout (read.timeout) is far longer than the rpc-timeout under test.
    return f"""source:
  type: values
sink:
  type: vikingdb
  region: cn-beijing
  control-plane.host: http://127.0.0.1:{port}
  data-plane.host: 127.0.0.1:{port}
  data-plane.scheme: http
  api-key: k
  access-key: a
  secret-key: s
  read.timeout: 120s
  socket.timeout: 120s
pipeline:
{timeout_line}"""


def test_a_schema_change_the_sink_does_not_apply_fails_at_the_rpc_timeout(tmp_path):
    server = SilentServer()
    try:
        yaml = cdcd.write_pipeline(tmp_path, pipeline(server.port,
                                                      "  schema-operator.rpc-timeout: 1s\n"))
        started = time.monotonic()
        result = cdcd.run(["run", yaml, "--state-dir", tmp_path / "state"], timeout=60)
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert result.returncode == 1, result.stderr
    assert "pipeline.schema-operator.rpc-timeout (1000 ms)" in result.stderr
    assert "sink table default_namespace.default_schema.table1" in result.stderr
    assert elapsed < 30, f"took {elapsed:.1f} s"


def test_the_rpc_timeout_is_validated_as_a_duration(tmp_path):
    yaml = cdcd.write_pipeline(tmp_path, "source:\n  type: values\nsink:\n  type: values\n"
                                         "pipeline:\n  schema-operator.rpc-timeout: 0 ms\n")
    result = cdcd.run(["validate", yaml])
    assert result.returncode == 1 and "schema-operator.rpc-timeout" in result.stderr
