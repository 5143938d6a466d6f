# Smoke test of the PostgreSQL test service: logical replication is on, the test user may log in
# with its password and replicate, and a wrong password is refused.
import subprocess

import pytest

from server import DATABASE, PASSWORD, USER


def test_logical_replication_is_on(postgres_server):
    assert postgres_server.sql("SHOW wal_level").strip() == "logical"
    assert int(postgres_server.sql("SHOW max_replication_slots").strip()) >= 10


def test_user_may_replicate(postgres_server):
    assert postgres_server.sql(f"SELECT rolreplication FROM pg_roles WHERE rolname = '{USER}'").strip() == "t"
    postgres_server.sql("SELECT pg_create_logical_replication_slot('smoke_slot', 'pgoutput')")
    assert postgres_server.slot("smoke_slot") is not None
    postgres_server.drop_slot("smoke_slot")
    assert postgres_server.slot("smoke_slot") is None


def test_wrong_password_is_refused(postgres_server):
    proc = subprocess.run([str(postgres_server.bin / "psql"), "-h", "127.0.0.1", "-p", str(postgres_server.port),
                           "-U", USER, "-d", DATABASE, "-X", "-c", "SELECT 1"],
                          capture_output=True, text=True, timeout=30,
                          env={"PGPASSWORD": PASSWORD + "x", "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0
    assert "password authentication failed" in proc.stderr


def test_stop_and_start_keep_the_data():
    from server import PostgresServer
    server = PostgresServer()
    try:
        server.start()
        server.bootstrap()
        server.sql("CREATE TABLE kept (id int primary key); INSERT INTO kept VALUES (7)")
        server.stop()
        server.start()
        assert server.sql("SELECT id FROM kept").strip() == "7"
    finally:
        server.close()


def test_tls_server_presents_a_certificate_of_its_ca(postgres_tls_server):
    pg = postgres_tls_server
    env = {"PGPASSWORD": PASSWORD, "PATH": "/usr/bin:/bin", "PGSSLMODE": "verify-full",
           "PGSSLROOTCERT": str(pg.certs["ca.crt"])}
    ok = subprocess.run([str(pg.bin / "psql"), "-h", "127.0.0.1", "-p", str(pg.port), "-U", USER, "-d", DATABASE,
                         "-X", "-A", "-t", "-c", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"],
                        capture_output=True, text=True, timeout=30, env=env)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "t"
    env["PGSSLROOTCERT"] = str(pg.certs["other-ca.crt"])
    refused = subprocess.run([str(pg.bin / "psql"), "-h", "127.0.0.1", "-p", str(pg.port), "-U", USER, "-d",
                              DATABASE, "-X", "-c", "SELECT 1"], capture_output=True, text=True, timeout=30, env=env)
    assert refused.returncode != 0
    assert "certificate verify failed" in refused.stderr
