"""Fixtures: one emulator process per test module, state and credentials reset per test."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from vdb_testenv import VikingDBEmulator  # noqa: E402


@pytest.fixture(scope="module")
def emulator_process():
    with VikingDBEmulator() as emu:
        yield emu


@pytest.fixture
def emu(emulator_process):
    emulator_process.reset(credentials=True)
    yield emulator_process
