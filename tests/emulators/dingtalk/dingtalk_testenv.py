"""Test-side constants and the emulator client, under names unique across emulator folders
(sibling folders also have client.py / conftest.py, and pytest may share one process)."""
from __future__ import annotations

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "dingtalk_emulator_client", pathlib.Path(__file__).with_name("client.py"))
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)

DingTalkEmulator = client.DingTalkEmulator
ControlError = client.ControlError

APP_KEY, APP_SECRET = "dingappkey0001", "app-secret-0001"
OPERATOR = "unionOperator0001"
