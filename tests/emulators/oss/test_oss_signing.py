"""oss_signing reproduces the official OSS vectors of vendor-apis.md §4.6-§4.9."""
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "oss_emu_signing", pathlib.Path(__file__).with_name("oss_signing.py"))
sig = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sig)

DATE = "Wed, 28 Dec 2022 10:27:41 GMT"
V1_HEADERS = {"content-md5": "eB5eJF1ptWaXm4bijSPyxw==", "content-type": "text/html",
              "x-oss-date": DATE, "x-oss-meta-author": "alice",
              "x-oss-meta-magic": "abracadabra", "date": DATE}


def test_v1_official_put_vector():
    res = sig.v1_canonical_resource("examplebucket", "nelson", [])
    s = sig.v1_string_to_sign("PUT", V1_HEADERS, res)
    assert s == ("PUT\neB5eJF1ptWaXm4bijSPyxw==\ntext/html\nWed, 28 Dec 2022 10:27:41 GMT\n"
                 "x-oss-date:Wed, 28 Dec 2022 10:27:41 GMT\nx-oss-meta-author:alice\n"
                 "x-oss-meta-magic:abracadabra\n/examplebucket/nelson")
    assert sig.v1_sign("sk", s) == "kSHKmLxlyEAKtZPkJhG9bZb5k7M="


def test_v1_official_subresource_vectors():
    res = sig.v1_canonical_resource("examplebucket", "nelson", [("acl", "")])
    assert sig.v1_sign("sk", sig.v1_string_to_sign("PUT", V1_HEADERS, res)) == "/afkugFbmWDQ967j1vr6zygBLQk="
    headers = {"x-oss-date": DATE, "date": DATE}
    # resourceGroup and acl are signed, non-subresources are dropped, keys are sorted.
    res = sig.v1_canonical_resource("examplebucket", "", [("resourceGroup", ""), ("prefix", "x"), ("acl", "")])
    assert res == "/examplebucket/?acl&resourceGroup"
    assert sig.v1_sign("sk", sig.v1_string_to_sign("GET", headers, res)) == "x3E5TgOvl/i7PN618s5mEvpJDYk="


def test_v1_continuation_token_vectors():
    headers = {"date": "Fri, 01 Aug 2025 12:00:00 GMT"}
    res = sig.v1_canonical_resource("examplebucket", "", [
        ("list-type", "2"), ("continuation-token", "ChR1c2VyL2VyaWMvZGVtbzMuanNvbhAA"), ("max-keys", "100")])
    assert sig.v1_sign("SKTEST", sig.v1_string_to_sign("GET", headers, res)) == "FVlxwcG54F5kBk5bVu9lGChPIhA="
    res = sig.v1_canonical_resource("examplebucket", "", [("continuation-token", "")])
    assert sig.v1_sign("SKTEST", sig.v1_string_to_sign("GET", headers, res)) == "9ql81/K+anV0IVJG/z/GjAsDvIY="


def test_v1_presigned_vector():
    res = sig.v1_canonical_resource("examplebucket", "docs/a.pdf", [
        ("OSSAccessKeyId", "AKTEST"), ("Expires", "1754049600")])
    s = sig.v1_string_to_sign("GET", {}, res, date_override="1754049600")
    assert s == "GET\n\n\n1754049600\n/examplebucket/docs/a.pdf"
    assert sig.v1_sign("SKTEST", s) == "X/h/YCTcV4k9QqCqJED9wbVl2Yo="


V4_QUERY = [("param1", "value1"), ("+param1", "value3"), ("|param1", "value4"),
            ("+param2", ""), ("|param2", ""), ("param2", "")]


def test_v4_official_header_vector():
    headers = {"x-oss-head1": "value", "abc": "value", "zabc": "value", "xyz": "value",
               "content-type": "text/plain", "x-oss-content-sha256": "UNSIGNED-PAYLOAD",
               "x-oss-date": "20231216T162057Z"}
    creq = sig.v4_canonical_request("PUT", "bucket", "1234+-/123/1.txt", V4_QUERY, headers, [])
    assert creq == ("PUT\n/bucket/1234%2B-/123/1.txt\n"
                    "%2Bparam1=value3&%2Bparam2&%7Cparam1=value4&%7Cparam2&param1=value1&param2\n"
                    "content-type:text/plain\nx-oss-content-sha256:UNSIGNED-PAYLOAD\n"
                    "x-oss-date:20231216T162057Z\nx-oss-head1:value\n\n\nUNSIGNED-PAYLOAD")
    sts = sig.v4_string_to_sign("20231216T162057Z", sig.v4_scope("20231216", "cn-hangzhou"), creq)
    assert sts.rsplit("\n", 1)[1] == "f4613657f1b108998e8dbd10a1aa5da621dc2c6e02c9ddec0f163664848704c4"
    assert sig.v4_sign("sk", "20231216", "cn-hangzhou", sts) == \
        "e21d18daa82167720f9b1047ae7e7f1ce7cb77a31e8203a7d5f4624fa0284afe"


def test_v4_official_additional_headers_vector():
    # time 1702747512 = 2023-12-16T17:25:12Z
    headers = {"x-oss-head1": "value", "abc": "value", "zabc": "value", "xyz": "value",
               "content-type": "text/plain", "x-oss-content-sha256": "UNSIGNED-PAYLOAD",
               "x-oss-date": "20231216T172512Z"}
    creq = sig.v4_canonical_request("PUT", "bucket", "1234+-/123/1.txt", V4_QUERY, headers, ["abc", "zabc"])
    sts = sig.v4_string_to_sign("20231216T172512Z", sig.v4_scope("20231216", "cn-hangzhou"), creq)
    assert sig.v4_sign("sk", "20231216", "cn-hangzhou", sts) == \
        "4a4183c187c07c8947db7620deb0a6b38d9fbdd34187b6dbaccb316fa251212f"


def test_v4_official_presigned_vector_with_token():
    params = V4_QUERY + [
        ("x-oss-credential", "ak/20231217/cn-hangzhou/oss/aliyun_v4_request"),
        ("x-oss-date", "20231217T035628Z"), ("x-oss-expires", "599"),
        ("x-oss-security-token", "token"), ("x-oss-signature-version", "OSS4-HMAC-SHA256")]
    assert sig.v4_canonical_query(params) == (
        "%2Bparam1=value3&%2Bparam2&%7Cparam1=value4&%7Cparam2&param1=value1&param2"
        "&x-oss-credential=ak%2F20231217%2Fcn-hangzhou%2Foss%2Faliyun_v4_request"
        "&x-oss-date=20231217T035628Z&x-oss-expires=599&x-oss-security-token=token"
        "&x-oss-signature-version=OSS4-HMAC-SHA256")
    headers = {"x-oss-head1": "value", "abc": "value", "zabc": "value", "xyz": "value",
               "content-type": "application/octet-stream"}
    creq = sig.v4_canonical_request("PUT", "bucket", "1234+-/123/1.txt", params, headers, [])
    sts = sig.v4_string_to_sign("20231217T035628Z", sig.v4_scope("20231217", "cn-hangzhou"), creq)
    assert sig.v4_sign("sk", "20231217", "cn-hangzhou", sts) == \
        "3817ac9d206cd6dfc90f1c09c00be45005602e55898f26f5ddb06d7892e1f8b5"


def test_parse_v4_authorization_both_separators():
    a = sig.parse_v4_authorization(
        "OSS4-HMAC-SHA256 Credential=ak/20231216/cn-hangzhou/oss/aliyun_v4_request, "
        "Signature=abc, AdditionalHeaders=abc;zabc")
    assert a["access_key_id"] == "ak" and a["region"] == "cn-hangzhou"
    assert a["additional"] == ["abc", "zabc"] and a["signature"] == "abc"
    b = sig.parse_v4_authorization(
        "OSS4-HMAC-SHA256 Credential=ak/20231216/cn-hangzhou/oss/aliyun_v4_request,Signature=def")
    assert b["signature"] == "def" and b["additional"] == []
    assert sig.parse_v4_authorization("OSS ak:sig") is None
