"""Server-side plumbing shared by the emulators' server.py: the command line (`--host`, `--port`,
loopback only), binding an aiohttp application, the `LISTENING <port>` announce line, and
serving until SIGTERM/SIGINT. The vendor protocol of each emulator stays in its own folder.

Each emulator's server.py puts this folder on sys.path itself.
"""
from __future__ import annotations

import argparse
import asyncio
import signal
from typing import Callable

from aiohttp import web

from emulator_state_file import Persistence

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
AIOHTTP_BACKLOG = 128  # aiohttp's own default for web.TCPSite


def parse_args(description: str, add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
               ) -> argparse.Namespace:
    """`--host` (loopback only) and `--port` (0 = any free port), plus what `add_arguments` adds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--state-file", default=None,
                        help="load the data from this file at start, write it back at stop")
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args()
    if args.host not in LOOPBACK_HOSTS:
        parser.error("the emulator binds loopback only")
    return args


async def json_body(request: web.Request) -> dict:
    """A control request's JSON object body ({} when there is none); ValueError when not an object."""
    if not request.can_read_body:
        return {}
    data = await request.json()
    if not isinstance(data, dict):
        raise ValueError("JSON object expected")
    return data


def add_guarded_routes(app: web.Application, routes: web.RouteTableDef, vendor_error: type) -> None:
    """Adds control routes whose handlers answer a `vendor_error` (with .status, .code, .message)
    and a bad request (ValueError, KeyError, TypeError: 400) as a JSON {"error", "code"?} object."""

    def guarded(fn):
        async def wrapper(request):
            try:
                return await fn(request)
            except vendor_error as err:
                return web.json_response({"error": err.message, "code": err.code}, status=err.status)
            except (ValueError, KeyError, TypeError) as err:
                return web.json_response({"error": f"{type(err).__name__}: {err}"}, status=400)
        return wrapper

    for route in routes:
        app.router.add_route(route.method, route.path, guarded(route.handler))


async def start_site(app: web.Application, host: str, port: int,
                     backlog: int = AIOHTTP_BACKLOG) -> tuple[web.AppRunner, int]:
    """Binds `app` on host:port; returns its runner and the port it bound."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=backlog)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]


def stop_signal() -> asyncio.Event:
    """An event set by the first SIGTERM or SIGINT. Call it before announcing the port, so that
    a client which stops the server as soon as it has read the port gets a clean shutdown."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def serve(build_app: Callable[[], web.Application], host: str, port: int,
                backlog: int = AIOHTTP_BACKLOG, persistence: Persistence | None = None,
                state_file: str | None = None) -> None:
    """Serves the application `build_app` makes, announced as `LISTENING <port>`, until signalled.
    With `persistence` and a `state_file`, the application's data is loaded from the file before
    serving and written back to it after the last connection is closed."""
    stop = stop_signal()
    app = build_app()
    if persistence is not None:
        persistence.load_into(state_file, app)
    runner, bound = await start_site(app, host, port, backlog)
    print(f"LISTENING {bound}", flush=True)
    await stop.wait()
    await runner.cleanup()
    if persistence is not None:
        persistence.save_from(state_file, app)


def main(build_app: Callable[[], web.Application], description: str,
         backlog: int = AIOHTTP_BACKLOG, persistence: Persistence | None = None) -> None:
    """The whole of a one-port emulator's server.py: parse the command line, serve."""
    args = parse_args(description)
    asyncio.run(serve(build_app, args.host, args.port, backlog, persistence, args.state_file))
