// DeadLetterFile: appended at each checkpoint, cut back to the committed length on restore, and
// never extended, overwritten or zero-filled when it is not the file the checkpoint describes.
#include "pipeline/runtime/dead_letter_file.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace cdcd;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        char tmpl[] = "/tmp/cdcd-dead-letter-XXXXXX";
        path = ::mkdtemp(tmpl);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("a fresh start creates the file and its directory, and commits append") {
    TempDir dir;
    fs::path path = dir.path / "dead-letter" / "p.jsonl";
    DeadLetterFile file(path.string());
    file.start_fresh();
    std::string first = file.commit("{\"a\":1}\n");
    CHECK(file.commit("") == first);  // nothing new: the same state
    file.commit("{\"b\":2}\n");
    CHECK(read(path) == "{\"a\":1}\n{\"b\":2}\n");
}

TEST_CASE("a fresh start keeps what the file already holds") {
    TempDir dir;
    fs::path path = dir.path / "p.jsonl";
    std::ofstream(path) << "earlier\n";
    DeadLetterFile file(path.string());
    file.start_fresh();
    file.commit("next\n");
    CHECK(read(path) == "earlier\nnext\n");
}

TEST_CASE("a restore cuts off what no checkpoint covers") {
    TempDir dir;
    fs::path path = dir.path / "p.jsonl";
    std::string state;
    {
        DeadLetterFile file(path.string());
        file.start_fresh();
        state = file.commit("one\n");
    }
    std::ofstream(path, std::ios::app) << "uncommitted\n";  // written, then a crash
    DeadLetterFile file(path.string());
    file.restore(state);
    file.commit("two\n");
    CHECK(read(path) == "one\ntwo\n");
}

TEST_CASE("a restore onto a missing, replaced or shorter file fails and writes nothing") {
    TempDir dir;
    fs::path path = dir.path / "p.jsonl";
    std::string state;
    {
        DeadLetterFile file(path.string());
        file.start_fresh();
        state = file.commit("a committed dead-letter line\n");
    }
    fs::rename(path, dir.path / "rotated.jsonl");
    DeadLetterFile missing(path.string());
    CHECK_THROWS_WITH(missing.restore(state), Catch::Contains(path.string()));
    CHECK(!fs::exists(path));

    std::ofstream(path) << "short\n";  // another file at the same path
    DeadLetterFile replaced(path.string());
    CHECK_THROWS_WITH(replaced.restore(state), Catch::Contains(path.string()));
    CHECK(read(path) == "short\n");
}
