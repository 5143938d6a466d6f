"""Shared fixtures: one emulator process per test module, reset before every test."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dingtalk_testenv import APP_KEY, APP_SECRET, OPERATOR, DingTalkEmulator  # noqa: E402


@pytest.fixture(scope="module")
def emulator_process():
    with DingTalkEmulator() as emu:
        yield emu


@pytest.fixture
def emu(emulator_process):
    emulator_process.reset()
    emulator_process.create_app(APP_KEY, APP_SECRET)
    emulator_process.create_operators(OPERATOR)
    return emulator_process
