"""Drive the MNS emulator with the official `aliyun-mns-sdk` (import name `mns`).

The SDK takes any `http://host:port` as its endpoint (MNSClient.process_host) and signs the
raw request-target, so these tests exercise the real signature path end to end.
"""
import base64
import hashlib
import importlib.util
import pathlib
import threading
import time

import pytest
from mns.account import Account
from mns.mns_exception import MNSClientNetworkException, MNSServerException
from mns.queue import Message, QueueMeta

_spec = importlib.util.spec_from_file_location(
    "mns_emulator_client", pathlib.Path(__file__).with_name("client.py"))
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)


@pytest.fixture(scope="module")
def emu():
    with client.MnsEmulator() as e:
        yield e


@pytest.fixture()
def fresh(emu):
    emu.reset()
    return emu


def account(emu, ak=None, sk=None, token=""):
    return Account(emu.endpoint, ak or emu.access_key_id, sk or emu.access_key_secret, token)


def make_queue(emu, name="q1", **attrs):
    emu.create_queue(name, **attrs)
    return account(emu).get_queue(name)


def server_error(excinfo) -> str:
    return excinfo.value.type


def test_create_queue_through_sdk_and_attributes(fresh):
    q = account(fresh).get_queue("sdkq")
    meta = QueueMeta()
    meta.set_visibilitytimeout(7)
    meta.set_polling_wait_seconds(0)
    q.create(meta)
    attrs = q.get_attributes()
    assert attrs.visibility_timeout == 7 and attrs.active_messages == 0
    # Same attributes again is idempotent, different ones conflict.
    q.create(meta)
    meta.set_visibilitytimeout(9)
    with pytest.raises(MNSServerException) as ei:
        q.create(meta)
    assert server_error(ei) == "QueueAlreadyExist"
    assert fresh.queue("sdkq")["visibility_timeout"] == 7


def test_send_receive_fields_and_md5(fresh):
    q = make_queue(fresh)
    before = int(time.time() * 1000)
    sent = q.send_message(Message("hello 世界"))
    stored_body = base64.b64encode("hello 世界".encode()).decode()  # SDK base64-encodes by default
    assert sent.message_body_md5 == hashlib.md5(stored_body.encode()).hexdigest().upper()
    msg = q.receive_message(wait_seconds=0)
    assert msg.message_body == "hello 世界".encode()  # SDK base64-decodes to bytes
    assert msg.message_id == sent.message_id
    assert msg.message_body_md5 == sent.message_body_md5
    assert msg.dequeue_count == 1
    assert before <= msg.enqueue_time <= msg.first_dequeue_time
    assert msg.next_visible_time >= msg.first_dequeue_time + 29000  # default 30 s visibility
    assert msg.priority == 8
    state = fresh.messages("q1")
    assert [m["state"] for m in state] == ["inflight"]
    assert state[0]["receipt_handle"] == msg.receipt_handle


def test_empty_queue_message_not_exist_and_long_poll_wait(fresh):
    q = make_queue(fresh)
    with pytest.raises(MNSServerException) as ei:
        q.receive_message(wait_seconds=0)
    assert server_error(ei) == "MessageNotExist"
    t0 = time.monotonic()
    with pytest.raises(MNSServerException):
        q.receive_message(wait_seconds=1)
    assert 0.9 <= time.monotonic() - t0 < 3


def test_long_poll_returns_when_a_message_arrives(fresh):
    q = make_queue(fresh)
    timer = threading.Timer(0.4, lambda: fresh.send("q1", base64.b64encode(b"late").decode()))
    timer.start()
    t0 = time.monotonic()
    msg = q.receive_message_with_str_body(wait_seconds=10)
    elapsed = time.monotonic() - t0
    timer.join()
    assert msg.message_body == "late"
    assert 0.3 <= elapsed < 3


def test_batch_receive_caps_at_requested_number(fresh):
    q = make_queue(fresh)
    for i in range(20):
        q.send_message(Message(f"m{i}"))
    first = q.batch_receive_message_with_str_body(16, wait_seconds=1)
    assert len(first) == 16
    rest = q.batch_receive_message_with_str_body(16, wait_seconds=0)
    assert len(rest) == 4
    bodies = sorted(m.message_body for m in first + rest)
    assert bodies == sorted(f"m{i}" for i in range(20))
    assert len({m.receipt_handle for m in first + rest}) == 20
    with pytest.raises(MNSServerException) as ei:
        q.batch_receive_message(16, wait_seconds=0)
    assert server_error(ei) == "MessageNotExist"
    counters = fresh.counters()
    assert counters["BatchReceiveMessage"] == 3 and counters["SendMessage"] == 20


def test_invalid_batch_size_is_rejected_by_server(fresh):
    make_queue(fresh)
    import requests  # the SDK validates 1..16 client-side; check the server does too
    r = requests.get(fresh.url + "/queues/q1/messages?numOfMessages=17", timeout=5)
    assert r.status_code == 400  # unsigned request: MissingAuthorizationHeader
    fresh.set_credentials("AKTEST", "SKTEST", verify_signatures=False)
    r = requests.get(fresh.url + "/queues/q1/messages?numOfMessages=17", timeout=5)
    assert r.status_code == 400 and "<Code>InvalidArgument</Code>" in r.text


def test_delete_and_visibility_timeout_redelivery_with_new_handle(fresh):
    q = make_queue(fresh, visibility_timeout=1)
    q.send_message(Message("again"))
    first = q.receive_message(wait_seconds=0)
    with pytest.raises(MNSServerException):
        q.receive_message(wait_seconds=0)  # in flight
    second = q.receive_message(wait_seconds=3)  # comes back after ~1 s
    assert second.message_id == first.message_id
    assert second.dequeue_count == 2
    assert second.first_dequeue_time == first.first_dequeue_time
    assert second.receipt_handle != first.receipt_handle
    with pytest.raises(MNSServerException) as ei:
        q.delete_message(first.receipt_handle)
    assert server_error(ei) == "MessageNotExist"
    q.delete_message(second.receipt_handle)
    assert fresh.messages("q1") == []
    with pytest.raises(MNSServerException) as ei:
        q.delete_message("not-a-handle")
    assert server_error(ei) == "ReceiptHandleError"


def test_batch_delete_partial_error(fresh):
    q = make_queue(fresh)
    for i in range(3):
        q.send_message(Message(f"b{i}"))
    msgs = q.batch_receive_message(3, wait_seconds=0)
    handles = [m.receipt_handle for m in msgs] + ["1-bogus"]
    with pytest.raises(MNSServerException) as ei:
        q.batch_delete_message(handles)
    assert server_error(ei) == "ReceiptHandleError"
    assert ei.value.sub_errors == [{"ErrorCode": "ReceiptHandleError",
                                    "ErrorMessage": "The receipt handle you provide is not valid.",
                                    "ReceiptHandle": "1-bogus"}]
    assert fresh.messages("q1") == []  # the valid ones were deleted


def test_batch_delete_all_valid(fresh):
    q = make_queue(fresh)
    for i in range(5):
        q.send_message(Message(f"c{i}"))
    msgs = q.batch_receive_message(5)
    q.batch_delete_message([m.receipt_handle for m in msgs])
    assert fresh.messages("q1") == []


def test_change_message_visibility(fresh):
    q = make_queue(fresh, visibility_timeout=60)
    q.send_message(Message("vis"))
    msg = q.receive_message(wait_seconds=0)
    changed = q.change_message_visibility(msg.receipt_handle, 1)
    assert changed.receipt_handle != msg.receipt_handle
    assert int(changed.next_visible_time) <= int(time.time() * 1000) + 1500
    with pytest.raises(MNSServerException) as ei:
        q.delete_message(msg.receipt_handle)
    assert server_error(ei) == "MessageNotExist"
    again = q.receive_message(wait_seconds=3)
    assert again.message_id == msg.message_id and again.dequeue_count == 2
    with pytest.raises(MNSServerException) as ei:
        q.change_message_visibility(changed.receipt_handle, 5)  # superseded by the receive
    assert server_error(ei) == "MessageNotExist"


def test_retention_expiry(fresh):
    q = make_queue(fresh, message_retention_period=1)
    q.send_message(Message("short-lived"))
    assert len(fresh.messages("q1")) == 1
    time.sleep(1.2)
    with pytest.raises(MNSServerException) as ei:
        q.receive_message(wait_seconds=0)
    assert server_error(ei) == "MessageNotExist"
    assert fresh.messages("q1") == []


def test_queue_not_exist(fresh):
    q = account(fresh).get_queue("nope")
    with pytest.raises(MNSServerException) as ei:
        q.receive_message(wait_seconds=0)
    assert server_error(ei) == "QueueNotExist"


def test_signature_and_credentials_checked(fresh):
    make_queue(fresh)
    with pytest.raises(MNSServerException) as ei:
        account(fresh, sk="wrong-secret").get_queue("q1").send_message(Message("x"))
    assert server_error(ei) == "SignatureDoesNotMatch"
    with pytest.raises(MNSServerException) as ei:
        account(fresh, ak="unknown").get_queue("q1").send_message(Message("x"))
    assert server_error(ei) == "InvalidAccessKeyId"
    fresh.set_credentials("STSAK", "STSSK", security_token="tok-1")
    with pytest.raises(MNSServerException) as ei:
        account(fresh).get_queue("q1").send_message(Message("x"))
    assert server_error(ei) == "AccessDenied"
    account(fresh, token="tok-1").get_queue("q1").send_message(Message("with sts"))
    assert [m["body"] for m in fresh.messages("q1")] == [base64.b64encode(b"with sts").decode()]


def test_a_skewed_clock_is_refused_as_mns_refuses_it(fresh):
    q = make_queue(fresh)
    fresh.set_clock_offset(16 * 60)  # past MNS's 15 minutes
    try:
        with pytest.raises(MNSServerException) as ei:
            q.send_message(Message("late"))
        assert server_error(ei) == "TimeExpired"
        fresh.set_clock_offset(-14 * 60)  # within them, behind
        q.send_message(Message("in time"))
    finally:
        fresh.set_clock_offset(0)
    assert [m["body"] for m in fresh.messages("q1")] == [base64.b64encode(b"in time").decode()]


def test_faults_throttle_error_reset_delay(fresh):
    q = make_queue(fresh)
    fresh.inject_fault("SendMessage", "throttle", count=1)
    with pytest.raises(MNSServerException) as ei:
        q.send_message(Message("x"))
    assert server_error(ei) == "TooManyRequests"
    fresh.inject_fault("ReceiveMessage", "error", count=2, status=503, code="ServiceUnavailable")
    for _ in range(2):
        with pytest.raises(MNSServerException) as ei:
            q.receive_message(wait_seconds=0)
        assert server_error(ei) == "ServiceUnavailable"
    fresh.inject_fault("SendMessage", "reset", count=1)
    with pytest.raises(MNSClientNetworkException):
        q.send_message(Message("x"))
    fresh.inject_fault("SendMessage", "delay", count=1, delay_ms=500)
    t0 = time.monotonic()
    q.send_message(Message("slow"))
    assert time.monotonic() - t0 >= 0.45
    msg = q.receive_message_with_str_body(wait_seconds=0)  # faults exhausted: normal again
    assert msg.message_body == "slow"
    counters = fresh.counters()
    assert counters["SendMessage"] == 3 and counters["ReceiveMessage"] == 3


def test_a_restart_with_a_state_file_keeps_queues_messages_and_handles(tmp_path):
    # The server is stopped and started again on the same port: queued messages, in-flight ones
    # and their receipt handles, and the queue's attributes are there after it, as on a real MNS.
    with client.MnsEmulator(state_file=str(tmp_path / "mns.state")) as emu:
        q = make_queue(emu, visibility_timeout=30)
        q.send_message(Message("waiting"))
        q.send_message(Message("in flight"))
        first = q.receive_message(wait_seconds=0)
        emu.restart()
        q = account(emu).get_queue("q1")
        assert q.get_attributes().visibility_timeout == 30
        q.delete_message(first.receipt_handle)  # the handle from before the restart still works
        second = q.receive_message(wait_seconds=0)
        assert {first.message_body, second.message_body} == {b"waiting", b"in flight"}
        q.delete_message(second.receipt_handle)
        assert emu.messages("q1") == []
