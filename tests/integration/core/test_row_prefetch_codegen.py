"""The stages that read rows another thread built, or built batches ago, ask for them ahead
(pipeline/event/row_prefetch.h), and the built binary must still hold those fetches: GCC 12 at
-O2 deleted __builtin_prefetch calls once the inline helper holding them was inlined, so the file
sink's and the transform's fetches were silently gone (pipeline/util/prefetch.h)."""
import platform
import re
import shutil
import subprocess

import pytest

import cdcd_process as cdcd

PREFETCH = {"x86_64": re.compile(r"\tprefetch"), "aarch64": re.compile(r"\tprfm\t")}

# Where each stage's fetches must be: any function whose name holds one of the parts (a
# coroutine's body, or a helper that was not inlined, has a name of its own).
STAGES = {
    "the file sink's writer": ["FileWriter::write("],
    "the transform's batch of rows": ["TransformOperator::transform_together(", "BatchRows::add("],
    "the transform's row-by-row path": ["TransformOperator::process("],
    "the partitioning of a batch among writers": ["PipelineRuntime::Impl::dispatch("],
    "the transform's spare buffers for projected rows":
        ["BoundProjection::assemble(", "take_buffer("],
    "the row buffers kept for the next rows":
        ["RowBufferPool::take_kept(", "RowBufferPool::fetch_ahead("],
}


@pytest.fixture(scope="module")
def fetches_by_function():
    arch = platform.machine()
    if arch not in PREFETCH or not shutil.which("objdump"):
        pytest.skip(f"objdump and a known prefetch instruction are needed (machine: {arch})")
    dump = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", cdcd.cdcd_bin()],
                          check=True, capture_output=True, text=True).stdout
    counts, function = {}, None
    for line in dump.splitlines():
        if line.endswith(">:"):
            function = line[line.index("<") + 1:-2]
            counts.setdefault(function, 0)
        elif function and PREFETCH[arch].search(line):
            counts[function] += 1
    return counts


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_stage_that_reads_other_threads_rows_fetches_them_ahead(fetches_by_function, stage):
    names = STAGES[stage]
    found = {f: n for f, n in fetches_by_function.items() if any(part in f for part in names)}
    assert found, f"no function of {stage} ({names}) in the binary"
    assert sum(found.values()) > 0, f"{stage}: no prefetch instruction in {sorted(found)}"
