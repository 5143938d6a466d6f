# TLS to the server: debezium.database.sslmode verify-full with the CA that signed the server's
# certificate reads the table; with another CA the connection is refused, saying why. A role the
# server lets in by client certificate alone (pg_hba `cert`) reads with debezium.database.sslcert
# and sslkey, and without them is refused, saying why.
import contextlib

from conftest import Cdcd, pipeline_yaml
from server import CERT_USER, DATABASE


def tls_yaml(pg, slot, table, ca):
    return pipeline_yaml(pg, slot, f"cdcd.public.{table}",
                         f"  debezium.database.sslmode: verify-full\n  debezium.database.sslrootcert: {ca}\n"
                         "  connect.max-retries: 0\n")


def cert_yaml(pg, slot, table, with_certificate=True):
    """CERT_USER's pipeline: no password (the server asks for none), the client certificate."""
    client = (f"  debezium.database.sslcert: {pg.certs['client.crt']}\n"
              f"  debezium.database.sslkey: {pg.certs['client.key']}\n") if with_certificate else ""
    return (f"source:\n  type: postgres\n  hostname: 127.0.0.1\n  port: {pg.port}\n"
            f"  username: {CERT_USER}\n  password: \"\"\n  tables: {DATABASE}.public.{table}\n"
            f"  slot.name: {slot}\n  debezium.publication.autocreate.mode: filtered\n"
            f"  debezium.publication.name: pub_{slot}\n"
            f"  debezium.database.sslmode: verify-full\n  debezium.database.sslrootcert: {pg.certs['ca.crt']}\n"
            f"{client}  connect.max-retries: 0\n"
            f"sink:\n  type: values\npipeline:\n  name: pg-{slot}\n"
            f"  execution.checkpointing.interval: 500ms\n")


def grant_cert_user(pg, table):
    pg.sql(f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{CERT_USER}') THEN "
           f"CREATE ROLE {CERT_USER} LOGIN REPLICATION; END IF; END $$; "
           f"GRANT CREATE ON DATABASE {DATABASE} TO {CERT_USER}; "
           f"GRANT SELECT ON public.{table} TO {CERT_USER}; ALTER TABLE public.{table} OWNER TO {CERT_USER}",
           superuser=True)


@contextlib.contextmanager
def streaming(pg, cdcd, slot):
    """`cdcd` running on `slot`: killed if it still runs, and the slot dropped, whatever happens."""
    try:
        yield cdcd
    finally:
        if cdcd.proc.poll() is None:
            cdcd.proc.kill()
        pg.drop_slot(slot)


def tls_replications(pg, user="%"):
    """How many replication connections of `user` (a LIKE pattern) run over TLS."""
    return pg.sql("SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_replication r ON r.pid = s.pid "
                  f"WHERE s.ssl AND r.usename LIKE '{user}'", superuser=True).strip()


def test_verify_full_with_the_servers_ca(postgres_tls_server, tmp_path):
    pg = postgres_tls_server
    pg.sql("CREATE TABLE IF NOT EXISTS public.tls_orders (id int PRIMARY KEY); INSERT INTO public.tls_orders VALUES (1) "
           "ON CONFLICT DO NOTHING")
    with streaming(pg, Cdcd(tmp_path, tls_yaml(pg, "slot_tls", "tls_orders", pg.certs["ca.crt"])).start(),
                   "slot_tls") as cdcd:
        lines = cdcd.wait_lines(2)
        assert lines[1] == "DataChangeEvent{tableId=public.tls_orders, before=[], after=[1], op=INSERT, meta=()}"
        assert tls_replications(pg) == "1"
        assert cdcd.stop() == 0


def test_verify_full_refuses_a_server_another_ca_signed(postgres_tls_server, tmp_path):
    pg = postgres_tls_server
    pg.sql("CREATE TABLE IF NOT EXISTS public.tls_orders (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, tls_yaml(pg, "slot_tls_other", "tls_orders", pg.certs["other-ca.crt"])).start()
    assert cdcd.wait_exit() != 0
    assert "certificate verify failed" in cdcd.stderr()
    assert pg.slot("slot_tls_other") is None


def test_a_client_certificate_logs_in_without_a_password(postgres_tls_server, tmp_path):
    pg = postgres_tls_server
    pg.sql("CREATE TABLE IF NOT EXISTS public.cert_orders (id int PRIMARY KEY); "
           "INSERT INTO public.cert_orders VALUES (1) ON CONFLICT DO NOTHING", superuser=True)
    grant_cert_user(pg, "cert_orders")
    with streaming(pg, Cdcd(tmp_path, cert_yaml(pg, "slot_cert", "cert_orders")).start(), "slot_cert") as cdcd:
        lines = cdcd.wait_lines(2)
        assert lines[1] == "DataChangeEvent{tableId=public.cert_orders, before=[], after=[1], op=INSERT, meta=()}"
        pg.sql("INSERT INTO public.cert_orders VALUES (2)", superuser=True)
        lines = cdcd.wait_lines(3)
        assert lines[2] == "DataChangeEvent{tableId=public.cert_orders, before=[], after=[2], op=INSERT, meta=()}"
        assert tls_replications(pg, CERT_USER) == "1"  # the replication connection is CERT_USER's
        assert cdcd.stop() == 0


def test_without_the_client_certificate_the_login_is_refused_saying_why(postgres_tls_server, tmp_path):
    pg = postgres_tls_server
    pg.sql("CREATE TABLE IF NOT EXISTS public.cert_orders (id int PRIMARY KEY)", superuser=True)
    grant_cert_user(pg, "cert_orders")
    cdcd = Cdcd(tmp_path, cert_yaml(pg, "slot_cert_none", "cert_orders", with_certificate=False)).start()
    assert cdcd.wait_exit() != 0
    assert "connection requires a valid client certificate" in cdcd.stderr(), cdcd.stderr()[-3000:]
    assert pg.slot("slot_cert_none") is None
