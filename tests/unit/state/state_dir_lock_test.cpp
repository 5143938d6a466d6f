#include "state/state_dir_lock.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "state/checkpoint_store.h"

using cdcd::state::StateDirLock;

namespace {
std::string fresh_dir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("cdcd-lock-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}
}  // namespace

TEST_CASE("a state directory is locked by one holder at a time, named by its pid") {
    auto dir = fresh_dir("held");
    {
        StateDirLock first = StateDirLock::acquire(dir);  // creates the directory
        CHECK(first.held());
        std::string pid;
        std::ifstream(std::filesystem::path(dir) / "cdcd.lock") >> pid;
        CHECK(pid == std::to_string(::getpid()));
        // flock locks conflict between open files, even within one process.
        CHECK_THROWS_WITH(StateDirLock::acquire(dir),
                          Catch::Contains("state directory " + dir +
                                          " is in use by another cdcd process (pid " + pid + ")"));
        StateDirLock moved = std::move(first);
        CHECK(moved.held());
        CHECK_THROWS_AS(StateDirLock::acquire(dir), cdcd::state::StateError);
    }
    // Released with its holder: the next one gets it.
    CHECK(StateDirLock::acquire(dir).held());
    std::filesystem::remove_all(dir);
}

TEST_CASE("a state directory that is a file is refused, naming it") {
    auto dir = fresh_dir("file");
    std::ofstream(dir) << "not a directory";
    CHECK_THROWS_WITH(StateDirLock::acquire(dir),
                      Catch::Contains("state directory " + dir + " is not a directory"));
    std::filesystem::remove(dir);
}

TEST_CASE("the lock does not keep the read-only checkpoint tool out") {
    auto dir = fresh_dir("reader");
    StateDirLock lock = StateDirLock::acquire(dir);
    auto store = cdcd::state::CheckpointStore::open(dir);
    cdcd::state::Checkpoint c;
    c.id = 1;
    store->write("p", c, 3);
    CHECK(cdcd::state::CheckpointStore::open_read_only(dir)->latest("p")->id == 1);
    store.reset();
    std::filesystem::remove_all(dir);
}

TEST_CASE("a state directory deleted, moved away or replaced while held is noticed") {
    using Catch::Matchers::Contains;
    namespace fs = std::filesystem;
    auto dir = fresh_dir("in-place");
    StateDirLock lock = StateDirLock::acquire(dir);
    CHECK_NOTHROW(lock.check_in_place());
    fs::rename(dir, dir + ".moved");
    CHECK_THROWS_WITH(lock.check_in_place(), Contains("state directory " + dir) &&
                                                 Contains("was moved away") &&
                                                 Contains("start from the sources' startup modes"));
    fs::create_directories(dir);
    std::ofstream(fs::path(dir) / "cdcd.lock") << "";
    CHECK_THROWS_WITH(lock.check_in_place(), Contains("was replaced"));
    fs::remove_all(dir);
    fs::rename(dir + ".moved", dir);
    CHECK_NOTHROW(lock.check_in_place());  // put back
    fs::remove_all(dir);
    CHECK_THROWS_WITH(lock.check_in_place(), Contains("was deleted"));
}
