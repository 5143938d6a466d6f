#include "sources/dingtalk/state_codec.h"

#include <catch2/catch.hpp>

#include "sources/dingtalk/api_client.h"
#include "sources/dingtalk/block_fetcher.h"
#include "sources/dingtalk/change_detector.h"
#include "sources/dingtalk/dingtalk_source.h"
#include "sources/dingtalk/token_cache.h"
#include "tests/unit/testdata.h"

using namespace cdcd;
using namespace cdcd::dingtalk;

namespace {

DocRef doc(std::string id, std::int64_t ms, std::string title = "t", std::string parent = "p") {
    DocRef d;
    d.node.id = std::move(id);
    d.node.modified_ms = ms;
    d.node.name = std::move(title);
    d.node.url = "https://alidocs.dingtalk.com/i/nodes/" + d.node.id;
    d.parent_node_id = std::move(parent);
    return d;
}

}  // namespace

TEST_CASE("state round-trips through its encoding") {
    SourceState s;
    s.include_raw_json = true;
    SplitState a;
    a.workspace_id = "wsA";
    a.root_node_id = "rootA";
    a.phase = Phase::Incremental;
    a.cursor_ms = 1783996860000;
    a.cursor_id = "doc\"2";
    a.docs["doc1"] = Fingerprint{1783996860000, 0xffffffffffffffffULL};
    a.docs["doc\"2"] = Fingerprint{-5, 0};
    a.docs["文档"] = fingerprint_of(doc("文档", 7));
    SplitState b;
    b.workspace_id = "wsB";
    b.root_node_id = "rootB";
    b.phase = Phase::Baseline;
    s.splits["wsA"] = a;
    s.splits["wsB"] = b;
    std::string text = encode_state(s);
    SourceState back = decode_state(text);
    CHECK(back == s);
    CHECK(encode_state(back) == text);
    CHECK(decode_state(encode_state(SourceState{})) == SourceState{});
}

TEST_CASE("malformed state is refused") {
    CHECK_THROWS_AS(decode_state("nope"), std::invalid_argument);
    CHECK_THROWS_AS(decode_state(R"({"v":2,"rawJson":false,"workspaces":[]})"),
                    std::invalid_argument);
    CHECK_THROWS_AS(
        decode_state(
            R"({"v":1,"rawJson":false,"workspaces":[{"id":"w","root":"r","phase":"odd","cursor":[0,""],"docs":[]}]})"),
        std::invalid_argument);
    CHECK_THROWS_AS(
        decode_state(
            R"({"v":1,"rawJson":false,"workspaces":[{"id":"w","root":"r","phase":"snapshot","cursor":[0,""],"docs":[["d",1,"xyz"]]}]})"),
        std::invalid_argument);
}

TEST_CASE("restore refuses a different scan.block.include-raw-json") {
    boost::asio::io_context io;
    DingTalkOptions o;
    o.app_key = "k";
    o.include_raw_json = false;
    DingTalkSource source(o, io);
    SourceState s;
    s.include_raw_json = true;
    try {
        source.restore(encode_state(s));
        FAIL("restore accepted a different include-raw-json");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()).find("scan.block.include-raw-json cannot change") !=
              std::string::npos);
    }
    s.include_raw_json = false;
    s.excluded.emplace();
    s.splits["w"].workspace_id = "w";
    s.splits["w"].docs["d"] = Fingerprint{1, 2};
    source.restore(encode_state(s));
    CHECK(source.snapshot_state() == encode_state(s));
    CHECK(source.describe_state(encode_state(s)).find("\"documents\":1") != std::string::npos);
}

TEST_CASE(
    "the exclusions honoured since the first discovery round-trip and older states have none") {
    SourceState s;
    s.excluded = std::set<std::string>{"folder\"1", "doc2"};
    CHECK(decode_state(encode_state(s)) == s);
    CHECK(!decode_state(R"({"v":1,"rawJson":false,"workspaces":[]})").excluded);
    CHECK_THROWS_AS(decode_state(R"({"v":1,"rawJson":false,"excluded":[1],"workspaces":[]})"),
                    std::invalid_argument);
}

TEST_CASE("exclusions added after the first discovery are not recorded as honoured") {
    boost::asio::io_context io;
    DingTalkOptions o;
    o.app_key = "k";
    o.exclude_node_ids = {"old", "added"};
    auto honoured_after_restore = [&](std::optional<std::set<std::string>> recorded) {
        DingTalkSource source(o, io);
        SourceState s;
        s.excluded = std::move(recorded);
        source.restore(encode_state(s));
        return decode_state(source.snapshot_state()).excluded;
    };
    // A first start honours every configured exclusion.
    CHECK(decode_state(DingTalkSource(o, io).snapshot_state()).excluded ==
          std::set<std::string>{"added", "old"});
    // `added` is new since the recorded discovery: late, so not honoured in full, now or later.
    CHECK(honoured_after_restore(std::set<std::string>{"old"}) == std::set<std::string>{"old"});
    CHECK(honoured_after_restore(std::set<std::string>{}) == std::set<std::string>{});
    // An id no longer configured is dropped.
    CHECK(honoured_after_restore(std::set<std::string>{"old", "removed"}) ==
          std::set<std::string>{"old"});
    // A state from before exclusions were recorded honours the configured ones.
    CHECK(honoured_after_restore(std::nullopt) == std::set<std::string>{"added", "old"});
}

TEST_CASE("change detection by fingerprint, ordered by modification time") {
    Fingerprints seen;
    seen["a"] = fingerprint_of(doc("a", 100));
    seen["b"] = fingerprint_of(doc("b", 200));
    seen["c"] = fingerprint_of(doc("c", 300));
    seen["gone"] = fingerprint_of(doc("gone", 50));
    std::vector<DocRef> now{doc("c", 300, "t", "moved"), doc("b", 200), doc("a", 150),
                            doc("new2", 120), doc("new1", 120)};
    auto changed = changed_documents(now, seen);
    REQUIRE(changed.size() == 4);
    CHECK(changed[0]->node.id == "new1");  // same time: by id
    CHECK(changed[1]->node.id == "new2");
    CHECK(changed[2]->node.id == "a");
    CHECK(changed[3]->node.id == "c");  // moved: same time, other parent
    auto retitled = now;
    retitled[1].node.name = "renamed";
    CHECK(changed_documents(retitled, seen).size() == 5);
    CHECK(vanished_documents(now, seen) == std::vector<std::string>{"gone"});
    CHECK(vanished_documents(now, seen, {"gone"}).empty());  // e.g. excluded, still present
    CHECK(meta_hash("ab", "c", "") != meta_hash("a", "bc", ""));
}

TEST_CASE("error classes follow the spec") {
    CHECK(classify_error(403, "Forbidden.AccessDenied.QpsLimitForAppkeyAndApi", "") ==
          ErrorClass::Transient);
    CHECK(classify_error(403, "Forbidden.AccessDenied.QpmLimitForAppkeyAndApi", "") ==
          ErrorClass::Transient);
    CHECK(classify_error(429, "systemBusy", "") == ErrorClass::Transient);
    CHECK(classify_error(503, "operationTimeout", "") == ErrorClass::Transient);
    CHECK(classify_error(404, "nodeNotExist", "") == ErrorClass::NotFound);
    CHECK(classify_error(404, "invalidRequest.document.deleted", "") == ErrorClass::NotFound);
    CHECK(classify_error(403, "forbidden.acrossOrg", "") == ErrorClass::Skip);
    CHECK(classify_error(403, "permissionDenied", "") == ErrorClass::Skip);
    CHECK(classify_error(400, "invalidRequest.inputArgs.invalid", "doc key is illegal") ==
          ErrorClass::Skip);
    CHECK(classify_error(403, "orgAuthLevelNotEnough", "") == ErrorClass::Fatal);
    CHECK(classify_error(403, "Forbidden.AccessDenied.AccessTokenPermissionDenied", "") ==
          ErrorClass::Fatal);
    CHECK(classify_error(400, "invalidClientIdOrSecret", "") == ErrorClass::Fatal);
    CHECK(classify_error(403, "Forbidden.AccessDenied.ApiCountLimitForOrg", "") ==
          ErrorClass::Fatal);
}

TEST_CASE("metadata parsing helpers") {
    CHECK(parse_iso8601_ms("2023-05-15T11:29Z") == 1684150140000);
    CHECK(parse_iso8601_ms("2024-01-02T00:00:00Z") == 1704153600000);
    CHECK(parse_iso8601_ms("2024-01-02T08:00:00.250+08:00") == 1704153600250);
    CHECK(parse_iso8601_ms("yesterday") == -1);
    Node before;
    before.modified_ms = 1;
    before.name = "a";
    Node after = before;
    CHECK(same_version(before, after));
    after.modified_ms = 2;
    CHECK(!same_version(before, after));
    CHECK(TokenCache::renew_after(std::chrono::seconds(7200)) == std::chrono::seconds(6900));
    CHECK(TokenCache::renew_after(std::chrono::seconds(10)) == std::chrono::seconds(8));
    Node sheet;
    sheet.type = "FILE";
    sheet.category = "ALIDOC";
    sheet.extension = "axls";
    CHECK(!sheet.is_document());
    sheet.extension = "adoc";
    CHECK(sheet.is_document());
    sheet.type = "FOLDER";
    CHECK(!sheet.is_document());
}

TEST_CASE("the fixed schema") {
    auto s = document_schema(false);
    CHECK(s.column_names() == std::vector<std::string>{"doc_id", "workspace_id", "parent_node_id",
                                                       "title", "url", "content", "modified_time"});
    CHECK(s.primary_keys() == std::vector<std::string>{"doc_id"});
    CHECK(!s.columns()[0].type.nullable());
    CHECK(!s.columns()[1].type.nullable());
    CHECK(s.columns()[6].type == DataType::timestamp_ltz(3));
    CHECK(document_schema(true).index_of("blocks_json") == 6);
    CHECK(table_for("ws1").str() == "ws1.documents");
}

TEST_CASE("states written before the state envelope restore") {
    SourceState s =
        decode_state(cdcd::testing::testdata("sources/dingtalk/testdata/checkpoint-state-v1.json"));
    CHECK_FALSE(s.include_raw_json);
    CHECK_FALSE(s.excluded);
    REQUIRE(s.splits.size() == 2);
    const SplitState& alpha = s.splits.at("ws-alpha");
    CHECK(alpha.root_node_id == "root-alpha");
    CHECK(alpha.phase == Phase::Incremental);
    CHECK(alpha.cursor_ms == 1710498030123);
    CHECK(alpha.cursor_id == "n-doc1");
    REQUIRE(alpha.docs.size() == 2);
    CHECK(alpha.docs.at("n-doc1").meta_hash == 0x9ae16a3b2f90404fULL);
    CHECK(alpha.docs.at("n-doc2").meta_hash == 1);
    REQUIRE(alpha.retries.size() == 1);
    CHECK(alpha.retries.at("n-big").failures == 3);
    CHECK(alpha.retries.at("n-big").next_ms == 1710498090000);
    CHECK(s.splits.at("ws-beta").phase == Phase::Snapshot);

    s = decode_state(cdcd::testing::testdata(
        "sources/dingtalk/testdata/checkpoint-state-v1-without-retry.json"));
    REQUIRE(s.splits.size() == 1);
    CHECK(s.splits.at("ws-alpha").docs.at("n-doc1").meta_hash == 0xdeadbeefULL);
    CHECK(s.splits.at("ws-alpha").retries.empty());
}

TEST_CASE("the state is version 1 of the connector state envelope, the earlier object inside") {
    std::string legacy =
        cdcd::testing::testdata("sources/dingtalk/testdata/checkpoint-state-v1.json");
    while (!legacy.empty() && legacy.back() == '\n') legacy.pop_back();
    const SourceState s = decode_state(legacy);
    const std::string blob = encode_state(s);
    CHECK(blob == R"({"connector":"dingtalk-cdc","version":1,"state":{)" +
                      legacy.substr(legacy.find("\"rawJson\"")) + "}");
    CHECK(decode_state(blob) == s);
    CHECK_THROWS_AS(decode_state(R"({"connector":"dingtalk-cdc","version":2,"state":{}})"),
                    std::invalid_argument);
    CHECK_THROWS_AS(decode_state(R"({"connector":"dingtalk-cdc","version":1,"state":{}})"),
                    std::invalid_argument);
}
