"""MNS emulator: `python3 server.py [--port 0] [--host 127.0.0.1]`; prints `LISTENING <port>`."""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "common"))  # emulator_server, emu_faults

import emulator_server  # noqa: E402
import mns_app  # noqa: E402
from emulator_state_file import Persistence  # noqa: E402

PERSISTENCE = Persistence(export=lambda app: mns_app.export_data(app["mns_state"]),
                          restore=lambda app, data: mns_app.restore_data(app["mns_state"], data))

if __name__ == "__main__":
    emulator_server.main(mns_app.build_app, __doc__, persistence=PERSISTENCE)
