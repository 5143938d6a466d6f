#include <catch2/catch.hpp>

#include "sources/oss/polling_reader.h"
#include "sources/oss/polling_state.h"
#include "sources/oss/table_id_mapper.h"

using namespace cdcd::oss;

namespace {
ObjectInfo obj(std::string key, std::string etag = "E", std::int64_t size = 1,
               std::int64_t mtime = 1000) {
    return ObjectInfo{std::move(key), std::move(etag), size, mtime};
}
KeyIndex index_of(const std::vector<ObjectInfo>& objects) {
    KeyIndex k;
    for (const auto& o : objects) k.append(o.key, object_fingerprint(o));
    return k;
}
}  // namespace

TEST_CASE("polling state codec round trip and compactness") {
    PollingState s;
    s.baseline_done = true;
    s.scans = 7;
    s.prefixes.resize(2);
    for (int i = 0; i < 100000; ++i) {
        char key[64];
        std::snprintf(key, sizeof key, "data/log/2026/11/30/obj-%08d.bin", i);
        s.prefixes[0].append(key, object_fingerprint("ETAG" + std::to_string(i), i, 1000 + i));
    }
    s.prefixes[1].append("z", 42);
    ByteWriter w;
    s.encode(w);
    std::string blob = w.str();
    // 35-byte keys front-coded: a few bytes of suffix + 8 fingerprint bytes + 2 length bytes.
    CHECK(blob.size() < 100000 * 16);
    ByteReader r(blob);
    PollingState back = PollingState::decode(r);
    CHECK(r.done());
    CHECK(back.baseline_done);
    CHECK(back.scans == 7);
    REQUIRE(back.prefixes.size() == 2);
    REQUIRE(back.prefixes[0].size() == 100000);
    for (std::size_t i = 0; i < 100000; i += 9973) {
        CHECK(back.prefixes[0].key(i) == s.prefixes[0].key(i));
        CHECK(back.prefixes[0].fingerprint(i) == s.prefixes[0].fingerprint(i));
    }
    CHECK(back.prefixes[1].key(0) == "z");
    CHECK(back.prefixes[0].find("data/log/2026/11/30/obj-00012345.bin") == 12345);
    CHECK(back.prefixes[0].find("nope") == KeyIndex::npos);
    // in memory: the key bytes plus 12 bytes per object
    CHECK(s.prefixes[0].memory_bytes() < 100000 * (35 + 12) * 2);
    ByteReader truncated(std::string_view(blob).substr(0, blob.size() - 3));
    CHECK_THROWS_AS(PollingState::decode(truncated), StateError);
}

TEST_CASE("key index refuses unordered keys") {
    KeyIndex k;
    k.append("b", 1);
    CHECK_THROWS_AS(k.append("a", 2), StateError);
    CHECK_THROWS_AS(k.append("b", 2), StateError);
}

TEST_CASE("fingerprints change with eTag, size or mtime") {
    auto base = object_fingerprint("E", 1, 1000);
    CHECK(base == object_fingerprint("E", 1, 1000));
    CHECK(base != object_fingerprint("F", 1, 1000));
    CHECK(base != object_fingerprint("E", 2, 1000));
    CHECK(base != object_fingerprint("E", 1, 1001));
}

namespace {
void apply_all(KeyIndex& next, const std::vector<ScanChange>& changes) {
    apply_emitted(next, changes.data(), changes.data() + changes.size());
    next.compact();
}
}  // namespace

TEST_CASE("prefix merge: new, changed, unchanged, deleted, the cache limit defers the rest") {
    KeyIndex old = index_of({obj("a"), obj("b"), obj("c"), obj("d")});
    SECTION("changes within budget") {
        PrefixMerge m(old, 10, true, true);
        for (const auto& o : {obj("a"), obj("b", "E2"), obj("bb"), obj("d")}) m.feed(o);
        KeyIndex next = m.finish();
        auto& ch = m.changes();
        REQUIRE(ch.size() == 3);
        CHECK((ch[0].kind == ScanChange::Kind::Upsert && ch[0].object.key == "b"));
        CHECK((ch[1].kind == ScanChange::Kind::Upsert && ch[1].object.key == "bb"));
        CHECK((ch[2].kind == ScanChange::Kind::Delete && ch[2].object.key == "c"));
        // Until emitted, every change is pending: b keeps its old fingerprint, bb is unemitted,
        // c is still tracked. A checkpoint now would find them all again.
        REQUIRE(next.size() == 5);
        CHECK(next.fingerprint(next.find("b")) == old.fingerprint(1));
        CHECK(next.fingerprint(next.find("bb")) == kUnemittedFingerprint);
        CHECK(next.find("c") != KeyIndex::npos);
        apply_emitted(next, ch.data(), ch.data() + 2);  // the first batch: b and bb
        CHECK(next.fingerprint(next.find("b")) == object_fingerprint(obj("b", "E2")));
        CHECK(next.fingerprint(next.find("bb")) == object_fingerprint(obj("bb")));
        CHECK(next.fingerprint(next.find("c")) == old.fingerprint(2));
        apply_emitted(next, ch.data() + 2, ch.data() + 3);  // the second: c's DELETE
        ByteWriter w;  // a checkpoint between the delete and the compaction leaves c out
        next.encode(w);
        ByteReader r(w.str());
        KeyIndex decoded = KeyIndex::decode(r);
        CHECK(decoded.size() == 4);
        CHECK(decoded.find("c") == KeyIndex::npos);
        next.compact();
        REQUIRE(next.size() == 4);
        CHECK(next.key(2) == "bb");
        CHECK(next.find("c") == KeyIndex::npos);
    }
    SECTION("deletes are not emitted without emit-deletes") {
        PrefixMerge m(old, 10, true, false);
        for (const auto& o : {obj("a"), obj("b"), obj("d")}) m.feed(o);
        KeyIndex next = m.finish();
        CHECK(m.changes().empty());
        CHECK(next.size() == 3);
    }
    SECTION("limit 1: the second change waits for the next scan") {
        PrefixMerge m(old, 1, true, true);
        for (const auto& o : {obj("a", "X"), obj("b", "Y"), obj("c"), obj("d"), obj("e")})
            m.feed(o);
        KeyIndex next = m.finish();
        REQUIRE(m.changes().size() == 1);
        CHECK(m.changes()[0].object.key == "a");
        CHECK(m.deferred() == 2);
        apply_all(next, m.changes());
        CHECK(next.fingerprint(next.find("b")) == old.fingerprint(1));     // still the old one
        CHECK(next.fingerprint(next.find("e")) == kUnemittedFingerprint);  // new, not emitted
        PrefixMerge again(next, 1, true, true);
        for (const auto& o : {obj("a", "X"), obj("b", "Y"), obj("c"), obj("d"), obj("e")})
            again.feed(o);
        again.finish();
        REQUIRE(again.changes().size() == 1);
        CHECK(again.changes()[0].object.key == "b");
    }
    SECTION("baseline records without changes") {
        KeyIndex empty;
        PrefixMerge m(empty, 1, false, true);
        for (const auto& o : {obj("a"), obj("b"), obj("c")}) m.feed(o);
        KeyIndex next = m.finish();
        CHECK(m.changes().empty());
        CHECK(next.size() == 3);
    }
}

TEST_CASE("table-id mapper") {
    TableIdMapper none("");
    CHECK(none.map("b1", "x/y")->str() == "b1");
    TableIdMapper one(R"(oss://[^/]+/([^/]+)/.*)");
    CHECK(one.map("b1", "logs/a.txt")->str() == "logs");
    CHECK_FALSE(one.map("b1", "top.txt"));
    TableIdMapper two(R"(oss://([^/]+)/([^/]+)/.*)");
    auto t2 = two.map("b1", "logs/a.txt");
    CHECK(t2->str() == "b1.logs");
    CHECK(t2->schema_name() == "b1");
    TableIdMapper three(R"(oss://([^/]+)/([^/]+)/([^/]+)/.*)");
    auto t3 = three.map("b1", "db/tbl/part-0.parquet");
    CHECK(t3->str() == "b1.db.tbl");
    CHECK(t3->namespace_name() == "b1");
    CHECK_FALSE(three.map("b1", "db/x"));
    CHECK_THROWS(TableIdMapper("no groups"));
    CHECK_THROWS(TableIdMapper("(a)(b)(c)(d)"));
    CHECK_THROWS(TableIdMapper("(unclosed"));
}

TEST_CASE("prefix merge: a prefix whose listing is empty deletes everything it tracked") {
    KeyIndex old = index_of({obj("q/gone"), obj("q/gone2")});
    PrefixMerge m(old, 2, true, true);
    KeyIndex next = m.finish();
    REQUIRE(m.changes().size() == 2);
    CHECK(m.changes()[1].kind == ScanChange::Kind::Delete);
    CHECK(next.size() == 2);  // until the DELETEs are emitted
    apply_all(next, m.changes());
    CHECK(next.size() == 0);
    PrefixMerge limited(old, 1, true, true);
    KeyIndex kept = limited.finish();
    CHECK(limited.changes().size() == 1);
    apply_all(kept, limited.changes());
    CHECK(kept.size() == 1);
    CHECK(kept.key(0) == "q/gone2");
}

TEST_CASE("prefix merge: a key listed but never emitted has no DELETE when it goes") {
    KeyIndex old;
    old.append("a", object_fingerprint(obj("a")));
    old.append("b", kUnemittedFingerprint);  // listed by a scan that stopped before its batch
    PrefixMerge m(old, 10, true, true);
    KeyIndex next = m.finish();
    REQUIRE(m.changes().size() == 1);
    CHECK(m.changes()[0].object.key == "a");
}

TEST_CASE("table-id mapper: the pattern is a Java regex, refused as every regex option refuses") {
    // Raw RE2 had no \p{Lower} and took (?U) as "ungreedy"; Java's dialect applies now.
    TableIdMapper posix(R"(oss://[^/]+/(\p{Lower}+)/.*)");
    CHECK(posix.map("b1", "logs/a.txt")->str() == "logs");
    CHECK_FALSE(posix.map("b1", "LOGS/a.txt"));
    CHECK_THROWS_WITH(TableIdMapper(R"(oss://(?U)([^/]+)/.*)"),
                      "`oss-key.to.table-id.matching.pattern`: unsupported regular expression "
                      "'oss://(?U)([^/]+)/.*': inline flag '(?U)' at index 6 is not supported: "
                      "RE2, which cdcd matches with, cannot run it");
}
