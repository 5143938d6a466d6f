"""One cdcd process of a conformance test: started on a pipeline, stopped by SIGTERM, its log kept."""
import pathlib
import re
import signal
import subprocess

import cdcd_process as cdcd


class PipelineRun:
    def __init__(self, tmp: pathlib.Path, yaml_text: str, tag: str):
        self.yaml = cdcd.write_pipeline(tmp, yaml_text, f"{tag}.yaml")
        self.state = tmp / "state"
        self.stdout = tmp / f"{tag}.out"
        self.stderr = tmp / f"{tag}.log"
        self.proc = None

    def start(self):
        with open(self.stdout, "wb") as out, open(self.stderr, "wb") as err:
            self.proc = cdcd.start(["run", self.yaml, "--state-dir", self.state], stdout=out,
                                   stderr=err)
        return self

    def run(self, timeout=60) -> int:
        self.start()
        return cdcd.wait_exit(self.proc, timeout)

    def terminate(self, timeout=30) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return cdcd.wait_exit(self.proc, timeout)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def log(self) -> str:
        return self.stderr.read_text(errors="replace")

    def output(self) -> str:
        return self.stdout.read_text(errors="replace")

    def drain_once(self, delivered, timeout=30) -> int:
        """Starts the run, waits until delivered() holds, stops it with SIGTERM and checks that it
        drained (exit 0, a final checkpoint written). Returns that checkpoint's id."""
        try:
            self.start()
            assert cdcd.wait_for(delivered, timeout=timeout), self.log()
            assert self.terminate() == 0, self.log()
        finally:
            self.kill()
        assert "SIGTERM: draining" in self.log()
        final = self.final_checkpoint()
        assert final is not None, self.log()
        return final

    def final_checkpoint(self):
        """The id of the final checkpoint the drain wrote, or None."""
        m = re.search(r"final checkpoint (\d+) written", self.log())
        return int(m.group(1)) if m else None

    def restored_checkpoint(self):
        m = re.search(r"restored checkpoint (\d+) ", self.log())
        return int(m.group(1)) if m else None
