"""Fixtures for the VikingDB sink's integration tests: one emulator per module, reset per test."""
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "emulators" / "vikingdb"))

from client import VikingDBEmulator  # noqa: E402


@pytest.fixture(scope="module")
def emulator_process():
    with VikingDBEmulator() as emu:
        yield emu


@pytest.fixture
def emu(emulator_process):
    emulator_process.reset(credentials=True)
    emulator_process.clear_faults()
    yield emulator_process
