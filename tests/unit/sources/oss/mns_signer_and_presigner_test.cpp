// Signers against the official vectors of vendor-apis.md §2.2, §4.6-4.9.
#include <catch2/catch.hpp>

#include "net/digest.h"
#include "pipeline/util/base64.h"
#include "sources/oss/encoding.h"
#include "sources/oss/mns_signer.h"
#include "sources/oss/presigner.h"
#include "sources/oss/signer_v1.h"
#include "sources/oss/signer_v4.h"

using namespace cdcd::oss;
using cdcd::base64_encode;

TEST_CASE("MNS signature: official vector and computed ones") {
    MnsSignInput in;
    in.method = "GET";
    in.date = "Thu, 09 Jul 2015 03:01:34 GMT";
    in.headers = {{"x-mns-version", "2015-06-06"}};
    in.resource = "/MyQueue";
    CHECK(mns_string_to_sign(in) ==
          "GET\n\n\nThu, 09 Jul 2015 03:01:34 GMT\nx-mns-version:2015-06-06\n/MyQueue");
    CHECK(mns_signature("TestAccessSecret", in) == "uwx3yeWoILzgmvesW0BQSgfM7b8=");

    in.date = "Fri, 01 Aug 2025 12:00:00 GMT";
    in.resource = "/queues/oss-events/messages?numOfMessages=16&waitseconds=10";
    CHECK(mns_signature("SKTEST", in) == "me6pg9+CHsjFAhwkfUnCbFdSEf8=");

    MnsSignInput del;
    del.method = "DELETE";
    del.content_md5 = "MjNjMDQ5N2Q3ZjE0NDI3NjMxNTdjMjBkNjM2YzAxZTI=";
    del.content_type = "text/xml;charset=UTF-8";
    del.date = "Fri, 01 Aug 2025 12:00:00 GMT";
    del.headers = {{"X-MNS-Version", "2015-06-06"}, {"Host", "ignored"}};
    del.resource = "/queues/oss-events/messages";
    CHECK(mns_authorization("AK", "SKTEST", del) == "MNS AK:zEn9nR2YRIEbB7aunCXj20tRdyM=");
}

TEST_CASE("MNS http date") {
    CHECK(http_date(1436410894) == "Thu, 09 Jul 2015 03:01:34 GMT");
}

TEST_CASE("OSS V1 signature: SDK v2 vectors") {
    V1Request r;
    r.method = "PUT";
    r.content_md5 = "eB5eJF1ptWaXm4bijSPyxw==";
    r.content_type = "text/html";
    r.date = "Wed, 28 Dec 2022 10:27:41 GMT";
    r.headers = {{"x-oss-meta-magic", "abracadabra"},
                 {"x-oss-date", "Wed, 28 Dec 2022 10:27:41 GMT"},
                 {"X-OSS-Meta-Author", "alice"},
                 {"Content-Type", "text/html"}};
    r.bucket = "examplebucket";
    r.key = "nelson";
    CHECK(v1_authorization("ak", "sk", r) == "OSS ak:kSHKmLxlyEAKtZPkJhG9bZb5k7M=");
    r.query = {{"acl", std::nullopt}};
    CHECK(v1_authorization("ak", "sk", r) == "OSS ak:/afkugFbmWDQ967j1vr6zygBLQk=");

    V1Request g;
    g.method = "GET";
    g.date = "Wed, 28 Dec 2022 10:27:41 GMT";
    g.headers = {{"x-oss-date", "Wed, 28 Dec 2022 10:27:41 GMT"}};
    g.bucket = "examplebucket";
    g.query = {
        {"resourceGroup", std::string()}, {"acl", std::nullopt}, {"list-type", std::string("2")}};
    CHECK(v1_canonical_resource(g) == "/examplebucket/?acl&resourceGroup");
    CHECK(v1_authorization("ak", "sk", g) == "OSS ak:x3E5TgOvl/i7PN618s5mEvpJDYk=");
}

TEST_CASE("OSS V1: continuation-token is a signed subresource, list parameters are not") {
    V1Request r;
    r.date = "Fri, 01 Aug 2025 12:00:00 GMT";
    r.bucket = "examplebucket";
    r.query = {{"list-type", std::string("2")},
               {"continuation-token", std::string("ChR1c2VyL2VyaWMvZGVtbzMuanNvbhAA")},
               {"max-keys", std::string("1000")}};
    CHECK(v1_signature("SKTEST", r) == "FVlxwcG54F5kBk5bVu9lGChPIhA=");
    r.query = {{"continuation-token", std::string()}, {"prefix", std::string("a/")}};
    CHECK(v1_signature("SKTEST", r) == "9ql81/K+anV0IVJG/z/GjAsDvIY=");
}

TEST_CASE("OSS V1 pre-signed URL: computed vector") {
    Presigner p("http://127.0.0.1:9000", "cn-hangzhou", false, {"AKTEST", "SKTEST", ""},
                std::chrono::seconds(3600));
    std::string url = p.url("examplebucket", "docs/a.pdf", 1754049600 - 3600);
    CHECK(url ==
          "http://127.0.0.1:9000/examplebucket/docs/"
          "a.pdf?OSSAccessKeyId=AKTEST&Expires=1754049600&Signature=X%2Fh%"
          "2FYCTcV4k9QqCqJED9wbVl2Yo%3D");
}

namespace {
V4Request official_v4() {
    V4Request r;
    r.method = "PUT";
    r.bucket = "bucket";
    r.key = "1234+-/123/1.txt";
    r.region = "cn-hangzhou";
    r.datetime = "20231216T162057Z";
    r.headers = {{"x-oss-head1", "value"},
                 {"abc", "value"},
                 {"ZAbc", "value"},
                 {"XYZ", "value"},
                 {"content-type", "text/plain"},
                 {"x-oss-content-sha256", "UNSIGNED-PAYLOAD"},
                 {"x-oss-date", "20231216T162057Z"}};
    r.query = {{"param1", std::string("value1")},  {"+param1", std::string("value3")},
               {"|param1", std::string("value4")}, {"+param2", std::nullopt},
               {"|param2", std::nullopt},          {"param2", std::nullopt}};
    return r;
}
}  // namespace

TEST_CASE("OSS V4 signature: SDK v2 test_auth_header vector") {
    V4Request r = official_v4();
    CHECK(v4_canonical_request(r) ==
          "PUT\n/bucket/1234%2B-/123/1.txt\n"
          "%2Bparam1=value3&%2Bparam2&%7Cparam1=value4&%7Cparam2&param1=value1&param2\n"
          "content-type:text/"
          "plain\nx-oss-content-sha256:UNSIGNED-PAYLOAD\nx-oss-date:20231216T162057Z\n"
          "x-oss-head1:value\n\n\nUNSIGNED-PAYLOAD");
    CHECK(cdcd::net::hex_lower(cdcd::net::sha256(v4_canonical_request(r))) ==
          "f4613657f1b108998e8dbd10a1aa5da621dc2c6e02c9ddec0f163664848704c4");
    CHECK(v4_authorization("ak", "sk", r) ==
          "OSS4-HMAC-SHA256 Credential=ak/20231216/cn-hangzhou/oss/aliyun_v4_request,"
          "Signature=e21d18daa82167720f9b1047ae7e7f1ce7cb77a31e8203a7d5f4624fa0284afe");
}

TEST_CASE("OSS V4 signature: additional headers vector") {
    V4Request r = official_v4();
    r.datetime = iso8601_basic(1702747512);
    for (auto& h : r.headers)
        if (h.first == "x-oss-date") h.second = r.datetime;
    r.additional_headers = {"ZAbc", "abc"};
    CHECK(v4_authorization("ak", "sk", r) ==
          "OSS4-HMAC-SHA256 "
          "Credential=ak/20231216/cn-hangzhou/oss/aliyun_v4_request,AdditionalHeaders=abc;zabc,"
          "Signature=4a4183c187c07c8947db7620deb0a6b38d9fbdd34187b6dbaccb316fa251212f");
}

TEST_CASE("OSS V4 pre-signed URL: SDK v2 test_auth_query_with_token vector") {
    V4Request r;
    r.method = "PUT";
    r.bucket = "bucket";
    r.key = "1234+-/123/1.txt";
    r.region = "cn-hangzhou";
    r.datetime = "20231217T035628Z";
    r.headers = {{"x-oss-head1", "value"},
                 {"abc", "value"},
                 {"ZAbc", "value"},
                 {"XYZ", "value"},
                 {"content-type", "application/octet-stream"}};
    r.query = {{"param1", std::string("value1")},  {"+param1", std::string("value3")},
               {"|param1", std::string("value4")}, {"+param2", std::nullopt},
               {"|param2", std::nullopt},          {"param2", std::nullopt}};
    std::string sig = v4_presign("ak", "sk", "token", 599, r);
    CHECK(v4_canonical_request(r).find("%2Bparam1=value3&%2Bparam2&%7Cparam1=value4&%7Cparam2&"
                                       "param1=value1&param2&x-oss-credential=ak%2F20231217%"
                                       "2Fcn-hangzhou%2Foss%2Faliyun_v4_request&x-oss-date="
                                       "20231217T035628Z&x-oss-expires=599&x-oss-security-token="
                                       "token&x-oss-signature-version=OSS4-HMAC-SHA256") !=
          std::string::npos);
    CHECK(sig == "3817ac9d206cd6dfc90f1c09c00be45005602e55898f26f5ddb06d7892e1f8b5");
}

TEST_CASE("base64 round trip and rejects") {
    CHECK(base64_encode("") == "");
    CHECK(base64_encode("f") == "Zg==");
    CHECK(base64_encode("fo") == "Zm8=");
    CHECK(base64_encode("foo") == "Zm9v");
    CHECK(base64_decode("Zm9vYmFy").value() == "foobar");
    CHECK(base64_decode("Zg==").value() == "f");
    CHECK_FALSE(base64_decode("{\"a\":1}"));
    CHECK_FALSE(base64_decode("Zg==Zg"));
    CHECK(cdcd::net::hex_upper(cdcd::net::md5("hello")) == "5D41402ABC4B2A76B9719D911017C592");
}
