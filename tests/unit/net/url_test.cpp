#include "net/url.h"

#include <catch2/catch.hpp>

using namespace cdcd::net;

TEST_CASE("URLs parse into scheme, host, port, path and query") {
    auto u = parse_url("https://api.dingtalk.com/v2.0/wiki/nodes?parentNodeId=a&x=1#frag");
    REQUIRE(u);
    CHECK(u->tls());
    CHECK(u->host == "api.dingtalk.com");
    CHECK(u->port == 443);
    CHECK(u->path == "/v2.0/wiki/nodes");
    CHECK(u->query == "parentNodeId=a&x=1");
    CHECK(u->target() == "/v2.0/wiki/nodes?parentNodeId=a&x=1");
    CHECK(u->redacted() == "https://api.dingtalk.com:443/v2.0/wiki/nodes");

    auto p = parse_url("HTTP://127.0.0.1:8080");
    REQUIRE(p);
    CHECK(p->scheme == "http");
    CHECK(p->port == 8080);
    CHECK(p->path == "/");
    CHECK(p->origin() == "http://127.0.0.1:8080");

    auto v6 = parse_url("http://[::1]:9000/x");
    REQUIRE(v6);
    CHECK(v6->host == "::1");
    CHECK(v6->origin() == "http://[::1]:9000");

    std::string error;
    CHECK(!parse_url("ftp://x/", &error));
    CHECK(error.find("ftp") != std::string::npos);
    CHECK(!parse_url("http://host:99999/"));
    CHECK(!parse_url("http://:80/"));
    CHECK(!parse_url("api.dingtalk.com/x"));
    CHECK(!parse_url("http://user:pw@host/"));
}

TEST_CASE("percent-encoding follows RFC 3986 unreserved characters") {
    CHECK(percent_encode("aZ09-._~") == "aZ09-._~");
    CHECK(percent_encode("a b+c/d?e=f&g") == "a%20b%2Bc%2Fd%3Fe%3Df%26g");
    CHECK(percent_encode("a/b c", true) == "a/b%20c");
    CHECK(percent_encode("知") == "%E7%9F%A5");
    CHECK(percent_decode("%E7%9F%A5%20x+y%zz%4") == "知 x+y%zz%4");
    CHECK(build_query({{"operatorId", "u 1"}, {"nextToken", "a=b"}}) ==
          "operatorId=u%201&nextToken=a%3Db");
}

// Found by the small_parsers fuzz target: a host holding ':', ']', control characters or bytes
// above 0x7f was accepted as it was, and printed back it named another host.
TEST_CASE("a host or path with characters no URL may hold is refused") {
    std::string error;
    CHECK(!parse_url("http://\xc3::1]\x02http://[::1]:9900/x:9900/x", &error));
    CHECK(error.find("host") != std::string::npos);
    CHECK(!parse_url("http://a b/"));
    CHECK(!parse_url("http://ex\x01mple.com/"));
    CHECK(!parse_url("http://[zz]/"));
    CHECK(!parse_url("http://host/a b", &error));
    CHECK(error.find("path or query") != std::string::npos);
    CHECK(!parse_url("http://host/x?a=1\r\nHost: evil"));
    CHECK(parse_url("http://[fe80::1%25eth0]:8080/"));
    CHECK(parse_url("https://oss-cn-hangzhou.aliyuncs.com/b%20c?x=%2F"));
}
