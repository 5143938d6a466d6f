"""DingTalk OpenAPI emulator: wiki 2.0 + doc blocks + oauth2, on loopback.

    python3 tests/emulators/dingtalk/server.py [--port 0] [--host 127.0.0.1]

Prints `LISTENING <port>` (flushed) once bound, then serves until SIGTERM/SIGINT.
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # sibling modules
sys.path.insert(1, os.path.join(os.path.dirname(HERE), "common"))  # emulator_server

from aiohttp import web  # noqa: E402

import api_doc  # noqa: E402
import api_oauth  # noqa: E402
import api_wiki  # noqa: E402
import control  # noqa: E402
import emulator_server  # noqa: E402
import pipeline  # noqa: E402
from emulator_state_file import Persistence, restore_in_place  # noqa: E402


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


def _restore(app: web.Application, store) -> None:
    restore_in_place(app["state"].store, store)


# Apps, tokens, operators, workspaces and documents survive a restart; limits, faults, hooks and
# the request log (control.State.traffic) do not.
PERSISTENCE = Persistence(export=lambda app: app["state"].store, restore=_restore)


def main() -> None:
    emulator_server.main(build_app, __doc__, backlog=1024, persistence=PERSISTENCE)


if __name__ == "__main__":
    main()
