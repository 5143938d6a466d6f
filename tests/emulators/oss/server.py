"""OSS emulator. `python3 server.py [--port 0] [--host 127.0.0.1] [--mns-port P | --mns-url URL]`

Prints `LISTENING <oss port>` first. With --mns-port (0 = any free port) the MNS emulator
runs in this process on its own port and is announced as `MNS_LISTENING <port>`;
notification rules then deliver straight into it. --mns-url targets an MNS emulator
running elsewhere (delivery through its control API).
"""
import argparse
import asyncio
import pathlib
import signal
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "mns"))  # emu_faults, mns_app

import mns_app  # noqa: E402
import oss_app  # noqa: E402
from aiohttp import web  # noqa: E402


async def start_site(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--mns-port", type=int, default=None)
    group.add_argument("--mns-url", default=None)
    args = parser.parse_args()
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("the emulator binds loopback only")
    if args.mns_url and not args.mns_url.startswith(("http://127.0.0.1", "http://localhost")):
        parser.error("--mns-url must be a loopback URL")

    mns_state = mns_app.MnsState() if args.mns_port is not None else None
    state = oss_app.OssState(mns_store=mns_state.store if mns_state else None, mns_url=args.mns_url)
    runners = []
    runner, port = await start_site(oss_app.build_app(state), args.host, args.port)
    runners.append(runner)
    print(f"LISTENING {port}", flush=True)
    if mns_state is not None:
        mns_runner, mns_port = await start_site(mns_app.build_app(mns_state), args.host, args.mns_port)
        runners.append(mns_runner)
        state.mns_url = f"http://{args.host}:{mns_port}"
        print(f"MNS_LISTENING {mns_port}", flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for r in reversed(runners):
        await r.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
