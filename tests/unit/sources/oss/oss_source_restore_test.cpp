// Restoring an oss-cdc checkpoint: a phase the current settings cannot run is refused with a
// StateError naming the phase and the options it needs, never left to crash when the phase
// starts; a phase value or a key count the bytes do not back is refused while decoding.
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "sources/oss/oss_source.h"
#include "tests/unit/testdata.h"

using namespace cdcd;
using namespace cdcd::oss;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string state_of(std::uint64_t phase, const SnapshotProgress& snapshot = {}) {
    ByteWriter w;
    w.varint(1);  // version
    w.varint(phase);
    snapshot.encode(w);
    MnsState{}.encode(w);
    PollingState{}.encode(w);
    return w.str();
}

constexpr std::uint64_t kSnapshot = 1;
constexpr std::uint64_t kIncremental = 2;

OssSettings mns_only() {
    OssSettings s;  // MNS, COMMITTED_OFFSET: valid without any OSS option
    s.mns_endpoint = "http://127.0.0.1:1";
    s.mns_region = "cn-hangzhou";
    s.mns_queue = "q1";
    return s;
}

OssSettings oss_snapshot_only() {
    OssSettings s;  // MNS, SNAPSHOT: valid without any MNS option
    s.startup = StartupMode::Snapshot;
    s.oss_endpoint = "http://127.0.0.1:1";
    s.oss_region = "cn-hangzhou";
    s.oss_bucket = "b1";
    return s;
}

void restore(OssSettings settings, const std::string& state) {
    boost::asio::io_context io;
    OssSource source(io, std::move(settings));
    source.restore(state);
}

}  // namespace

TEST_CASE("a snapshot-phase checkpoint needs oss-endpoint and oss-bucket to resume") {
    SnapshotProgress at{0, "obj-00002999", 3000};
    CHECK_THROWS_WITH(
        restore(mns_only(), state_of(kSnapshot, at)),
        Contains("during the snapshot phase (at prefix 1, 3000 objects emitted)") &&
            Contains("needs `oss-endpoint` and `oss-bucket`") &&
            Contains("scan.incremental.mode MNS with scan.startup.mode COMMITTED_OFFSET") &&
            Contains("--reset-state"));
    // Only the bucket missing: only the bucket named.
    OssSettings no_bucket = mns_only();
    no_bucket.oss_endpoint = "http://127.0.0.1:1";
    CHECK_THROWS_WITH(restore(no_bucket, state_of(kSnapshot, at)), Contains("needs `oss-bucket`,"));
    // With OSS access, resuming the snapshot in MNS mode is legitimate (INITIAL's snapshot).
    OssSettings with_oss = mns_only();
    with_oss.oss_endpoint = "http://127.0.0.1:1";
    with_oss.oss_bucket = "b1";
    CHECK_NOTHROW(restore(with_oss, state_of(kSnapshot, at)));
}

TEST_CASE("a snapshot position past the configured prefixes names `path`") {
    OssSettings s = oss_snapshot_only();
    s.paths = {"a/", "b/"};
    CHECK_THROWS_WITH(restore(s, state_of(kSnapshot, {5, "k", 10})),
                      Contains("at prefix 6") && Contains("`path` lists 2 prefix(es) now"));
    // Every prefix listed (the checkpoint fell between the last page and the phase change).
    CHECK_NOTHROW(restore(s, state_of(kSnapshot, {2, "", 10})));
}

TEST_CASE("a snapshot prefix index wider than 32 bits is refused, not narrowed") {
    ByteWriter w;
    w.varint((1ULL << 32) + 1);  // would narrow to prefix 1
    w.bytes("k");
    w.varint(10);
    ByteReader r(w.str());
    CHECK_THROWS_WITH(SnapshotProgress::decode(r),
                      Contains("prefix index 4294967297 out of range"));
}

TEST_CASE("an incremental MNS checkpoint needs the MNS options to resume") {
    CHECK_THROWS_WITH(restore(oss_snapshot_only(), state_of(kIncremental)),
                      Contains("during the incremental phase") &&
                          Contains("needs `mns.endpoint` and `mns.queue-name`") &&
                          Contains("scan.startup.mode SNAPSHOT") && Contains("--reset-state"));
    CHECK_NOTHROW(restore(mns_only(), state_of(kIncremental)));
}

TEST_CASE("an incremental POLLING checkpoint needs oss-endpoint") {
    OssSettings s;
    s.mode = IncrementalMode::Polling;
    s.startup = StartupMode::LatestOffset;
    CHECK_THROWS_WITH(restore(s, state_of(kIncremental)),
                      Contains("incremental phase") && Contains("needs `oss-endpoint`"));
}

TEST_CASE("a phase value out of range is refused, also one that wraps to a known phase") {
    CHECK_THROWS_WITH(restore(mns_only(), state_of(4)), Contains("unknown phase 4"));
    // 256 and 258 fit an 8-bit phase as start and incremental once cast.
    CHECK_THROWS_WITH(restore(mns_only(), state_of(256)), Contains("unknown phase 256"));
    CHECK_THROWS_WITH(restore(oss_snapshot_only(), state_of(258)), Contains("unknown phase 258"));
}

TEST_CASE("a key count the remaining bytes cannot hold is refused before allocating") {
    ByteWriter w;
    w.varint(1ULL << 32);  // keys
    w.varint(1ULL << 32);  // key bytes
    w.raw(std::string(100, '\0'));
    ByteReader r(w.str());
    CHECK_THROWS_WITH(KeyIndex::decode(r),
                      Contains("4294967296 keys declared, but 100 bytes remain"));
    // A plausible count still decodes.
    KeyIndex k;
    k.append("a", 7);  // 0 and 1 are markers (polling_state.h)
    k.append("ab", 8);
    ByteWriter ok;
    k.encode(ok);
    ByteReader back(ok.str());
    CHECK(KeyIndex::decode(back).size() == 2);
}

namespace {

OssSettings polling_with_oss() {
    OssSettings s;
    s.mode = IncrementalMode::Polling;
    s.startup = StartupMode::Initial;
    s.oss_endpoint = "http://127.0.0.1:1";
    s.oss_region = "cn-hangzhou";
    s.oss_bucket = "b1";
    return s;
}

std::string golden(const char* name) {
    return cdcd::testing::from_hex(
        cdcd::testing::testdata(std::string("sources/oss/testdata/") + name));
}

/// The source's state after restoring `state`, as `cdcd checkpoints show` describes it.
std::string described_after_restore(OssSettings settings, const std::string& state) {
    boost::asio::io_context io;
    OssSource source(io, std::move(settings));
    source.restore(state);
    return source.describe_state(source.snapshot_state());
}

}  // namespace

TEST_CASE("states written before the state envelope restore, phase and position") {
    CHECK_THAT(
        described_after_restore(polling_with_oss(), golden("checkpoint-state-v1-polling.hex")),
        Contains("\"phase\":\"incremental\"") &&
            Contains("\"polling\":{\"baseline_done\":true,\"scans\":7,\"objects\":4"));
    CHECK_THAT(
        described_after_restore(oss_snapshot_only(), golden("checkpoint-state-v1-snapshot.hex")),
        Contains("\"phase\":\"snapshot\"") &&
            Contains("{\"prefix_index\":1,\"start_after\":\"q/0042.json\",\"emitted\":42}"));
    CHECK_THAT(described_after_restore(mns_only(), golden("checkpoint-state-v1-mns.hex")),
               Contains("\"phase\":\"incremental\"") &&
                   Contains("\"mns\":{\"skip_before_ms\":1700000000000}"));
}

TEST_CASE("the state is version 2 of the connector state envelope and restores to itself") {
    for (const char* name : {"checkpoint-state-v1-polling.hex", "checkpoint-state-v1-snapshot.hex",
                             "checkpoint-state-v1-mns.hex"}) {
        INFO(name);
        const std::string kind = name;
        OssSettings settings = kind.find("mns") != std::string::npos        ? mns_only()
                               : kind.find("snapshot") != std::string::npos ? oss_snapshot_only()
                                                                            : polling_with_oss();
        boost::asio::io_context io;
        OssSource legacy(io, settings);
        legacy.restore(golden(name));
        const std::string state = legacy.snapshot_state();
        CHECK_THAT(state, StartsWith(R"({"connector":"oss-cdc","version":2,"state":{"phase":")"));
        OssSource again(io, settings);
        again.restore(state);
        CHECK(again.snapshot_state() == state);
        // Everything the binary state held survives: the description differs in version and size.
        auto without_version = [](std::string d) {
            d.erase(0, d.find("\"phase\""));
            return d.substr(0, d.find("\"state_bytes\""));
        };
        CHECK(without_version(again.describe_state(state)) ==
              without_version(legacy.describe_state(golden(name))));
    }
}

TEST_CASE("an enveloped state keeps the polling index compact (base64 of its binary form)") {
    PollingState polling;
    polling.baseline_done = true;
    polling.prefixes.emplace_back();
    for (int i = 0; i < 10'000; ++i) {
        char key[48];
        std::snprintf(key, sizeof key, "logs/2026/12/02/part-%06d.json", i);
        polling.prefixes.back().append(key, 0x0123456789abcdefULL + static_cast<std::uint64_t>(i));
    }
    ByteWriter binary;
    polling.encode(binary);
    const std::string state =
        encode_state(SourcePhase::Incremental, SnapshotProgress{}, MnsState{}, polling);
    CHECK(state.size() < binary.str().size() * 4 / 3 + 300);
    SourceState back = decode_state(state);
    REQUIRE(back.polling.prefixes.size() == 1);
    CHECK(back.polling.prefixes[0].size() == 10'000);
    CHECK(back.polling.prefixes[0].key(9'999) == "logs/2026/12/02/part-009999.json");
    CHECK(back.polling.prefixes[0].fingerprint(9'999) == 0x0123456789abcdefULL + 9'999);
}

TEST_CASE("a malformed enveloped state is refused with a StateError naming the field") {
    auto state = [](const std::string& payload) {
        return R"({"connector":"oss-cdc","version":2,"state":)" + payload + "}";
    };
    const std::string rest =
        R"("snapshot":{"prefix_index":0,"start_after_base64":"","emitted":0},)"
        R"("mns":{"skip_before_ms":0},"polling":{"baseline_done":false,"scans":0,"prefixes":["!"]}})";
    CHECK_THROWS_AS(decode_state(state(R"({"phase":"incremental",)" + rest)), StateError);
    CHECK_THROWS_WITH(
        decode_state(state(R"({"phase":"incremental",)" + rest)),
        Contains("oss-cdc checkpoint state: field \"polling.prefixes\" is not base64"));
    CHECK_THROWS_WITH(decode_state(state(R"({"phase":"later",)" + rest)),
                      Contains("unknown phase 'later'"));
    CHECK_THROWS_WITH(decode_state(state(R"({"phase":"done"})")),
                      Contains("field \"snapshot\" is missing"));
}
