#include "sinks/vikingdb/signer.h"

#include <catch2/catch.hpp>

#include "sinks/vikingdb/auth.h"

using namespace cdcd::vikingdb;

// vendor-apis.md §5.1 computed vectors: AK AKTEST, SK SKTEST, cn-beijing, vikingdb,
// 20250801T120000Z.
TEST_CASE("V4 signature of the reference data-plane upsert") {
    V4Signer signer("AKTEST", "SKTEST", "cn-beijing");
    SignRequest r;
    r.path = "/api/vikingdb/data/upsert";
    r.headers = {{"Accept", "application/json"}, {"Content-Type", "application/json"}};
    std::string body =
        R"({"collection_name":"test_coll","data":[{"f_id":"000135","f_vector":[0.1,0.33,-0.88,0.66]}]})";
    r.body = body;
    SignedParts p = signer.sign(r, "20250801T120000Z");
    CHECK(p.content_sha256 == "e03ff3c61b067ec8e1e5256718ec9706b4d80f39c78ada9c14a384a7dde8266c");
    CHECK(p.canonical_request ==
          "POST\n/api/vikingdb/data/upsert\n\ncontent-type:application/json\n"
          "x-content-sha256:e03ff3c61b067ec8e1e5256718ec9706b4d80f39c78ada9c14a384a7dde8266c\n"
          "x-date:20250801T120000Z\n\ncontent-type;x-content-sha256;x-date\n"
          "e03ff3c61b067ec8e1e5256718ec9706b4d80f39c78ada9c14a384a7dde8266c");
    CHECK(p.signed_headers == "content-type;x-content-sha256;x-date");
    CHECK(p.authorization ==
          "HMAC-SHA256 Credential=AKTEST/20250801/cn-beijing/vikingdb/request, "
          "SignedHeaders=content-type;x-content-sha256;x-date, "
          "Signature=078dbe8dbe0eafcd4d74f23f57f7f7f114653dea022dd70ea51d56bbb5a4d22e");
}

TEST_CASE("V4 signature of the reference control-plane GetVikingdbCollection") {
    V4Signer signer("AKTEST", "SKTEST", "cn-beijing");
    SignRequest r;
    r.path = "/";
    r.query = "Version=2025-06-09&Action=GetVikingdbCollection";  // sorted by the signer
    r.headers = {{"Content-Type", "application/json"},
                 {"Host", "vikingdb.cn-beijing.volcengineapi.com:443"}};
    std::string body = R"({"ProjectName":"default","CollectionName":"test_coll"})";
    r.body = body;
    SignedParts p = signer.sign(r, "20250801T120000Z");
    CHECK(p.signed_headers == "content-type;host;x-content-sha256;x-date");
    CHECK(p.canonical_request.find("\nAction=GetVikingdbCollection&Version=2025-06-09\n") !=
          std::string::npos);
    CHECK(p.canonical_request.find("host:vikingdb.cn-beijing.volcengineapi.com\n") !=
          std::string::npos);
    CHECK(p.authorization.substr(p.authorization.find("Signature=") + 10) ==
          "02c4b35b5aa9ad287161f03ce2b6046e6c838badddd548b007670c86a8fdd028");
}

TEST_CASE("canonical query sorts keys and percent-encodes with %20") {
    CHECK(V4Signer::canonical_query("b=2&a=x+y&c=a%20b") == "a=x%2By&b=2&c=a%20b");
    CHECK(V4Signer::canonical_query("") == "");
    CHECK(x_date(std::chrono::system_clock::time_point(std::chrono::seconds(1754049600))) ==
          "20250801T120000Z");
}

TEST_CASE("the authenticator uses Bearer on the data plane with an API key and V4 otherwise") {
    auto at = [] {
        return std::chrono::system_clock::time_point(std::chrono::seconds(1754049600));
    };
    Endpoint ep{"http", "127.0.0.1:8080"};
    Authenticator with_key({"k-123", "AKTEST", "SKTEST"}, "cn-beijing", at);
    auto data = with_key.build(Plane::Data, ep, "/api/vikingdb/data/upsert", "", "{}",
                               std::chrono::seconds(1));
    CHECK(data.headers.get("Authorization") == "Bearer k-123");
    CHECK_FALSE(data.headers.contains("X-Date"));
    CHECK(data.url == "http://127.0.0.1:8080/api/vikingdb/data/upsert");

    auto control =
        with_key.build(Plane::Control, ep, "/", "Action=GetVikingdbCollection&Version=2025-06-09",
                       "{}", std::chrono::seconds(1));
    CHECK(control.headers.get("Authorization")
              .rfind("HMAC-SHA256 Credential=AKTEST/20250801/cn-beijing/vikingdb/request, "
                     "SignedHeaders=content-type;host;x-content-sha256;x-date",
                     0) == 0);
    CHECK(control.headers.get("X-Date") == "20250801T120000Z");
    CHECK(control.url == "http://127.0.0.1:8080/?Action=GetVikingdbCollection&Version=2025-06-09");

    Authenticator aksk({"", "AKTEST", "SKTEST"}, "cn-beijing", at);
    auto signed_data =
        aksk.build(Plane::Data, ep, "/api/vikingdb/data/upsert", "", "{}", std::chrono::seconds(1));
    CHECK(signed_data.headers.get("Authorization")
              .find("SignedHeaders=content-type;x-content-sha256;x-date") != std::string::npos);
}
