"""Fixtures of the connector conformance suite: the servers the harnesses need, each started only
when a test of its connector asks, once per session (harnesses use names of their own in them)."""
import importlib.util
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "oss"))  # oss_helpers
sys.path.insert(0, str(HERE.parent / "dingtalk"))  # dingtalk_env
sys.path.insert(0, str(REPO / "tests" / "services" / "kafka"))
sys.path.insert(0, str(REPO / "tests" / "services" / "postgres"))

from broker import kafka_broker  # noqa: E402,F401  (session-scoped fixture)
from server import postgres_server  # noqa: E402,F401  (session-scoped fixture)


def load_module(name, path):
    """Imports `path` as `name`: the emulators' clients are all called client.py."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def vikingdb_emulator():
    client = load_module("vikingdb_emulator_client", REPO / "tests/emulators/vikingdb/client.py")
    with client.VikingDBEmulator() as emu:
        yield emu


@pytest.fixture(scope="session")
def oss_emulator():
    from oss_helpers import OssEmulator
    with OssEmulator(with_mns=True) as emu:
        yield emu


@pytest.fixture(scope="session")
def dingtalk_emulator():
    import dingtalk_env
    emu = dingtalk_env.start_emulator()
    yield emu
    emu.stop()
