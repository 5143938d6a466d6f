"""Every connector the binary registers has a harness here, so each one runs the suite."""
import re

import cdcd_process as cdcd
from harnesses import SINKS, SOURCES


def registered():
    """{"Sources": [...], "Sinks": [...]} as `cdcd describe` lists them."""
    listing = cdcd.run(["describe"])
    assert listing.returncode == 0, listing.stderr
    found, section = {"Sources": [], "Sinks": []}, None
    for line in listing.stdout.splitlines():
        if line.rstrip(":") in found:
            section = line.rstrip(":")
        elif section and (m := re.match(r"^  (\S+)\s", line)):
            found[section].append(m.group(1))
    return found


def test_every_registered_source_and_sink_has_a_conformance_harness():
    found = registered()
    assert found["Sources"] and found["Sinks"]
    assert sorted(h.type for h in SOURCES) == sorted(found["Sources"]), \
        "add the source's harness to tests/integration/conformance/harnesses.py"
    assert sorted(h.type for h in SINKS) == sorted(found["Sinks"]), \
        "add the sink's harness to tests/integration/conformance/harnesses.py"
