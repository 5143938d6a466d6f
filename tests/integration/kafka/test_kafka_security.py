# Kafka security through `properties.*`: SASL_PLAINTEXT, SASL_SSL (PLAIN, SCRAM-SHA-256/512) and
# SSL (mutual TLS, PEM or PKCS#12 key store) on a real broker; wrong credentials and untrusted
# certificates fail fast and clearly; secrets never reach the output.
import json
import subprocess
import time

import pytest
from confluent_kafka.admin import ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion

from broker import KafkaBroker
from conftest import CDCD, unique

PASSWORD = "s3cret-Pw-7f41"  # grep'd for in every output
STORE_PASSWORD = "store-Pw-93ad"
SCRAM = {"SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256, "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512}
# A wrong password or an untrusted certificate must stop cdcd well before this.
FAIL_FAST_SECONDS = 60


def _certs(d):
    """A throwaway CA and, signed by it, a broker and a client certificate (PEM; the client's
    also as a PKCS#12 key store)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def ssl(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    ssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=cdcd-test-ca")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")  # not "localhost": see the host name test
    for n in ("server", "client"):
        ssl("req", *ec, "-keyout", f"{n}.key", "-out", f"{n}.csr", "-subj", f"/CN={n}")
        ssl("x509", "-req", "-in", f"{n}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", f"{n}.crt", "-days", "2", "-extfile", "san.ext")
    for n in ("server", "client"):  # a Java PEM key store: the key and the chain in one file
        (d / f"{n}.pem").write_text((d / f"{n}.key").read_text() + (d / f"{n}.crt").read_text())
    ssl("pkcs12", "-export", "-in", "client.crt", "-inkey", "client.key", "-out", "client.p12",
        "-passout", f"pass:{STORE_PASSWORD}")


@pytest.fixture(scope="module")
def secure_broker(tmp_path_factory):
    """One broker for the module: PLAINTEXT (for the test's own clients) plus SASL_PLAINTEXT and
    SASL_SSL (PLAIN and SCRAM, user alice) and SSL (client certificate required)."""
    d = tmp_path_factory.mktemp("tls")
    _certs(d)
    plain = f'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="{PASSWORD}";'
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    props = {
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": d / "server.pem",
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": d / "ca.pem",
        "listener.name.ssl.ssl.client.auth": "required",
    }
    for listener in ("sasl_plaintext", "sasl_ssl"):
        props[f"listener.name.{listener}.plain.sasl.jaas.config"] = plain
        for m in SCRAM:
            props[f"listener.name.{listener}.{m.lower()}.sasl.jaas.config"] = scram
    b = KafkaBroker(extra_listeners=["SASL_PLAINTEXT", "SASL_SSL", "SSL"], extra_props=props)
    b.start()
    try:
        for m in SCRAM.values():  # one request per mechanism: a user may appear once in a request
            cred = UserScramCredentialUpsertion("alice", ScramCredentialInfo(m, 4096), PASSWORD.encode())
            for f in b.admin().alter_user_scram_credentials([cred]).values():
                f.result(30)
        b.certs = d
        yield b
    finally:
        b.close()


def _client(b, listener, mechanism=None, jaas=False, password=PASSWORD, tls="pem"):
    """The `properties.*` lines (indented YAML) of a client of `listener`."""
    d = b.certs
    p = {"bootstrap.servers": b.listener(listener), "security.protocol": listener}
    if mechanism:
        p["sasl.mechanism"] = mechanism
        if jaas:
            module = "plain.PlainLoginModule" if mechanism == "PLAIN" else "scram.ScramLoginModule"
            p["sasl.jaas.config"] = (f"'org.apache.kafka.common.security.{module} required "
                                     f'username="alice" password="{password}";\'')
        else:
            p["sasl.username"] = "alice"
            p["sasl.password"] = password
    if "SSL" in listener and tls == "java-pem":  # Kafka's Java settings for PEM stores
        p["ssl.truststore.type"] = "PEM"
        p["ssl.truststore.location"] = d / "ca.pem"
    elif "SSL" in listener and tls is not None:
        p["ssl.ca.location"] = d / "ca.pem"
    if listener == "SSL" and tls == "pem":
        p["ssl.certificate.location"] = d / "client.crt"
        p["ssl.key.location"] = d / "client.key"
    elif listener == "SSL" and tls == "java-pem":
        p["ssl.keystore.type"] = "PEM"
        p["ssl.keystore.location"] = d / "client.pem"
    elif listener == "SSL" and tls == "pkcs12":  # the Java key store settings, as Flink users write them
        p["ssl.keystore.type"] = "PKCS12"
        p["ssl.keystore.location"] = d / "client.p12"
        p["ssl.keystore.password"] = STORE_PASSWORD
    return "".join(f"  properties.{k}: {v}\n" for k, v in p.items())


def _relay(b, in_topic, out_topic, source, sink):
    return f"""
source:
  type: kafka
{source}  topic: {in_topic}
  value.format: debezium-json
  table-id.fixed.name: app.t
  scan.startup.mode: earliest-offset
  scan.bounded.mode: latest-offset
sink:
  type: kafka
{sink}  topic: {out_topic}
  value.format: debezium-json
pipeline:
  name: {unique("sec")}
  execution.checkpointing.interval: 1s
"""


def _plaintext(b):
    return f"  properties.bootstrap.servers: {b.bootstrap}\n"


def _run(cdcd, yaml, timeout=FAIL_FAST_SECONDS):
    c = cdcd(yaml)
    t0 = time.monotonic()
    p = c.run(check=False, timeout=timeout)
    return p, time.monotonic() - t0


def _topics(b):
    src, dst = unique("sec_in"), unique("sec_out")
    b.create_topic(src)
    b.create_topic(dst)
    msgs = ['{"before":null,"after":{"id":%d},"op":"c"}' % i for i in range(5)]
    b.produce(src, msgs)
    return src, dst, msgs


@pytest.mark.parametrize("listener,mechanism,jaas,tls", [
    ("SASL_PLAINTEXT", "PLAIN", False, None),
    ("SASL_PLAINTEXT", "SCRAM-SHA-256", True, None),
    ("SASL_SSL", "SCRAM-SHA-512", False, "pem"),
    ("SASL_SSL", "PLAIN", True, "pem"),
    ("SSL", None, False, "pem"),
    ("SSL", None, False, "pkcs12"),
    ("SSL", None, False, "java-pem"),
])
def test_cdcd_consumes_and_produces_through_a_secured_listener(secure_broker, cdcd, listener, mechanism, jaas,
                                                               tls):
    b = secure_broker
    src, dst, msgs = _topics(b)
    client = _client(b, listener, mechanism, jaas=jaas, tls=tls)
    p, took = _run(cdcd, _relay(b, src, dst, client, client))
    out = p.stdout + p.stderr
    assert PASSWORD not in out and STORE_PASSWORD not in out
    assert p.returncode == 0, out[-3000:]
    got = [json.loads(r.value)["after"] for r in b.consume(dst, len(msgs), timeout=10)]
    assert got == [json.loads(m)["after"] for m in msgs]


@pytest.mark.parametrize("role", ["source", "sink", "exactly-once sink"])
@pytest.mark.parametrize("listener,mechanism,jaas", [
    ("SASL_PLAINTEXT", "PLAIN", True),
    ("SASL_SSL", "PLAIN", False),
    ("SASL_SSL", "SCRAM-SHA-512", False),
])
def test_a_wrong_password_fails_fast_naming_the_broker_and_the_cause(secure_broker, cdcd, role, listener,
                                                                     mechanism, jaas):
    b = secure_broker
    src, dst, _ = _topics(b)
    wrong = "wrong-" + PASSWORD
    bad = _client(b, listener, mechanism, jaas=jaas, password=wrong)
    if role == "exactly-once sink":
        bad += "  sink.delivery-guarantee: exactly-once\n  sink.transactional-id-prefix: " + unique("tx") + "\n"
    yaml = _relay(b, src, dst, bad, _plaintext(b)) if role == "source" else _relay(b, src, dst, _plaintext(b), bad)
    p, took = _run(cdcd, yaml)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out[-3000:]
    assert took < FAIL_FAST_SECONDS
    assert f"kafka {role.split()[-1]}" in out and b.listener(listener) in out, out[-3000:]
    assert "Authentication failed" in out and "properties.sasl.password" in out, out[-3000:]
    assert PASSWORD not in out and wrong not in out


@pytest.mark.parametrize("role", ["source", "sink"])
def test_an_untrusted_broker_certificate_is_refused(secure_broker, cdcd, role):
    # TLS is verified by default: without ssl.ca.location the throwaway CA is unknown.
    b = secure_broker
    src, dst, _ = _topics(b)
    bad = _client(b, "SASL_SSL", "PLAIN", tls=None)
    yaml = _relay(b, src, dst, bad, _plaintext(b)) if role == "source" else _relay(b, src, dst, _plaintext(b), bad)
    p, took = _run(cdcd, yaml)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out[-3000:]
    assert took < FAIL_FAST_SECONDS
    assert b.listener("SASL_SSL") in out and "certificate verify failed" in out, out[-3000:]
    assert "properties.ssl.ca.location" in out, out[-3000:]
    assert PASSWORD not in out


def test_validate_shows_no_secret_and_refuses_a_jks_trust_store_saying_what_to_write(secure_broker, tmp_path):
    b = secure_broker
    client = _client(b, "SASL_SSL", "PLAIN", jaas=True)
    ssl = _client(b, "SSL", tls="pkcs12")
    good = tmp_path / "good.yaml"
    good.write_text(_relay(b, "in", "out", client, ssl))
    p = subprocess.run([CDCD, "validate", str(good)], capture_output=True, text=True, timeout=30)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert PASSWORD not in out and STORE_PASSWORD not in out
    bad = tmp_path / "bad.yaml"
    jks = (client + "  properties.ssl.truststore.location: /etc/kafka/truststore.jks\n"
           f"  properties.ssl.truststore.password: {STORE_PASSWORD}\n")
    bad.write_text(_relay(b, "in", "out", jks, _plaintext(b)))
    p = subprocess.run([CDCD, "validate", str(bad)], capture_output=True, text=True, timeout=30)
    out = p.stdout + p.stderr
    assert p.returncode != 0
    assert "properties.ssl.truststore.location: librdkafka cannot read JKS trust stores" in out, out
    assert "properties.ssl.ca.location: ca.pem" in out, out
    assert PASSWORD not in out and STORE_PASSWORD not in out
    no_user = tmp_path / "no_user.yaml"  # an error about the setting that holds the password
    no_user.write_text(_relay(b, "in", "out", client.replace('username="alice" ', ""), _plaintext(b)))
    p = subprocess.run([CDCD, "validate", str(no_user)], capture_output=True, text=True, timeout=30)
    out = p.stdout + p.stderr
    assert p.returncode != 0 and "properties.sasl.jaas.config: needs both" in out, out
    assert PASSWORD not in out


def test_the_broker_host_name_is_checked_against_its_certificate(secure_broker, cdcd):
    # The certificate names 127.0.0.1 only: reached as "localhost", the broker is refused although
    # its CA is trusted (ssl.endpoint.identification.algorithm is https by default) ...
    b = secure_broker
    src, dst, msgs = _topics(b)
    by_name = _client(b, "SASL_SSL", "PLAIN").replace(b.listener("SASL_SSL"),
                                                      b.listener("SASL_SSL").replace("127.0.0.1", "localhost"))
    p, took = _run(cdcd, _relay(b, src, dst, by_name, _plaintext(b)))
    out = p.stdout + p.stderr
    assert p.returncode != 0 and took < FAIL_FAST_SECONDS, out[-3000:]
    assert "cannot verify the broker's TLS certificate" in out and "localhost:" in out, out[-3000:]
    # ... unless the check is turned off the Java way, with an empty algorithm.
    off = by_name + "  properties.ssl.endpoint.identification.algorithm: ''\n"
    p, _ = _run(cdcd, _relay(b, src, dst, off, _plaintext(b)))
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    assert len(b.consume(dst, len(msgs), timeout=10)) == len(msgs)
