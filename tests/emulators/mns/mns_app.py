"""Builds the MNS emulator aiohttp application (used standalone and by the OSS server)."""
from aiohttp import web

import emu_faults
import mns_control
import mns_handlers
from emulator_state_file import restore_in_place
from mns_store import MnsStore

DEFAULT_ACCESS_KEY_ID = "AKTEST"
DEFAULT_ACCESS_KEY_SECRET = "SKTEST"
CONTROL_PREFIX = "/_emulator"


class MnsState:
    def __init__(self) -> None:
        self.store = MnsStore()
        self.faults = emu_faults.FaultInjector()
        self.credentials: dict[str, tuple[str, str]] = {}
        self.verify_signatures = True
        self.clock_offset_s = 0.0  # the server's clock ahead of the host's (a skewed client)
        self.host_id = "mns.cn-hangzhou.aliyuncs.com"
        self.reset()

    def reset(self) -> None:
        self.store.reset()
        self.faults.reset()
        self.credentials.clear()
        self.credentials[DEFAULT_ACCESS_KEY_ID] = (DEFAULT_ACCESS_KEY_SECRET, "")
        self.verify_signatures = True
        self.clock_offset_s = 0.0


def export_data(state: MnsState) -> dict:
    """What survives a restart (common/emulator_state_file.py): queues, their messages and receipt
    handles, and the access keys; not fault rules or counters."""
    return {"store": state.store, "credentials": state.credentials,
            "verify_signatures": state.verify_signatures}


def restore_data(state: MnsState, data: dict) -> None:
    restore_in_place(state.store, data["store"])
    state.credentials.clear()
    state.credentials.update(data["credentials"])
    state.verify_signatures = data["verify_signatures"]


def build_app(state: MnsState | None = None) -> web.Application:
    state = state or MnsState()
    app = web.Application(client_max_size=8 * 1024 * 1024)
    app["mns_state"] = state
    mns_control.add_control_routes(app, state, CONTROL_PREFIX)
    api = mns_handlers.MnsApi(state)
    # Everything outside /_emulator/ is the vendor API.
    app.router.add_route("*", "/{tail:.*}", api.handle)
    return app
