// AppendOnlyFile: a fresh start onto an existing file fails, appends or overwrites as told; a
// resume cuts only what followed the committed prefix of the very file the state names, and
// refuses (leaving the file as it found it) a file deleted, replaced, shortened or rewritten.
#include "pipeline/output/append_only_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using Catch::Matchers::Contains;
using cdcd::output::AppendOnlyFile;
using cdcd::output::IfExists;
using cdcd::output::OutputFileError;

namespace {

namespace fs = std::filesystem;

class TempDir {
  public:
    TempDir() {
        static int counter = 0;
        dir_ = fs::temp_directory_path() / ("cdcd-append-only-file-" + std::to_string(::getpid()) +
                                            "-" + std::to_string(++counter));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    ~TempDir() { fs::remove_all(dir_); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string file(const std::string& name) const { return (dir_ / name).string(); }

  private:
    fs::path dir_;
};

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void write(const std::string& path, const std::string& content) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

std::uint64_t inode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_ino;
}

/// A file holding "committed\n" (committed) and "pending" (appended after the commit), closed
/// as a crash would leave it; returns the committed state.
std::string committed_then_pending(const std::string& path) {
    auto file = AppendOnlyFile::open_fresh(path, IfExists::Fail, "if-exists");
    file.append("committed\n");
    std::string state = file.commit();
    file.append("pending");
    return state;
}

/// A fresh file at `path` holding `content`, committed, and still open.
AppendOnlyFile committed(const std::string& path, const std::string& content) {
    auto file = AppendOnlyFile::open_fresh(path, IfExists::Fail, "if-exists");
    file.append(content);
    file.commit();
    return file;
}

/// Whether the file system reports the holes of `path` (which has one at its start).
bool reports_holes(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
    ::close(fd);
    return hole == 0;
}

}  // namespace

TEST_CASE("append-only file: a fresh start creates a missing file") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    auto file = AppendOnlyFile::open_fresh(path, IfExists::Fail, "if-exists");
    file.append("a\n");
    file.commit();
    CHECK(read(path) == "a\n");
    CHECK(file.length() == 2);
}

TEST_CASE("append-only file: a fresh start onto an empty existing file takes it") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    write(path, "");
    auto file = AppendOnlyFile::open_fresh(path, IfExists::Fail, "if-exists");
    file.append("a\n");
    CHECK(read(path) == "a\n");
}

TEST_CASE("append-only file: a fresh start onto a non-empty file fails, naming file and option") {
    TempDir dir;
    auto path = dir.file("precious.txt");
    write(path, "not cdcd's\n");
    CHECK_THROWS_WITH(AppendOnlyFile::open_fresh(path, IfExists::Fail, "the option if-exists"),
                      Contains(path) && Contains("not empty (11 bytes)") &&
                          Contains("set the option if-exists to append") &&
                          Contains("left untouched"));
    CHECK(read(path) == "not cdcd's\n");
}

TEST_CASE("append-only file: a fresh start told to append writes after the existing content") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    write(path, "kept\n");
    std::string state;
    {
        auto file = AppendOnlyFile::open_fresh(path, IfExists::Append, "if-exists");
        CHECK(file.length() == 5);
        file.append("new\n");
        state = file.commit();
        CHECK(read(path) == "kept\nnew\n");
        file.append("uncommitted");
    }  // closed, as by a crash
    // Its state resumes like any other: the appended-to file is now this writer's own.
    auto resumed = AppendOnlyFile::resume(path, state);
    CHECK(read(path) == "kept\nnew\n");
}

TEST_CASE("append-only file: a fresh start told to overwrite empties the file") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    write(path, "old content\n");
    auto file = AppendOnlyFile::open_fresh(path, IfExists::Overwrite, "if-exists");
    CHECK(file.length() == 0);
    file.append("new\n");
    CHECK(read(path) == "new\n");
}

TEST_CASE("append-only file: a resume cuts only the bytes after the committed length") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    std::string state = committed_then_pending(path);
    REQUIRE(read(path) == "committed\npending");
    std::string next;
    {
        auto file = AppendOnlyFile::resume(path, state);
        CHECK(read(path) == "committed\n");
        CHECK(file.length() == 10);
        file.append("next\n");
        next = file.commit();
        CHECK(read(path) == "committed\nnext\n");
    }
    // The new state describes the longer prefix (and its new tail).
    auto again = AppendOnlyFile::resume(path, next);
    CHECK(again.length() == 15);
}

TEST_CASE("append-only file: a resume with nothing past the committed length changes nothing") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    std::string state;
    {
        auto file = AppendOnlyFile::open_fresh(path, IfExists::Fail, "if-exists");
        file.append(std::string(10000, 'x') + "\n");
        state = file.commit();
    }
    auto file = AppendOnlyFile::resume(path, state);
    CHECK(read(path) == std::string(10000, 'x') + "\n");
}

TEST_CASE("append-only file: a resume refuses a deleted file and does not create it") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    std::string state = committed_then_pending(path);
    fs::remove(path);
    CHECK_THROWS_AS(AppendOnlyFile::resume(path, state), OutputFileError);
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, state),
                      Contains(path) && Contains("does not exist") &&
                          Contains("10 bytes committed") && Contains("--reset-state"));
    CHECK_FALSE(fs::exists(path));
}

TEST_CASE("append-only file: a resume refuses another file at the path (rotated or replaced)") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    std::string state = committed_then_pending(path);
    // Rotation: the old file moves away (keeping its inode busy) and a new one takes its name,
    // longer than the committed length and starting with the same bytes.
    fs::rename(path, path + ".1");
    write(path, "committed\nsomeone else's data\n");
    REQUIRE(inode_of(path) != inode_of(path + ".1"));
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, state),
                      Contains(path) && Contains("is not the file") &&
                          Contains("expected 10 bytes committed to inode " +
                                   std::to_string(inode_of(path + ".1"))) &&
                          Contains("found inode " + std::to_string(inode_of(path))) &&
                          Contains("left untouched"));
    CHECK(read(path) == "committed\nsomeone else's data\n");
}

TEST_CASE("append-only file: a resume refuses a file shorter than committed, never zero-fills") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    std::string state = committed_then_pending(path);
    fs::resize_file(path, 4);
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, state), Contains(path) && Contains("shorter") &&
                                                               Contains("4 bytes") &&
                                                               Contains("does not fill the gap"));
    CHECK(read(path) == "comm");
}

TEST_CASE("append-only file: a resume refuses a file whose committed tail was rewritten") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    std::string state = committed_then_pending(path);
    // Same inode, same length: only the content differs (an editor that writes in place).
    {
        int fd = ::open(path.c_str(), O_WRONLY);
        REQUIRE(fd >= 0);
        REQUIRE(::pwrite(fd, "C", 1, 0) == 1);
        ::close(fd);
    }
    CHECK_THROWS_WITH(
        AppendOnlyFile::resume(path, state),
        Contains(path) && Contains("differ from what cdcd wrote") && Contains("CRC-32C"));
    CHECK(read(path) == "Committed\npending");
}

TEST_CASE("append-only file: the tail checksum covers the last 4 KiB before the committed length") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    std::string state;
    {
        auto file = AppendOnlyFile::open_fresh(path, IfExists::Fail, "if-exists");
        file.append(std::string(3000, 'a'));
        file.append(std::string(3000, 'b'));  // the tail spans both appends
        state = file.commit();
    }
    int fd = ::open(path.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::pwrite(fd, "X", 1, 6000 - AppendOnlyFile::kTailBytes) == 1);
    ::close(fd);
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, state), Contains("differ from what cdcd wrote"));
}

TEST_CASE("append-only file: an older cdcd's state (a bare length) still resumes") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    write(path, "committed\npending");
    auto file = AppendOnlyFile::resume(path, "10");
    CHECK(read(path) == "committed\n");
    // Its next state carries the identity.
    CHECK_THAT(file.state(), Contains("\"inode\":" + std::to_string(inode_of(path))));
}

TEST_CASE("append-only file: an older cdcd's state never extends a shorter file with zeros") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    write(path, "new file\n");
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, "1000"),
                      Contains(path) && Contains("shorter") && Contains("1000 bytes committed"));
    CHECK(read(path) == "new file\n");
    fs::remove(path);
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, "1000"), Contains("does not exist"));
    CHECK_FALSE(fs::exists(path));
}

TEST_CASE("append-only file: an unreadable state is refused, naming the file") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    write(path, "x");
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, "{\"format\":\"other\"}"),
                      Contains(path) && Contains("unreadable checkpoint state"));
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, "-3"), Contains("unreadable checkpoint state"));
    CHECK(read(path) == "x");
}

TEST_CASE("append-only file: a commit fails once the file was deleted while written") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    auto file = committed(path, "a\n");
    fs::remove(path);  // the rows appended from here on go to a file nobody can see
    file.append("b\n");
    CHECK_THROWS_WITH(file.commit(), Contains(path) && Contains("4 bytes written") &&
                                         Contains("was deleted while cdcd wrote it") &&
                                         Contains("this checkpoint is not taken"));
}

TEST_CASE("append-only file: a commit fails once the file was moved away or replaced") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    auto file = committed(path, "a\n");
    fs::rename(path, path + ".1");  // rotated
    file.append("b\n");
    CHECK_THROWS_WITH(file.commit(), Contains("was moved away while cdcd wrote it"));
    write(path, "");  // ... and a new file created in its place
    CHECK_THROWS_WITH(file.commit(), Contains("was replaced by another file (inode " +
                                              std::to_string(inode_of(path)) + ")"));
    // Once the file is back, commits go on.
    fs::rename(path + ".1", path);
    file.append("c\n");
    file.commit();
    CHECK(read(path) == "a\nb\nc\n");
}

TEST_CASE("append-only file: a commit fails once the file was truncated while written") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    auto file = committed(path, std::string(3 * 4096, 'a'));
    // copytruncate: cut where it stands...
    REQUIRE(::truncate(path.c_str(), 0) == 0);
    CHECK_THROWS_WITH(file.commit(), Contains("was truncated to 0 bytes while cdcd wrote it"));
    // ... and written on past the cut: zeros (a hole) where cdcd's bytes were.
    file.append(std::string(4096, 'b'));
    if (!reports_holes(path)) {
        WARN("this file system does not report holes (SEEK_HOLE): the rest is not checked");
        return;
    }
    CHECK_THROWS_WITH(file.commit(), Contains("was truncated (no data at byte 0)"));
}

TEST_CASE("append-only file: a file appended to keeps its own holes out of the check") {
    TempDir dir;
    auto path = dir.file("sparse.bin");
    {
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(::pwrite(fd, "x", 1, 64 * 1024) == 1);  // a hole before it: not cdcd's bytes
        ::close(fd);
    }
    auto file = AppendOnlyFile::open_fresh(path, IfExists::Append, "if-exists");
    file.append(std::string(8192, 'a'));
    CHECK_NOTHROW(file.commit());
}

TEST_CASE("append-only file: a second writer of the same file is refused while the first has it") {
    TempDir dir;
    auto path = dir.file("out.jsonl");
    auto first = committed(path, "first's row\n");
    const std::string state = first.state();
    // Another pipeline given the same path, told to append, or resuming: it would write over the
    // first's rows at its own offsets.
    CHECK_THROWS_WITH(AppendOnlyFile::open_fresh(path, IfExists::Append, "if-exists"),
                      Contains(path) && Contains("is being written by another process") &&
                          Contains("a path of its own"));
    CHECK_THROWS_WITH(AppendOnlyFile::resume(path, state),
                      Contains("is being written by another process"));
    CHECK(read(path) == "first's row\n");
}
