"""Shared fixtures: one emulator process per test module, state reset per test."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from client import VikingDBEmulator  # noqa: E402

AK, SK = "AKTEST", "SKTEST"
API_KEY = "test-api-key"


@pytest.fixture(scope="module")
def emulator_process():
    with VikingDBEmulator() as emu:
        yield emu


@pytest.fixture
def emu(emulator_process):
    emulator_process.reset(credentials=True)
    yield emulator_process


BASIC_FIELDS = [
    {"FieldName": "id", "FieldType": "string", "IsPrimaryKey": True},
    {"FieldName": "vec", "FieldType": "vector", "Dim": 4},
    {"FieldName": "city", "FieldType": "string", "DefaultValue": "none"},
    {"FieldName": "price", "FieldType": "int64"},
]
