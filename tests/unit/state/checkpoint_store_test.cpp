#include "state/checkpoint_store.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/unit/state/raw_checkpoint.h"

using cdcd::state::Checkpoint;
using cdcd::state::CheckpointStore;

namespace {
std::string fresh_dir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("cdcd-state-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}
Checkpoint checkpoint(std::uint64_t id, std::string source_state) {
    Checkpoint c;
    c.id = id;
    c.created_ms = 1000 + static_cast<std::int64_t>(id);
    c.fingerprint["source.type"] = "values";
    c.parts["source"] = std::move(source_state);
    c.parts["sink/0"] = std::string("\0binary\xff", 8);
    return c;
}
}  // namespace

TEST_CASE("the latest checkpoint of a pipeline survives reopening the store") {
    auto dir = fresh_dir("reopen");
    {
        auto store = CheckpointStore::open(dir);
        store->write("orders", checkpoint(1, "pos=10"), 3);
        store->write("orders", checkpoint(2, "pos=20"), 3);
        store->write("other", checkpoint(7, "x"), 3);
    }
    auto store = CheckpointStore::open(dir);
    auto latest = store->latest("orders");
    REQUIRE(latest);
    CHECK(latest->id == 2);
    CHECK(latest->parts.at("source") == "pos=20");
    CHECK(latest->parts.at("sink/0") == std::string("\0binary\xff", 8));
    CHECK(latest->fingerprint.at("source.type") == "values");
    CHECK(store->latest("other")->id == 7);
    CHECK_FALSE(store->latest("none"));
    CHECK(store->pipelines() == std::vector<std::string>{"orders", "other"});
    store.reset();
    std::filesystem::remove_all(dir);
}

TEST_CASE("only the newest num-retained checkpoints are kept") {
    auto dir = fresh_dir("retain");
    auto store = CheckpointStore::open(dir);
    for (std::uint64_t id = 1; id <= 12; ++id)
        store->write("p", checkpoint(id, std::to_string(id)), 3);
    auto all = store->list("p");
    REQUIRE(all.size() == 3);
    CHECK(all[0].id == 10);
    CHECK(all[2].id == 12);
    CHECK(store->get("p", 11)->parts.at("source") == "11");
    CHECK_FALSE(store->get("p", 9));
    store->reset("p");
    CHECK_FALSE(store->latest("p"));
    store.reset();
    std::filesystem::remove_all(dir);
}

TEST_CASE("a pipeline name that prefixes another does not see its checkpoints") {
    auto dir = fresh_dir("prefix");
    auto store = CheckpointStore::open(dir);
    store->write("ab", checkpoint(5, "ab"), 3);
    CHECK_FALSE(store->latest("a"));
    store->write("a", checkpoint(1, "a"), 3);
    CHECK(store->latest("a")->parts.at("source") == "a");
    CHECK(store->latest("ab")->parts.at("source") == "ab");
    store.reset();
    std::filesystem::remove_all(dir);
}

TEST_CASE("corrupt bytes are refused with a clear error") {
    CHECK_THROWS_WITH(CheckpointStore::decode("abc"), Catch::Contains("truncated"));
}

TEST_CASE("a read-only open works while another instance holds the directory") {
    auto dir = fresh_dir("secondary");
    auto primary = CheckpointStore::open(dir);
    // A second primary is refused by RocksDB's lock: that is what the read-only open avoids.
    CHECK_THROWS_AS(CheckpointStore::open(dir), cdcd::state::StateError);
    primary->write("orders", checkpoint(1, "pos=10"), 3);
    primary->write("orders", checkpoint(2, "pos=20"), 3);
    {
        auto reader = CheckpointStore::open_read_only(dir);
        REQUIRE(reader->latest("orders"));
        CHECK(reader->latest("orders")->parts.at("source") == "pos=20");
        CHECK(reader->list("orders").size() == 2);
        CHECK_THROWS_AS(reader->write("orders", checkpoint(3, "x"), 3), cdcd::state::StateError);
        CHECK_THROWS_AS(reader->reset("orders"), cdcd::state::StateError);
    }
    // Writes of the running primary made after a previous reader closed are seen by the next
    // one (many, so that memtables flush and the WAL rolls while it is open).
    std::string big(64 * 1024, 'x');
    for (std::uint64_t id = 3; id <= 200; ++id)
        primary->write("orders", checkpoint(id, big + std::to_string(id)), 3);
    auto reader = CheckpointStore::open_read_only(dir);
    auto latest = reader->latest("orders");
    REQUIRE(latest);
    CHECK(latest->id == 200);
    CHECK(latest->parts.at("source") == big + "200");
    CHECK(reader->list("orders").size() == 3);
    // The primary keeps writing while the reader is open.
    primary->write("orders", checkpoint(201, "pos=201"), 3);
    CHECK(primary->latest("orders")->id == 201);
    reader.reset();
    primary.reset();
    std::filesystem::remove_all(dir);
}

TEST_CASE("a read-only open of a directory without state fails and creates nothing") {
    auto dir = fresh_dir("secondary-missing");
    CHECK_THROWS_WITH(CheckpointStore::open_read_only(dir), Catch::Contains("no state in " + dir));
    CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("discarding newer checkpoints keeps their ids used, reset forgets them") {
    auto dir = fresh_dir("discard");
    auto store = CheckpointStore::open(dir);
    CHECK(store->highest_id("p") == 0);
    for (std::uint64_t id = 1; id <= 6; ++id)
        store->write("p", checkpoint(id, std::to_string(id)), 4);
    store->write("q", checkpoint(9, "q"), 4);
    CHECK(store->highest_id("p") == 6);
    store->discard_newer("p", 4);
    std::vector<std::uint64_t> ids;
    for (const auto& c : store->list("p")) ids.push_back(c.id);
    CHECK(ids == std::vector<std::uint64_t>{3, 4});
    CHECK(store->latest("p")->id == 4);
    CHECK(store->highest_id("p") == 6);  // 5 and 6 are gone but were used
    CHECK(store->pipelines() == std::vector<std::string>{"p", "q"});
    store->discard_newer("p", 0);
    CHECK(store->list("p").empty());
    CHECK(store->highest_id("p") == 6);
    CHECK(store->latest("q")->id == 9);
    store.reset();
    store = CheckpointStore::open(dir);  // durable
    CHECK(store->highest_id("p") == 6);
    store->write("p", checkpoint(7, "7"), 4);
    CHECK(store->highest_id("p") == 7);
    store->reset("p");
    CHECK(store->highest_id("p") == 0);
    CHECK(store->highest_id("q") == 9);
    store.reset();
    std::filesystem::remove_all(dir);
}

TEST_CASE("an undecodable checkpoint is reported by scan, and blocks neither writes nor reset") {
    auto dir = fresh_dir("undecodable");
    {
        auto store = CheckpointStore::open(dir);
        store->write("p", checkpoint(1, "pos=1"), 3);
        store->write("p", checkpoint(2, "pos=2"), 3);
    }
    // Checkpoint 3 is damaged; 2 claims to be another checkpoint than its key says.
    cdcd::test::put_raw_checkpoint(dir, "p", 3, "garbage");
    cdcd::test::put_raw_checkpoint(dir, "p", 4, CheckpointStore::encode(checkpoint(9, "x")));
    auto store = CheckpointStore::open(dir);
    auto stored = store->scan("p");
    REQUIRE(stored.size() == 4);
    CHECK(stored[1].checkpoint->parts.at("source") == "pos=2");
    CHECK(stored[2].id == 3);
    CHECK_FALSE(stored[2].checkpoint);
    CHECK_THAT(stored[2].error, Catch::Contains("truncated"));
    CHECK(stored[3].id == 4);
    CHECK_FALSE(stored[3].checkpoint);
    CHECK_THAT(stored[3].error, Catch::Contains("checkpoint 9"));
    CHECK_THROWS_WITH(store->list("p"), Catch::Contains("checkpoint 3 of pipeline 'p' in " + dir));
    CHECK(store->highest_id("p") == 4);
    // Retention drops the damaged ones like any other, without decoding them.
    store->write("p", checkpoint(5, "pos=5"), 2);
    CHECK(store->ids("p") == std::vector<std::uint64_t>{4, 5});
    store->discard_newer("p", 0);
    CHECK(store->ids("p").empty());
    store.reset();
    cdcd::test::put_raw_checkpoint(dir, "p", 6, "");
    store = CheckpointStore::open(dir);
    store->reset("p");
    CHECK(store->scan("p").empty());
    CHECK(store->highest_id("p") == 0);
    store.reset();  // closed first: RocksDB's background threads may still delete files in dir
    std::filesystem::remove_all(dir);
}

TEST_CASE("bytes after a checkpoint's end or an unknown format version do not decode") {
    std::string bytes = CheckpointStore::encode(checkpoint(1, "pos=1"));
    CHECK_THROWS_WITH(CheckpointStore::decode(bytes + "x"), Catch::Contains("1 bytes after"));
    bytes[0] = 2;
    CHECK_THROWS_AS(CheckpointStore::decode(bytes), cdcd::state::StateCorruption);
}

TEST_CASE("a directory whose RocksDB files are damaged fails to open as corrupt, naming it") {
    auto dir = fresh_dir("damaged");
    CheckpointStore::open(dir)->write("p", checkpoint(1, "pos=1"), 3);
    std::ofstream(std::filesystem::path(dir) / "CURRENT", std::ios::trunc) << "garbage";
    CHECK_THROWS_AS(CheckpointStore::open(dir), cdcd::state::StateCorruption);
    CHECK_THROWS_WITH(
        CheckpointStore::open(dir),
        Catch::Contains("cannot open state directory " + dir) && Catch::Contains("--reset-state"));
    auto aside = cdcd::state::move_state_dir_aside(dir);
    CHECK(aside.starts_with(dir + ".corrupt-"));
    CHECK(std::filesystem::exists(std::filesystem::path(aside) / "CURRENT"));
    CHECK_FALSE(std::filesystem::exists(dir));
    std::filesystem::remove_all(aside);
}
