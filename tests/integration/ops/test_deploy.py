"""deploy/: the systemd unit passes systemd-analyze verify and runs the binary's real command
lines; the Docker entrypoint and the runtime stage's file layout work outside a container (no
Docker engine here); the runtime stage installs every shared library the binary needs."""
import os
import pathlib
import re
import shutil
import signal
import subprocess

import pytest

import cdcd_process as cdcd
import opslib

DEPLOY = cdcd.REPO / "deploy"
ENTRYPOINT = DEPLOY / "docker-entrypoint.sh"


def unit_directives():
    directives = {}
    for line in (DEPLOY / "cdcd.service").read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            directives.setdefault(key, []).append(value)
    return directives


def test_systemd_unit_verifies(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    unit = tmp_path / "cdcd.service"
    unit.write_text((DEPLOY / "cdcd.service").read_text().replace("/usr/local/bin/cdcd", cdcd.cdcd_bin()))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    # verify exits 0 even for unknown keys and bad values; any message is a finding.
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


def test_systemd_unit_settings_and_command_lines(tmp_path):
    d = unit_directives()
    assert d["Type"] == ["notify"]
    assert d["NotifyAccess"] == ["main"]
    assert d["User"] == ["cdcd"]
    assert d["StateDirectory"] == ["cdcd"]
    assert "WatchdogSec" in d
    for key, value in {"ProtectSystem": "strict", "NoNewPrivileges": "yes", "PrivateTmp": "yes",
                       "ProtectHome": "yes", "PrivateDevices": "yes", "RestrictSUIDSGID": "yes"}.items():
        assert d.get(key) == [value], key
    assert d["CapabilityBoundingSet"] == [""]
    # The stop timeout leaves room for pipeline.shutdown.timeout's default (30 s).
    assert int(d["TimeoutStopSec"][0].rstrip("s")) > 30
    start = d["ExecStart"][0].split()
    assert start[:3] == ["/usr/local/bin/cdcd", "run", "/etc/cdcd/pipeline.yaml"]
    assert start[start.index("--state-dir") + 1] == "/var/lib/cdcd"  # = StateDirectory
    assert d["ExecStartPre"] == ["/usr/local/bin/cdcd validate /etc/cdcd/pipeline.yaml"]

    # Both command lines, with the paths moved into tmp, are accepted by the binary.
    pipeline = cdcd.write_pipeline(tmp_path, opslib.generated("unit", rows=10, bounded=True))
    def localize(cmd):
        return [cdcd.cdcd_bin() if a == "/usr/local/bin/cdcd" else str(pipeline) if a == "/etc/cdcd/pipeline.yaml"
                else str(tmp_path / "state") if a == "/var/lib/cdcd" else a for a in cmd.split()]
    pre = subprocess.run(localize(d["ExecStartPre"][0]), capture_output=True, text=True, timeout=60)
    assert pre.returncode == 0, pre.stderr
    port = opslib.free_port()
    run = subprocess.run([a.replace("127.0.0.1:8081", f"127.0.0.1:{port}") for a in localize(d["ExecStart"][0])],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert f"admin endpoint listening on http://127.0.0.1:{port}" in run.stderr


@pytest.fixture
def fake_cdcd(tmp_path):
    """A `cdcd` on PATH that prints its arguments, to read the entrypoint's command lines."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    fake = bindir / "cdcd"
    fake.write_text('#!/bin/sh\necho "$@"\n')
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CDCD_")}
    env["PATH"] = f"{bindir}:{env['PATH']}"
    return env


def entrypoint(args, env, **kwargs):
    return subprocess.run([str(ENTRYPOINT), *args], env=env, capture_output=True, text=True, timeout=60, **kwargs)


def test_entrypoint_default_command_and_pass_through(fake_cdcd):
    default = "run /etc/cdcd/pipeline.yaml --state-dir /var/lib/cdcd --admin-address 0.0.0.0:8081"
    assert entrypoint([], fake_cdcd).stdout.strip() == default
    assert entrypoint(["--log-format", "json"], fake_cdcd).stdout.strip() == default + " --log-format json"
    assert entrypoint(["validate", "/p.yaml"], fake_cdcd).stdout.strip() == "validate /p.yaml"
    assert entrypoint(["checkpoints", "list", "--state-dir", "/var/lib/cdcd"], fake_cdcd).stdout.strip() == \
        "checkpoints list --state-dir /var/lib/cdcd"
    assert entrypoint(["version"], fake_cdcd).stdout.strip() == "version"
    assert entrypoint(["echo", "other", "command"], fake_cdcd).stdout.strip() == "other command"
    env = dict(fake_cdcd, CDCD_PIPELINE="/x.yaml", CDCD_STATE_DIR="/s", CDCD_ADMIN_ADDRESS="127.0.0.1:9")
    assert entrypoint([], env).stdout.strip() == "run /x.yaml --state-dir /s --admin-address 127.0.0.1:9"


def dockerfile_stages():
    stages, current = {}, None
    for raw in re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text()).splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, rest = line.partition(" ")
        if instruction == "FROM":
            m = re.match(r"(\S+)\s+AS\s+(\S+)", rest, re.I)
            current = m.group(2)
            stages[current] = [("FROM", m.group(1))]
        else:
            stages[current].append((instruction, rest.strip()))
    return stages


def test_dockerfile_stages():
    stages = dockerfile_stages()
    assert list(stages) == ["build", "runtime"]
    build, runtime = stages["build"], stages["runtime"]
    assert build[0] == ("FROM", "debian:12")
    build_runs = " ".join(r for i, r in build if i == "RUN")
    assert "scripts/setup.sh build" in build_runs and "cmake --preset release" in build_runs
    assert runtime[0] == ("FROM", "debian:12-slim")
    instructions = dict((i, r) for i, r in runtime)
    assert instructions["USER"] not in ("root", "0")
    assert instructions["VOLUME"] == "/var/lib/cdcd"
    assert "docker-entrypoint.sh" in instructions["ENTRYPOINT"]
    assert '"healthcheck"' in instructions["HEALTHCHECK"]
    # The runtime stage has no compiler or -dev packages.
    runtime_runs = " ".join(r for i, r in runtime if i == "RUN")
    assert not re.search(r"-dev\b|build-essential|cmake|g\+\+", runtime_runs)
    # Region time zones come from /usr/share/zoneinfo (pipeline/data/time_zone.cpp).
    assert re.search(r"\btzdata\b", runtime_runs)


def runtime_layout(root: pathlib.Path):
    """Builds the runtime stage's files under `root` from its COPY lines: the binary from
    CDCD_BIN for the build stage's output, files of the repository otherwise."""
    for instruction, rest in dockerfile_stages()["runtime"]:
        if instruction != "COPY":
            continue
        args = rest.split()
        from_build = any(a.startswith("--from=") for a in args)
        src, dest = [a for a in args if not a.startswith("--")]
        source = pathlib.Path(cdcd.cdcd_bin()) if from_build else cdcd.REPO / src
        assert source.exists(), src
        target = root / dest.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return root


def test_runtime_layout_runs_healthy_and_stops_on_sigterm(tmp_path):
    root = runtime_layout(tmp_path / "rootfs")
    bindir = root / "usr/local/bin"
    assert (bindir / "cdcd").exists() and os.access(bindir / "docker-entrypoint.sh", os.X_OK)
    port = opslib.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CDCD_")}
    env.update(PATH=f"{bindir}:{env['PATH']}", CDCD_PIPELINE=str(root / "etc/cdcd/pipeline.yaml"),
               CDCD_STATE_DIR=str(tmp_path / "var-lib-cdcd"), CDCD_ADMIN_ADDRESS=f"127.0.0.1:{port}")

    validate = entrypoint(["validate", str(root / "etc/cdcd/pipeline.yaml")], env)
    assert validate.returncode == 0, validate.stderr

    unhealthy = entrypoint(["healthcheck"], env)
    assert unhealthy.returncode != 0  # nothing listens yet

    proc = subprocess.Popen([str(bindir / "docker-entrypoint.sh")], env=env, stderr=subprocess.PIPE, text=True)
    try:
        opslib.wait_ready(port, proc)
        # exec'ed: the entrypoint's process is cdcd itself, so `docker stop`'s SIGTERM reaches it.
        assert os.path.realpath(f"/proc/{proc.pid}/exe") == os.path.realpath(bindir / "cdcd")
        assert entrypoint(["healthcheck"], env).returncode == 0
        # The image probes 0.0.0.0 on loopback.
        assert entrypoint(["healthcheck"], dict(env, CDCD_ADMIN_ADDRESS=f"0.0.0.0:{port}")).returncode == 0
        proc.send_signal(signal.SIGTERM)
        assert cdcd.wait_exit(proc, timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "final checkpoint" in proc.stderr.read()
    listed = entrypoint(["checkpoints", "list", "--state-dir", env["CDCD_STATE_DIR"]], env)
    assert "example" in listed.stdout


def package_of(path):
    for candidate in {path, path.replace("/usr/lib/", "/lib/"), "/usr" + path if path.startswith("/lib/") else path}:
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0]
    return None


def test_runtime_stage_installs_every_library_the_binary_needs():
    if shutil.which("dpkg") is None or shutil.which("readelf") is None:
        pytest.skip("needs dpkg and readelf")
    runtime_runs = " ".join(r for i, r in dockerfile_stages()["runtime"] if i == "RUN")
    installed = set(re.findall(r"\b(lib[\w.+-]+|ca-certificates)\b", runtime_runs))
    in_slim = {"libc6", "libstdc++6", "libgcc-s1", "zlib1g"}  # essential in debian:12-slim
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+)\]",
                        subprocess.run(["readelf", "-d", cdcd.cdcd_bin()], capture_output=True, text=True).stdout)
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", subprocess.run(["ldd", cdcd.cdcd_bin()], capture_output=True,
                                                                           text=True).stdout, re.M))
    missing = []
    for lib in needed:
        if lib.startswith("ld-linux"):
            continue  # the dynamic loader, libc6's (ldd prints it without "=>")
        package = package_of(resolved[lib])
        assert package, f"no package owns {resolved[lib]}"
        if package not in installed | in_slim:
            missing.append(f"{lib} ({package})")
    assert not missing, "runtime stage lacks " + ", ".join(missing)
