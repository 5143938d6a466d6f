"""The shared plumbing of the emulators (emulator_server, emulator_client, emu_faults), on a
small stand-in emulator run as a subprocess the way every server.py is."""
import pathlib
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import emulator_client  # noqa: E402

STAND_IN = f"""
import sys
sys.path.insert(0, {str(HERE)!r})
from aiohttp import web
import emu_faults, emulator_server

class VendorError(Exception):
    def __init__(self, status, code, message):
        self.status, self.code, self.message = status, code, message

def build_app():
    faults = emu_faults.FaultInjector()
    routes = web.RouteTableDef()

    @routes.post("/_emulator/echo")
    async def echo(request):
        return web.json_response(await emulator_server.json_body(request))

    @routes.get("/_emulator/missing")
    async def missing(request):
        raise VendorError(404, "NoSuchThing", "no such thing")

    emu_faults.add_control_routes(routes, faults, "/_emulator")
    app = web.Application()
    emulator_server.add_guarded_routes(app, routes, VendorError)

    async def vendor(request):
        try:
            sent = await emu_faults.play(faults, "Get", request,
                                         throttled=lambda r: VendorError(r.status or 429, "Throttled", "slow down"),
                                         failed=lambda r: VendorError(r.status or 500, r.code or "Internal", "failed"))
            if sent is not None:
                return sent
        except VendorError as err:
            return web.json_response({{"code": err.code}}, status=err.status)
        return web.json_response({{"ok": True}})
    app.router.add_get("/vendor", vendor)
    return app

emulator_server.main(build_app, "stand-in emulator")
"""


def vendor_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


@pytest.fixture
def stand_in(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(STAND_IN)
    proc, ports = emulator_client.start_server(script, "--port", "0")
    yield proc, f"http://127.0.0.1:{ports['LISTENING']}"
    emulator_client.stop_server(proc)


def test_control_calls_and_errors(stand_in):
    _, url = stand_in
    assert emulator_client.control_call(url, "POST", "/echo", {"a": [1]}) == {"a": [1]}
    assert emulator_client.control_call(url, "POST", "echo") == {}
    with pytest.raises(emulator_client.ControlError) as err:
        emulator_client.control_call(url, "GET", "missing")
    assert err.value.status == 404 and '"code": "NoSuchThing"' in err.value.body
    with pytest.raises(emulator_client.ControlError) as err:
        emulator_client.control_call(url, "POST", "echo", [1])
    assert err.value.status == 400 and "JSON object expected" in err.value.body


def test_fault_rules_through_the_control_api(stand_in):
    _, url = stand_in
    control = emulator_client.KeyedControl(url)
    control.inject_fault("Get", kind="throttle")
    control.inject_fault("*", kind="error", status=503, count=2)
    statuses = [vendor_status(url + "/vendor") for _ in range(4)]
    assert statuses == [429, 503, 503, 200]
    assert control.counters() == {"Get": 4}
    control.clear_faults()
    assert control.control("GET", "/faults") == {"faults": []}


def test_oversize_answers_stream_the_size_asked_for(stand_in):
    _, url = stand_in
    control = emulator_client.KeyedControl(url)
    control.inject_fault("Get", kind="oversize", size=3 << 20)
    control.inject_fault("Get", kind="oversize", size=100_000, chunked=False)
    with urllib.request.urlopen(url + "/vendor", timeout=10) as resp:
        assert resp.headers.get("Transfer-Encoding") == "chunked"
        assert resp.read() == b"x" * (3 << 20)
    with urllib.request.urlopen(url + "/vendor", timeout=10) as resp:
        assert resp.headers.get("Content-Length") == "100000"
        assert len(resp.read()) == 100_000
    assert vendor_status(url + "/vendor") == 200
    with pytest.raises(emulator_client.ControlError) as err:
        control.inject_fault("Get", kind="oversize", size=(1 << 30) + 1)
    assert err.value.status == 400


def test_stop_is_graceful_on_sigterm(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(STAND_IN)
    proc, _ = emulator_client.start_server(script)
    emulator_client.stop_server(proc)
    assert proc.returncode == 0 and proc.stdout.closed


def test_start_fails_without_announce_and_stop_escalates(tmp_path):
    silent = tmp_path / "silent.py"
    silent.write_text("print('hello', flush=True)\n")
    with pytest.raises(RuntimeError, match="did not report"):
        emulator_client.start_server(silent, timeout=10)
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text(textwrap.dedent("""
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("LISTENING 1", flush=True)
        time.sleep(60)
    """))
    proc, ports = emulator_client.start_server(stubborn)
    assert ports == {"LISTENING": 1}
    emulator_client.stop_server(proc, timeout=0.5)
    assert proc.returncode == -9


def test_loopback_only(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(STAND_IN)
    run = subprocess.run([sys.executable, str(script), "--host", "0.0.0.0"], capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 2 and "binds loopback only" in run.stderr
