import sys
import pathlib

# Let test modules import the shared helpers by name.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


import pytest  # noqa: E402

import cdcd_process  # noqa: E402


@pytest.fixture(autouse=True)
def _no_daemon_left_running():
    """A test that fails before it stops its daemon must not leave it running: it would poll its
    emulator or broker (gone with the test) for ever."""
    yield
    cdcd_process.kill_left_running()
