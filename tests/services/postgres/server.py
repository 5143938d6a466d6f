"""A real PostgreSQL server for tests: Debian's `postgresql` package, a fresh cluster under a
temporary directory, on a free 127.0.0.1 port, with logical replication turned on
(wal_level=logical) and a password-authenticated user that may replicate.

    python3 tests/services/postgres/server.py start [--run-dir DIR]   # prints PORT=...
    python3 tests/services/postgres/server.py stop --run-dir DIR

From Python: `with PostgresServer() as pg: pg.sql("SELECT 1")`, or the session-scoped pytest
fixture `postgres_server`. SQL runs through Debian's `psql` client, so the tests need no Python
driver. Every wait is bounded."""
from __future__ import annotations

import atexit
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

# The replicating user the tests (and cdcd) connect as, and the database they use.
USER = "cdcd"
PASSWORD = "cdcd-test-secret-42"
DATABASE = "cdcd"
# initdb's own superuser; it connects through the Unix socket only (trust).
SUPERUSER = "postgres"

START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 30


def bin_dir() -> Path:
    """The newest /usr/lib/postgresql/<version>/bin holding a `postgres` binary."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parents[1].name) if Path(p).parents[1].name.isdigit() else 0)
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin "
                           "(install Debian's `postgresql`: scripts/setup.sh test)")
    return Path(found[-1]).parent


def as_server_user(cmd: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: under root (CI containers) its binaries run as the
    `postgres` user that Debian's package creates."""
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *cmd]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The role that logs in with a client certificate (its certificate's CN), over TLS only.
CERT_USER = "cdcd_cert"


def make_certificates(directory: Path) -> dict[str, Path]:
    """A test CA and a server certificate it signed for 127.0.0.1 (an IP subjectAltName, which
    libpq's verify-full checks), with openssl; a client certificate it signed for CERT_USER; plus
    a second CA that signed nothing."""
    directory.mkdir(parents=True, exist_ok=True)
    run = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True,  # noqa: E731
                                       timeout=60, cwd=directory)
    for ca in ("ca", "other-ca"):
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN=cdcd test {ca}",
            "-keyout", f"{ca}.key", "-out", f"{ca}.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
        "-out", "server.csr")
    (directory / "san.ext").write_text("subjectAltName = IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", "san.ext", "-out", "server.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={CERT_USER}", "-keyout", "client.key",
        "-out", "client.csr")
    run("x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-out", "client.crt")
    return {name: directory / name
            for name in ("ca.crt", "other-ca.crt", "server.crt", "server.key", "client.crt", "client.key")}


class PostgresServer:
    def __init__(self, run_dir: str | os.PathLike | None = None, port: int | None = None,
                 tls: bool = False, settings: dict[str, str] | None = None):
        self._own_dir = run_dir is None
        self.run_dir = Path(run_dir or tempfile.mkdtemp(prefix="cdcd-pg-"))
        if os.geteuid() == 0:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            shutil.chown(self.run_dir, "postgres", "postgres")
        self.data_dir = self.run_dir / "data"
        self.socket_dir = self.run_dir / "sock"
        self.log_file = self.run_dir / "postgres.log"
        self.port = port or free_port()
        self.bin = bin_dir()
        self.proc: subprocess.Popen | None = None
        # Server settings over the defaults below (`-c key=value`).
        self.settings = dict(settings or {})
        # With tls: certificates under run_dir/tls (certs["ca.crt"] verifies the server's).
        self.certs: dict[str, Path] = {}
        if tls:
            self.certs = make_certificates(self.run_dir / "tls")
            for f in (self.run_dir / "tls").iterdir():
                os.chmod(f, 0o600 if f.suffix == ".key" else 0o644)
                # The client's files stay the client's (libpq wants its key private to it).
                if os.geteuid() == 0 and not f.name.startswith("client."):
                    shutil.chown(f, "postgres", "postgres")
            if os.geteuid() == 0:
                shutil.chown(self.run_dir / "tls", "postgres", "postgres")

    # --- lifecycle -------------------------------------------------------------------------
    def start(self) -> "PostgresServer":
        if not self.data_dir.exists():
            self._initdb()
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        self.log_file.touch()
        if os.geteuid() == 0:
            shutil.chown(self.socket_dir, "postgres", "postgres")
        log = open(self.log_file, "ab")
        self.proc = subprocess.Popen(as_server_user(
            [str(self.bin / "postgres"), "-D", str(self.data_dir), "-p", str(self.port),
             "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.socket_dir}",
             "-c", "wal_level=logical", "-c", "max_replication_slots=20", "-c", "max_wal_senders=20",
             "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
             "-c", "shared_buffers=32MB", "-c", "log_min_messages=warning",
             "-c", "wal_sender_timeout=60s", *self._tls_settings(),
             *[arg for k, v in self.settings.items() for arg in ("-c", f"{k}={v}")]]),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        atexit.register(self._stop_at_exit)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"postgres exited with {self.proc.returncode}:\n{self.log_tail()}")
            if subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port),
                               "-t", "1"], capture_output=True).returncode == 0:
                return self
            time.sleep(0.1)
        raise RuntimeError(f"postgres did not accept connections within {START_TIMEOUT_S} s:\n"
                           f"{self.log_tail()}")

    def _tls_settings(self) -> list[str]:
        if not self.certs:
            return []
        # ssl_ca_file: client certificates the test CA signed are verified (CERT_USER's login).
        return ["-c", "ssl=on", "-c", f"ssl_cert_file={self.certs['server.crt']}",
                "-c", f"ssl_key_file={self.certs['server.key']}",
                "-c", f"ssl_ca_file={self.certs['ca.crt']}"]

    def _initdb(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        pwfile = self.run_dir / "superuser.pw"
        pwfile.write_text("unused\n")
        if os.geteuid() == 0:
            shutil.chown(pwfile, "postgres", "postgres")
        subprocess.run(as_server_user([str(self.bin / "initdb"), "-D", str(self.data_dir), "-U", SUPERUSER,
                        "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                        "--locale=C", f"--pwfile={pwfile}"]),
                       check=True, capture_output=True, timeout=120)
        # Password authentication over TCP for everyone, replication connections included; with
        # TLS, CERT_USER logs in with its client certificate alone.
        with open(self.data_dir / "pg_hba.conf", "w") as hba:
            hba.write("local all all trust\n")
            if self.certs:
                hba.write(f"hostssl all {CERT_USER} 127.0.0.1/32 cert\n"
                          f"hostssl replication {CERT_USER} 127.0.0.1/32 cert\n")
            hba.write("host all all 127.0.0.1/32 scram-sha-256\n"
                      "host replication all 127.0.0.1/32 scram-sha-256\n")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)  # fast shutdown
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=STOP_TIMEOUT_S)

    def close(self) -> None:
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    def _stop_at_exit(self) -> None:
        try:
            self.stop()
        except Exception:
            pass

    def __enter__(self) -> "PostgresServer":
        self.start()
        self.bootstrap()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    # --- SQL ---------------------------------------------------------------------------------
    def bootstrap(self) -> None:
        """The replicating user and its database (idempotent)."""
        exists = self.sql(f"SELECT 1 FROM pg_roles WHERE rolname = '{USER}'", database="postgres",
                          superuser=True)
        if not exists.strip():
            self.sql(f"CREATE ROLE {USER} LOGIN REPLICATION PASSWORD '{PASSWORD}'",
                     database="postgres", superuser=True)
        if not self.sql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'",
                        database="postgres", superuser=True).strip():
            self.sql(f"CREATE DATABASE {DATABASE} OWNER {USER}", database="postgres", superuser=True)

    def sql(self, statements: str, *, database: str = DATABASE, superuser: bool = False,
            timeout: float = 60) -> str:
        """Runs SQL through psql (stopping at the first error) and returns its unaligned output:
        one line per row, columns separated by `|`."""
        if superuser:
            conn = ["-h", str(self.socket_dir), "-U", SUPERUSER]
            env = dict(os.environ)
        else:
            conn = ["-h", "127.0.0.1", "-U", USER]
            env = dict(os.environ, PGPASSWORD=PASSWORD)
        proc = subprocess.run(
            [str(self.bin / "psql"), *conn, "-p", str(self.port), "-d", database, "-X", "-q",
             "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statements],
            capture_output=True, text=True, timeout=timeout, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"psql failed ({proc.returncode}): {proc.stderr.strip()}\nSQL: {statements}")
        return proc.stdout

    def rows(self, query: str, **kw) -> list[list[str]]:
        return [line.split("|") for line in self.sql(query, **kw).splitlines() if line]

    def slot(self, name: str) -> dict | None:
        """The replication slot `name`: active, restart_lsn, confirmed_flush_lsn; None if absent."""
        r = self.rows("SELECT active, restart_lsn, confirmed_flush_lsn FROM pg_replication_slots "
                      f"WHERE slot_name = '{name}'")
        if not r:
            return None
        return {"active": r[0][0] == "t", "restart_lsn": r[0][1], "confirmed_flush_lsn": r[0][2]}

    def drop_slot(self, name: str, timeout: float = 30) -> None:
        """Drops the slot once no connection holds it (bounded wait)."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.slot(name)
            if s is None:
                return
            if not s["active"]:
                self.sql(f"SELECT pg_drop_replication_slot('{name}')")
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"slot {name} still active after {timeout} s")
            time.sleep(0.1)


def lsn_value(text: str) -> int:
    """'0/16B3748' → its 64-bit position."""
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


@pytest.fixture(scope="session")
def postgres_server():
    with PostgresServer() as server:
        yield server


@pytest.fixture(scope="session")
def postgres_tls_server():
    """A second server, with TLS on (certificates of a test CA, `certs`)."""
    with PostgresServer(tls=True) as server:
        yield server


def _main(argv: list[str]) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["start", "stop"])
    p.add_argument("--run-dir")
    p.add_argument("--port", type=int)
    a = p.parse_args(argv)
    if a.command == "start":
        server = PostgresServer(a.run_dir or tempfile.mkdtemp(prefix="cdcd-pg-"), a.port)
        server._own_dir = False
        server.start()
        server.bootstrap()
        atexit.unregister(server._stop_at_exit)
        (server.run_dir / "port").write_text(str(server.port))
        (server.run_dir / "postgres.pid").write_text(str(server.proc.pid))
        print(f"RUN_DIR={server.run_dir}\nPORT={server.port}\nUSER={USER}\nDATABASE={DATABASE}")
        return 0
    if not a.run_dir:
        p.error("stop needs --run-dir")
    pid_file = Path(a.run_dir) / "postgres.pid"
    if not pid_file.exists():
        return 0
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, signal.SIGINT)
    except ProcessLookupError:
        return 0
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            pid_file.unlink()
            return 0
        time.sleep(0.1)
    print(f"postgres {pid} did not stop within {STOP_TIMEOUT_S} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
