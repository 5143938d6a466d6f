"""FETCH_CONTENT(url) in a transform projection downloads the object (oss:// and pre-signed)."""
import base64

from oss_helpers import fields, pipeline, run_to_end


def opts(emu, **extra):
    o = {"scan.startup.mode": "SNAPSHOT", "oss-endpoint": emu.endpoint, "oss-region": "cn-hangzhou", "oss-bucket": "b1"}
    o.update(extra)
    return o


TRANSFORM = "transform:\n  - source-table: b1\n    projection: key, FETCH_CONTENT(url) AS content\n"


def printed_bytes(value: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except Exception:
        return value.encode()


def test_fetch_content_yields_the_object_bytes(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": "img/a.txt", "content": "hello world"}, {"key": "img/b.txt", "content": "second"}])
    for presign in ("false", "true"):
        rc, d = run_to_end(tmp_path, pipeline(emu, name=f"f{presign}", transform=TRANSFORM,
                                              **opts(emu, **{"oss-objects.pre-sign.enabled": presign})),
                           tag=f"f{presign}")
        assert rc == 0, d.stderr()
        rows = {fields(e[3])[0]: fields(e[3])[1] for e in d.events()}
        assert set(rows) == {"img/a.txt", "img/b.txt"}
        assert printed_bytes(rows["img/a.txt"]) == b"hello world"
        assert printed_bytes(rows["img/b.txt"]) == b"second"
    assert emu.counters()["GetObject"] >= 4


def test_fetch_content_size_limit_fails_or_yields_null(emu, tmp_path):
    emu.create_bucket("b1")
    emu.put_objects("b1", [{"key": "big", "size": 5000}])
    rc, d = run_to_end(tmp_path, pipeline(emu, transform=TRANSFORM, **opts(emu, **{"fetch-content.max-size": "1kb"})))
    assert rc != 0
    assert "fetch-content.max-size" in d.stderr()
    rc, d = run_to_end(tmp_path, pipeline(emu, name="n", transform=TRANSFORM,
                                          **opts(emu, **{"fetch-content.max-size": "1kb",
                                                         "fetch-content.ignore-errors": "true"})), tag="n")
    assert rc == 0, d.stderr()
    assert fields(d.events()[0][3])[1] == "null"
    assert "FETCH_CONTENT failed, yielding NULL" in d.stderr()
