"""Drive the OSS emulator with the official `oss2` SDK (V1 and V4 auth), pre-signed URLs with
`requests`, and the OSS -> MNS notification path with the official `aliyun-mns-sdk`.

oss2 uses path-style addressing for an IP endpoint (`http://127.0.0.1:PORT/bucket/key`);
virtual-host style is checked with a hand-signed request carrying `Host: bucket.127.0.0.1`.
"""
import base64
import importlib.util
import json
import pathlib
import time

import oss2
import pytest
import requests
from mns.account import Account

_spec = importlib.util.spec_from_file_location(
    "oss_emulator_client", pathlib.Path(__file__).with_name("client.py"))
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)

BUCKET = "cdc-bucket"


@pytest.fixture(scope="module")
def emu():
    with client.OssEmulator(with_mns=True) as e:
        yield e


@pytest.fixture()
def fresh(emu):
    emu.reset()
    emu.mns.reset()
    emu.create_bucket(BUCKET)
    return emu


def v1_bucket(emu, name=BUCKET, sk=None):
    return oss2.Bucket(oss2.Auth(emu.access_key_id, sk or emu.access_key_secret), emu.endpoint, name)


def v4_bucket(emu, name=BUCKET, region="cn-hangzhou", sk=None):
    auth = oss2.AuthV4(emu.access_key_id, sk or emu.access_key_secret)
    return oss2.Bucket(auth, emu.endpoint, name, region=region)


@pytest.fixture(params=["v1", "v4"])
def bucket(request, fresh):
    return v1_bucket(fresh) if request.param == "v1" else v4_bucket(fresh)


def test_put_get_range_head_delete(bucket, fresh):
    put = bucket.put_object("dir/hello.txt", b"hello, object storage",
                            headers={"x-oss-meta-author": "cdcd"})
    assert put.status == 200 and put.etag == "%032X" % int.from_bytes(
        __import__("hashlib").md5(b"hello, object storage").digest(), "big")
    assert bucket.get_object("dir/hello.txt").read() == b"hello, object storage"
    ranged = bucket.get_object("dir/hello.txt", byte_range=(7, 12))
    assert ranged.status == 206 and ranged.read() == b"object"
    assert bucket.get_object("dir/hello.txt", byte_range=(None, 7)).read() == b"storage"
    head = bucket.head_object("dir/hello.txt")
    assert head.content_length == 21 and head.etag == put.etag
    assert head.headers["x-oss-meta-author"] == "cdcd"
    assert head.headers["x-oss-request-id"] and head.object_type == "Normal"
    assert abs(head.last_modified - time.time()) < 5
    bucket.delete_object("dir/hello.txt")
    with pytest.raises(oss2.exceptions.NoSuchKey):
        bucket.get_object("dir/hello.txt")
    with pytest.raises(oss2.exceptions.NotFound) as ei:
        bucket.head_object("dir/hello.txt")  # HEAD: error XML travels base64 in x-oss-err
    assert ei.value.code == "NoSuchKey"
    with pytest.raises(oss2.exceptions.NoSuchBucket):
        (v1_bucket(fresh, "no-such-bucket")).get_object("x")


def test_batch_delete(bucket, fresh):
    for i in range(5):
        bucket.put_object(f"del/{i}", b"x")
    result = bucket.batch_delete_objects(["del/0", "del/1", "del/2"])
    assert sorted(result.deleted_keys) == ["del/0", "del/1", "del/2"]
    assert [o["key"] for o in fresh.objects(BUCKET)["objects"]] == ["del/3", "del/4"]


def test_list_v1_and_v2_pagination_with_delimiter(bucket, fresh):
    fresh.seed(BUCKET, 250, prefixes=["logs/2025/", "logs/2026/", "img/"], key_format="f{i:05d}.bin",
               size_min=10, size_max=20)
    fresh.put_objects(BUCKET, [{"key": "top.txt", "content": "t"}, {"key": "sp ace+plus%.txt", "content": "s"}])
    all_v2 = [o.key for o in oss2.ObjectIteratorV2(bucket, max_keys=40)]
    all_v1 = [o.key for o in oss2.ObjectIterator(bucket, max_keys=40)]
    assert all_v2 == all_v1 == sorted(all_v2) and len(all_v2) == 252
    assert "sp ace+plus%.txt" in all_v2  # encoding-type=url round trip
    counters = fresh.counters()
    assert counters["ListObjectsV2"] == 7 and counters["ListObjects"] == 7
    top = list(oss2.ObjectIteratorV2(bucket, delimiter="/", max_keys=1))
    assert [o.key for o in top] == ["img/", "logs/", "sp ace+plus%.txt", "top.txt"]
    assert [o.is_prefix() for o in top] == [True, True, False, False]
    sub = [o.key for o in oss2.ObjectIterator(bucket, prefix="logs/", delimiter="/")]
    assert sub == ["logs/2025/", "logs/2026/"]
    page = bucket.list_objects_v2(prefix="logs/2026/", max_keys=5, start_after="logs/2026/f00010.bin",
                                  fetch_owner=True)
    assert [o.key for o in page.object_list] == [f"logs/2026/f{i:05d}.bin" for i in (13, 16, 19, 22, 25)]
    assert page.is_truncated and page.next_continuation_token
    assert page.object_list[0].owner.id == "1234567890123456"
    assert page.object_list[0].size in range(10, 21) and page.object_list[0].etag
    nxt = bucket.list_objects_v2(prefix="logs/2026/", max_keys=2, continuation_token=page.next_continuation_token)
    assert [o.key for o in nxt.object_list] == ["logs/2026/f00028.bin", "logs/2026/f00031.bin"]
    v1 = bucket.list_objects(prefix="img/", marker="img/f00240.bin", max_keys=100)
    assert [o.key for o in v1.object_list] == ["img/f00242.bin", "img/f00245.bin", "img/f00248.bin"]
    assert not v1.is_truncated


def test_list_v2_raw_xml_shape(fresh):
    fresh.put_objects(BUCKET, [{"key": "a/1", "content": "x", "mtime": 1700000000}])
    fresh.set_credentials("AKTEST", "SKTEST", verify_signatures=False)
    r = requests.get(f"{fresh.url}/{BUCKET}/?list-type=2&max-keys=1000", timeout=5)
    assert r.status_code == 200 and r.headers["x-oss-request-id"]
    assert ("<Contents><Key>a/1</Key><LastModified>2023-11-14T22:13:20.000Z</LastModified>"
            '<ETag>"9DD4E461268C8034F5C8564E155C67A6"</ETag><Type>Normal</Type><Size>1</Size>'
            "<StorageClass>Standard</StorageClass></Contents><KeyCount>1</KeyCount>") in r.text
    r = requests.get(f"{fresh.url}/{BUCKET}/?list-type=2&max-keys=1001", timeout=5)
    assert r.status_code == 400 and "<Code>InvalidArgument</Code>" in r.text


def test_virtual_host_style(fresh):
    v1_bucket(fresh).put_object("vh/key.txt", b"virtual")
    req = oss2.http.Request("GET", f"{fresh.url}/vh/key.txt", headers={})
    oss2.Auth(fresh.access_key_id, fresh.access_key_secret)._sign_request(req, BUCKET, "vh/key.txt")
    port = fresh.url.rsplit(":", 1)[1]
    r = requests.get(f"{fresh.url}/vh/key.txt", timeout=5,
                     headers={**dict(req.headers), "Host": f"{BUCKET}.127.0.0.1:{port}"})
    assert r.status_code == 200 and r.content == b"virtual"


def test_presigned_urls_v1_and_v4(fresh):
    for bkt in (v1_bucket(fresh), v4_bucket(fresh)):
        bkt.put_object("signed/doc.pdf", b"%PDF-1.4 test")
        url = bkt.sign_url("GET", "signed/doc.pdf", 60)
        assert requests.get(url, timeout=5).content == b"%PDF-1.4 test"
        tampered = url.replace("doc.pdf", "doc.pdX")
        assert tampered != url
        r = requests.get(tampered, timeout=5)
        assert r.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in r.text
        other = url[:-3] + ("abc" if not url.endswith("abc") else "abd")
        assert requests.get(other, timeout=5).status_code == 403
    # Expired: V1 Expires is absolute, V4 is x-oss-date + x-oss-expires.
    expired_v1 = v1_bucket(fresh).sign_url("GET", "signed/doc.pdf", -10)
    r = requests.get(expired_v1, timeout=5)
    assert r.status_code == 403 and "<Code>AccessDenied</Code>" in r.text and "expired" in r.text
    short_v4 = v4_bucket(fresh).sign_url("GET", "signed/doc.pdf", 1)
    time.sleep(2.1)
    r = requests.get(short_v4, timeout=5)
    assert r.status_code == 403 and "<Code>AccessDenied</Code>" in r.text


def test_wrong_credentials_rejected(fresh):
    v1_bucket(fresh).put_object("k", b"v")
    with pytest.raises(oss2.exceptions.SignatureDoesNotMatch) as ei:
        v1_bucket(fresh, sk="bad-secret").get_object("k")
    assert ei.value.status == 403
    with pytest.raises(oss2.exceptions.SignatureDoesNotMatch):
        v4_bucket(fresh, sk="bad-secret").get_object("k")
    with pytest.raises(oss2.exceptions.ServerError) as ei:
        v4_bucket(fresh, region="cn-beijing").get_object("k")
    assert ei.value.status == 400 and ei.value.code == "InvalidArgument"
    with pytest.raises(oss2.exceptions.AccessDenied):
        oss2.Bucket(oss2.AnonymousAuth(), fresh.endpoint, BUCKET).get_object("k")
    anon = requests.get(f"{fresh.url}/{BUCKET}/k", timeout=5)
    assert anon.status_code == 403 and "<Code>AccessDenied</Code>" in anon.text
    fresh.set_credentials("STSAK", "STSSK", security_token="tok")
    sts = oss2.Bucket(oss2.StsAuth("STSAK", "STSSK", "tok"), fresh.endpoint, BUCKET)
    assert sts.get_object("k").read() == b"v"
    with pytest.raises(oss2.exceptions.ServerError) as ei:
        oss2.Bucket(oss2.StsAuth("STSAK", "STSSK", "wrong"), fresh.endpoint, BUCKET).get_object("k")
    assert ei.value.status == 403


def test_a_skewed_clock_is_refused_as_oss_refuses_it(fresh):
    v1_bucket(fresh).put_object("k", b"v")
    fresh.set_clock_offset(16 * 60)  # past OSS's 15 minutes
    try:
        for bkt in (v1_bucket(fresh), v4_bucket(fresh)):
            with pytest.raises(oss2.exceptions.ServerError) as ei:
                bkt.get_object("k")
            assert ei.value.status == 403 and ei.value.code == "RequestTimeTooSkewed"
        fresh.set_clock_offset(14 * 60)  # within them
        assert v1_bucket(fresh).get_object("k").read() == b"v"
    finally:
        fresh.set_clock_offset(0)


def test_faults(fresh):
    bkt = v1_bucket(fresh)
    bkt.put_object("f", b"1")
    fresh.inject_fault("GetObject", "throttle", count=1)
    with pytest.raises(oss2.exceptions.ServerError) as ei:
        oss2.Bucket(bkt.auth, fresh.endpoint, BUCKET, connect_timeout=5,
                    session=oss2.Session()).get_object("f")
    assert ei.value.status == 503 and ei.value.code == "TotalQpsLimitExceeded"
    fresh.inject_fault("HeadObject", "error", count=1, status=500, code="InternalError")
    with pytest.raises(oss2.exceptions.ServerError) as ei:
        bkt.head_object("f")
    assert ei.value.status == 500
    fresh.inject_fault("ListObjectsV2", "reset", count=1)
    with pytest.raises(requests.exceptions.ConnectionError):
        fresh.set_credentials("AKTEST", "SKTEST", verify_signatures=False)
        requests.get(f"{fresh.url}/{BUCKET}/?list-type=2", timeout=5)
    fresh.inject_fault("GetObject", "delay", count=1, delay_ms=400)
    t0 = time.monotonic()
    assert bkt.get_object("f").read() == b"1"
    assert time.monotonic() - t0 >= 0.35


def test_notification_put_to_mns_queue(fresh):
    fresh.mns.create_queue("oss-events")
    rule = fresh.add_notification(BUCKET, "oss-events", events=["ObjectCreated:*", "ObjectRemoved:*"],
                                  prefix="images/")
    bkt = v4_bucket(fresh)
    put = bkt.put_object("images/a.png", b"\x89PNG....")
    assert put.headers["x-oss-event-status"] == base64.b64encode(b'{"Result":"Ok"}').decode()
    bkt.put_object("other/skip.txt", b"not matched by prefix")
    bkt.delete_object("images/a.png")
    queue = Account(fresh.mns.endpoint, fresh.mns.access_key_id, fresh.mns.access_key_secret).get_queue("oss-events")
    msgs = queue.batch_receive_message(16, wait_seconds=1)  # SDK base64-decodes the body
    events = [json.loads(m.message_body)["events"][0] for m in msgs]
    assert [e["eventName"] for e in events] == ["ObjectCreated:PutObject", "ObjectRemoved:DeleteObject"]
    created = events[0]
    assert created["eventSource"] == "acs:oss" and created["eventVersion"] == "1.0"
    assert created["region"] == "cn-hangzhou"
    assert created["oss"]["bucket"] == {"arn": f"acs:oss:cn-hangzhou:1234567890123456:{BUCKET}",
                                        "name": BUCKET, "ownerIdentity": "1234567890123456",
                                        "virtualBucket": ""}
    assert created["oss"]["object"] == {"deltaSize": 8, "eTag": put.etag, "key": "images/a.png", "size": 8}
    assert created["oss"]["ruleId"] == rule["id"] and created["oss"]["ossSchemaVersion"] == "1.0"
    assert created["responseElements"]["requestId"] == put.request_id
    assert time.strptime(created["eventTime"], "%Y-%m-%dT%H:%M:%S.000Z")
    assert events[1]["oss"]["object"]["deltaSize"] == -8
    queue.batch_delete_message([m.receipt_handle for m in msgs])


def test_notification_delivery_forms(fresh):
    fresh.mns.create_queue("q-xml")
    fresh.mns.create_queue("q-json")
    fresh.add_notification(BUCKET, "q-xml", events=["ObjectCreated:CopyObject"], format="xml")
    fresh.add_notification(BUCKET, "q-json", events=["ObjectModified:*"], format="json")
    bkt = v1_bucket(fresh)
    bkt.put_object("src", b"abc")
    bkt.copy_object(BUCKET, "src", "dst")
    fresh.emit_event(BUCKET, "dst", "ObjectModified:UpdateObjectMeta")
    account = Account(fresh.mns.endpoint, fresh.mns.access_key_id, fresh.mns.access_key_secret)
    xml_q = account.get_queue("q-xml")
    xml_q.set_encoding(False)
    body = xml_q.receive_message(wait_seconds=1).message_body
    assert body.startswith('<?xml') and "<Notification" in body
    inner = body.split("<Message>")[1].split("</Message>")[0]
    assert json.loads(base64.b64decode(inner))["events"][0]["eventName"] == "ObjectCreated:CopyObject"
    json_q = account.get_queue("q-json")
    json_q.set_encoding(False)
    envelope = json.loads(json_q.receive_message(wait_seconds=1).message_body)
    event = json.loads(base64.b64decode(envelope["Message"]))["events"][0]
    assert event["eventName"] == "ObjectModified:UpdateObjectMeta" and event["oss"]["object"]["key"] == "dst"


def test_bulk_seed_one_million_and_list_pages_of_it(fresh):
    # How fast seeding and listing are is measured by bench/oss_polling, not asserted here.
    res = fresh.seed(BUCKET, 1_000_000, prefixes=["p0/", "p1/", "p2/", "p3/"], key_format="{i:07d}.dat",
                     size_min=100, size_max=4000, mtime_start=1750000000, mtime_step=0.001)
    assert res["objects"] == 1_000_000
    bkt = v1_bucket(fresh)
    token, keys = "", []
    for _ in range(5):
        page = bkt.list_objects_v2(prefix="p2/", max_keys=1000, continuation_token=token)
        keys += [o.key for o in page.object_list]
        token = page.next_continuation_token
    assert len(keys) == 5000 and keys == sorted(keys) and keys[0] == "p2/0000002.dat"
    last = bkt.list_objects_v2(prefix="p3/", start_after="p3/0999990", max_keys=1000)
    assert [o.key for o in last.object_list] == ["p3/0999991.dat", "p3/0999995.dat", "p3/0999999.dat"]
    assert not last.is_truncated


def test_a_restart_with_a_state_file_keeps_objects_rules_and_queued_events(tmp_path):
    # The server (OSS and its MNS) is stopped and started again on the same ports: objects, the
    # notification rule and the queued events are there after it; notifications still flow.
    with client.OssEmulator(with_mns=True, state_file=str(tmp_path / "oss.state")) as emu:
        emu.create_bucket(BUCKET)
        emu.mns.create_queue("oss-events")
        emu.add_notification(BUCKET, "oss-events")
        v1_bucket(emu).put_object("kept/a.txt", b"before")
        emu.restart()
        bkt = v4_bucket(emu)
        assert bkt.get_object("kept/a.txt").read() == b"before"
        bkt.put_object("kept/b.txt", b"after")
        queue = Account(emu.mns.endpoint, emu.mns.access_key_id, emu.mns.access_key_secret).get_queue("oss-events")
        msgs = queue.batch_receive_message(16, wait_seconds=1)
        keys = [json.loads(m.message_body)["events"][0]["oss"]["object"]["key"] for m in msgs]
        assert keys == ["kept/a.txt", "kept/b.txt"]
