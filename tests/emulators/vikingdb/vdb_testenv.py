"""Test-process imports in one place, under names unique to this emulator.

client.py keeps the conventional name, so it is loaded here as module
`vdb_client` (sibling emulators also have a client.py; pytest runs in importlib
mode, see pytest.ini).
"""
from __future__ import annotations

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def _load_client():
    if "vdb_client" in sys.modules:
        return sys.modules["vdb_client"]
    spec = importlib.util.spec_from_file_location("vdb_client", os.path.join(HERE, "client.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["vdb_client"] = module
    spec.loader.exec_module(module)
    return module


_client = _load_client()
VikingDBEmulator = _client.VikingDBEmulator
EmulatorError = _client.EmulatorError

AK, SK = "AKTEST", "SKTEST"
API_KEY = "test-api-key"

BASIC_FIELDS = [
    {"FieldName": "id", "FieldType": "string", "IsPrimaryKey": True},
    {"FieldName": "vec", "FieldType": "vector", "Dim": 4},
    {"FieldName": "city", "FieldType": "string", "DefaultValue": "none"},
    {"FieldName": "price", "FieldType": "int64"},
]
