"""DingTalk OpenAPI emulator: wiki 2.0 + doc blocks + oauth2, on loopback.

    python3 tests/emulators/dingtalk/server.py [--port 0] [--host 127.0.0.1]

Prints `LISTENING <port>` (flushed) once bound, then serves until SIGTERM/SIGINT.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # sibling modules

from aiohttp import web  # noqa: E402

import api_doc  # noqa: E402
import api_oauth  # noqa: E402
import api_wiki  # noqa: E402
import control  # noqa: E402
import pipeline  # noqa: E402


def build_app() -> web.Application:
    app = web.Application(middlewares=[control.control_errors, pipeline.vendor_middleware])
    app["state"] = control.State()
    r = app.router
    # Route names are the SDK action names; counters, limits, faults and hooks use them.
    r.add_post("/v1.0/oauth2/accessToken", api_oauth.get_access_token, name="GetAccessToken")
    r.add_get("/v2.0/wiki/workspaces", api_wiki.list_workspaces, name="ListWorkspaces")
    r.add_get("/v2.0/wiki/workspaces/{workspaceId}", api_wiki.get_workspace, name="GetWorkspace")
    r.add_get("/v2.0/wiki/nodes", api_wiki.list_nodes, name="ListNodes")
    r.add_get("/v2.0/wiki/nodes/{nodeId}", api_wiki.get_node, name="GetNode")
    r.add_get("/v1.0/doc/suites/documents/{docKey}/blocks", api_doc.doc_blocks_query,
              name="DocBlocksQuery")
    control.add_routes(app)
    return app


async def serve(host: str, port: int) -> None:
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("the emulator binds loopback only")
    runner = web.AppRunner(build_app(), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1]
    print(f"LISTENING {bound}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
