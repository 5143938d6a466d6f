"""OSS emulator. `python3 server.py [--port 0] [--host 127.0.0.1] [--mns-port P | --mns-url URL]`

Prints `LISTENING <oss port>` first. With --mns-port (0 = any free port) the MNS emulator
runs in this process on its own port and is announced as `MNS_LISTENING <port>`;
notification rules then deliver straight into it. --mns-url targets an MNS emulator
running elsewhere (delivery through its control API).
"""
import argparse
import asyncio
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "mns"))  # mns_app
sys.path.insert(2, str(HERE.parent / "common"))  # emulator_server, emu_faults

import emulator_server  # noqa: E402
import mns_app  # noqa: E402
import oss_app  # noqa: E402
import emulator_state_file  # noqa: E402
from emulator_server import start_site  # noqa: E402


def loopback_url(value: str) -> str:
    if not value.startswith(("http://127.0.0.1", "http://localhost")):
        raise argparse.ArgumentTypeError("--mns-url must be a loopback URL")
    return value


def add_mns_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--mns-port", type=int, default=None)
    group.add_argument("--mns-url", type=loopback_url, default=None)


async def main(args: argparse.Namespace) -> None:
    stop = emulator_server.stop_signal()
    mns_state = mns_app.MnsState() if args.mns_port is not None else None
    # --state-file: both emulators' data, loaded before serving and saved after stopping.
    saved = emulator_state_file.load(args.state_file)
    if saved is not None and mns_state is not None and saved.get("mns"):
        mns_app.restore_data(mns_state, saved["mns"])
    state = oss_app.OssState(mns_store=mns_state.store if mns_state else None, mns_url=args.mns_url)
    if saved is not None:
        oss_app.restore_data(state, saved["oss"])
    runners = []
    runner, port = await start_site(oss_app.build_app(state), args.host, args.port)
    runners.append(runner)
    print(f"LISTENING {port}", flush=True)
    if mns_state is not None:
        mns_runner, mns_port = await start_site(mns_app.build_app(mns_state), args.host, args.mns_port)
        runners.append(mns_runner)
        state.mns_url = f"http://{args.host}:{mns_port}"
        print(f"MNS_LISTENING {mns_port}", flush=True)

    await stop.wait()
    for r in reversed(runners):
        await r.cleanup()
    emulator_state_file.save(args.state_file, {"oss": oss_app.export_data(state),
                                               "mns": mns_app.export_data(mns_state) if mns_state else None})


if __name__ == "__main__":
    asyncio.run(main(emulator_server.parse_args(__doc__, add_mns_arguments)))
