"""Fixtures of the connector conformance suite: the real binary run on a pipeline, and the servers
the harnesses need (the Kafka broker and the VikingDB emulator start only when a test asks)."""
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(REPO / "tests" / "services" / "kafka"))
sys.path.insert(0, str(REPO / "tests" / "emulators" / "vikingdb"))

from broker import kafka_broker  # noqa: E402,F401  (session-scoped fixture)


@pytest.fixture(scope="session")
def vikingdb_emulator():
    from client import VikingDBEmulator
    with VikingDBEmulator() as emu:
        yield emu
