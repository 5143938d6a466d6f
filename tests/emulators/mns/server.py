"""MNS emulator: `python3 server.py [--port 0] [--host 127.0.0.1]`; prints `LISTENING <port>`."""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "common"))  # emulator_server, emu_faults

import emulator_server  # noqa: E402
import mns_app  # noqa: E402

if __name__ == "__main__":
    emulator_server.main(mns_app.build_app, __doc__)
