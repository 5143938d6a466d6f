"""Builds the OSS emulator aiohttp application."""
import aiohttp
from aiohttp import web

import emu_faults
import oss_auth
import oss_control
import oss_handlers
import oss_notify
from emulator_state_file import restore_in_place
from oss_store import OssStore

DEFAULT_ACCESS_KEY_ID = "AKTEST"
DEFAULT_ACCESS_KEY_SECRET = "SKTEST"
DEFAULT_REGION = "cn-hangzhou"
OWNER_ID = "1234567890123456"


class OssState:
    def __init__(self, mns_store=None, mns_url: str | None = None) -> None:
        self.region = DEFAULT_REGION
        self.owner_id = OWNER_ID
        self.store = OssStore(self.region)
        self.faults = emu_faults.FaultInjector()
        self.credentials = oss_auth.Credentials()
        self.verify_signatures = True
        self.clock_offset_s = 0.0  # the server's clock ahead of the host's (a skewed client)
        self.mns_url = mns_url
        self._session: aiohttp.ClientSession | None = None
        self.notifier = oss_notify.Notifier(self.region, self.owner_id, mns_store, self.http_session)
        self.notifier.default_mns_url = mns_url
        self.reset()

    def http_session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        return self._session

    def owner_pair(self) -> tuple[str, str]:
        return self.owner_id, self.owner_id

    def reset(self) -> None:
        self.region = self.store.region = self.notifier.region = DEFAULT_REGION
        self.store.reset()
        self.faults.reset()
        self.clock_offset_s = 0.0
        self.notifier.reset()
        self.credentials.keys.clear()
        self.credentials.keys[DEFAULT_ACCESS_KEY_ID] = (DEFAULT_ACCESS_KEY_SECRET, "")
        self.verify_signatures = True


def export_data(state: OssState) -> dict:
    """What survives a restart (common/emulator_state_file.py): buckets and objects, notification
    rules and access keys; not fault rules or counters."""
    return {"region": state.region, "store": state.store, "credentials": state.credentials,
            "verify_signatures": state.verify_signatures, "rules": state.notifier.rules}


def restore_data(state: OssState, data: dict) -> None:
    state.region = state.notifier.region = data["region"]
    restore_in_place(state.store, data["store"])
    restore_in_place(state.credentials, data["credentials"])
    state.verify_signatures = data["verify_signatures"]
    state.notifier.rules = data["rules"]


def build_app(state: OssState) -> web.Application:
    app = web.Application(client_max_size=256 * 1024 * 1024)
    app["oss_state"] = state
    oss_control.add_control_routes(app, state)
    api = oss_handlers.OssApi(state)
    app.router.add_route("*", "/{tail:.*}", api.handle)

    async def close_session(_app):
        if state._session is not None:
            await state._session.close()
    app.on_cleanup.append(close_session)
    return app
