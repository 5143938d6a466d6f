# TLS to the server: debezium.database.sslmode verify-full with the CA that signed the server's
# certificate reads the table; with another CA the connection is refused, saying why.
from conftest import Cdcd, pipeline_yaml


def tls_yaml(pg, slot, table, ca):
    return pipeline_yaml(pg, slot, f"cdcd.public.{table}",
                         f"  debezium.database.sslmode: verify-full\n  debezium.database.sslrootcert: {ca}\n"
                         "  connect.max-retries: 0\n")


def test_verify_full_with_the_servers_ca(postgres_tls_server, tmp_path):
    pg = postgres_tls_server
    pg.sql("CREATE TABLE IF NOT EXISTS public.tls_orders (id int PRIMARY KEY); INSERT INTO public.tls_orders VALUES (1) "
           "ON CONFLICT DO NOTHING")
    cdcd = Cdcd(tmp_path, tls_yaml(pg, "slot_tls", "tls_orders", pg.certs["ca.crt"])).start()
    try:
        lines = cdcd.wait_lines(2)
        assert lines[1] == "DataChangeEvent{tableId=public.tls_orders, before=[], after=[1], op=INSERT, meta=()}"
        assert pg.sql("SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_replication r ON r.pid = s.pid "
                      "WHERE s.ssl", superuser=True).strip() == "1"
        assert cdcd.stop() == 0
    finally:
        if cdcd.proc.poll() is None:
            cdcd.proc.kill()
        pg.drop_slot("slot_tls")


def test_verify_full_refuses_a_server_another_ca_signed(postgres_tls_server, tmp_path):
    pg = postgres_tls_server
    pg.sql("CREATE TABLE IF NOT EXISTS public.tls_orders (id int PRIMARY KEY)")
    cdcd = Cdcd(tmp_path, tls_yaml(pg, "slot_tls_other", "tls_orders", pg.certs["other-ca.crt"])).start()
    assert cdcd.wait_exit() != 0
    assert "certificate verify failed" in cdcd.stderr()
    assert pg.slot("slot_tls_other") is None
