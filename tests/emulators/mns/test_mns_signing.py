"""The MNS signature reproduces the official and reference vectors (vendor-apis.md §2.2)."""
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "mns_emu_signing", pathlib.Path(__file__).with_name("mns_signing.py"))
signing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(signing)


def test_official_doc_vector():
    s = "GET\n\n\nThu, 09 Jul 2015 03:01:34 GMT\nx-mns-version:2015-06-06\n/MyQueue"
    assert signing.sign("TestAccessSecret", s) == "uwx3yeWoILzgmvesW0BQSgfM7b8="


def test_string_to_sign_from_headers_batch_receive():
    headers = {"date": "Fri, 01 Aug 2025 12:00:00 GMT", "x-mns-version": "2015-06-06",
               "host": "127.0.0.1"}
    s = signing.string_to_sign("GET", headers,
                               "/queues/oss-events/messages?numOfMessages=16&waitseconds=10")
    assert s == ("GET\n\n\nFri, 01 Aug 2025 12:00:00 GMT\nx-mns-version:2015-06-06\n"
                 "/queues/oss-events/messages?numOfMessages=16&waitseconds=10")
    assert signing.sign("SKTEST", s) == "me6pg9+CHsjFAhwkfUnCbFdSEf8="


def test_batch_delete_vector_with_sdk_style_md5():
    headers = {"content-md5": "MjNjMDQ5N2Q3ZjE0NDI3NjMxNTdjMjBkNjM2YzAxZTI=",
               "content-type": "text/xml;charset=UTF-8",
               "date": "Fri, 01 Aug 2025 12:00:00 GMT", "x-mns-version": "2015-06-06"}
    s = signing.string_to_sign("DELETE", headers, "/queues/oss-events/messages")
    assert signing.sign("SKTEST", s) == "zEn9nR2YRIEbB7aunCXj20tRdyM="


def test_parse_authorization():
    assert signing.parse_authorization("MNS ak:abc=") == ("ak", "abc=")
    assert signing.parse_authorization("OSS ak:abc") is None
    assert signing.parse_authorization("MNS akabc") is None
