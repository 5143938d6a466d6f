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
# A fetch ahead of a write (x86's PREFETCHW, AArch64's PST hint): the line comes in the state a
# write needs, not shared with the core that last read it.
PREFETCH_FOR_WRITE = {"x86_64": re.compile(r"\tprefetchw\b"), "aarch64": re.compile(r"\tprfm\tpst")}

# Stages whose fetched buffers are written next (buffers another thread last read).
WRITE_STAGES = {
    "the transform's spare buffers for projected rows":
        ["BoundProjection::assemble(", "take_buffer("],
    "the row buffers kept for the next rows":
        ["RowBufferPool::take_kept(", "RowBufferPool::fetch_ahead("],
}

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
    counts, writes, function = {}, {}, None
    for line in dump.splitlines():
        if line.endswith(">:"):
            function = line[line.index("<") + 1:-2]
            counts.setdefault(function, 0)
            writes.setdefault(function, 0)
        elif function and PREFETCH[arch].search(line):
            counts[function] += 1
            writes[function] += bool(PREFETCH_FOR_WRITE[arch].search(line))
    return counts, writes


def assert_fetches(counts, stage, names, what):
    """Some function of `stage` (a name holding one of `names`) holds an instruction of `what`."""
    found = {f: n for f, n in counts.items() if any(part in f for part in names)}
    assert found, f"no function of {stage} ({names}) in the binary"
    assert sum(found.values()) > 0, f"{stage}: no {what} in {sorted(found)}"


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_stage_that_reads_other_threads_rows_fetches_them_ahead(fetches_by_function, stage):
    assert_fetches(fetches_by_function[0], stage, STAGES[stage], "prefetch instruction")


@pytest.mark.parametrize("stage", sorted(WRITE_STAGES))
def test_a_buffer_fetched_to_be_written_is_fetched_for_a_write(fetches_by_function, stage):
    # A read fetch of a line another core holds brings it in shared, and the write then asks
    # for it again (GENERATED -> transform -> values: 7 % more CPU with read fetches).
    assert_fetches(fetches_by_function[1], stage, WRITE_STAGES[stage], "fetch for a write")
