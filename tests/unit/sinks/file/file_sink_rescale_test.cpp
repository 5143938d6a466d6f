// The file sink resumed at another pipeline.parallelism (sinks/file/writer_state.h): writer i
// of N writes `path` (N = 1) or `path.<i>`; a writer whose file the checkpoint knows goes on in
// it, a known file no writer goes on in is cut back to its committed length and carried as
// retired (so that a later change back goes on in it), and a new name starts a new file.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipeline/output/append_only_file.h"
#include "sinks/file/file_sink.h"
#include "sinks/file/writer_state.h"
#include "tests/unit/sinks/file/file_text.h"

using namespace cdcd;
using Catch::Contains;
using testing::file_text;

namespace {

/// A directory of its own, removed afterwards; `out` is the sink's `path`.
struct Dir {
    std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                ("cdcd-file-rescale-" + std::to_string(::getpid()));
    std::string out = (dir / "out.jsonl").string();
    Dir() {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    ~Dir() { std::filesystem::remove_all(dir); }

    /// A file cdcd wrote: `committed` in the last checkpoint, then `lost` (a crash followed).
    std::string written(const std::string& path, const std::string& committed,
                        const std::string& lost) const {
        auto file = output::AppendOnlyFile::open_fresh(path, output::IfExists::Fail, "if-exists");
        file.append(committed);
        std::string state = file.commit();
        file.append(lost);
        return file::encode_writer_state(state);
    }
};

struct FileSinkUnderTest {
    metrics::Registry registry{metrics::Labels{{"pipeline", "t"}}};
    file::FileSink sink;
    explicit FileSinkUnderTest(const std::string& path)
        : sink(
              file::FileSinkSettings{
                  path, file::FileFormat::DebeziumJson, output::IfExists::Fail, {}},
              registry) {}
};

}  // namespace

TEST_CASE("file sink: 1 writer to 2: the old file is cut back and kept, new files start") {
    Dir d;
    const std::string old_state = d.written(d.out, "a\nb\n", "after the checkpoint\n");
    FileSinkUnderTest s(d.out);
    auto states = s.sink.rescale_writer_states({old_state}, 2);
    REQUIRE(states.size() == 2);
    REQUIRE(states[0]);
    CHECK_FALSE(states[1]);  // out.jsonl.1 is new: the writer claims it as on a fresh start
    CHECK_THAT(*states[0], Contains(R"("version":2)"));

    auto w0 = s.sink.create_writer(0, 2);
    auto w1 = s.sink.create_writer(1, 2);
    w0->restore(*states[0]);
    CHECK(file_text(d.out) == "a\nb\n");  // what followed the checkpoint is replayed elsewhere
    auto claimed0 = w0->fresh_start_state();
    auto claimed1 = w1->fresh_start_state();
    REQUIRE(claimed0);
    REQUIRE(claimed1);
    CHECK(std::filesystem::exists(d.out + ".0"));
    CHECK(std::filesystem::exists(d.out + ".1"));
    // Writer 0 carries the old file on, so that cdcd still knows it for its own.
    auto decoded = file::decode_writer_state(*claimed0);
    REQUIRE(decoded.retired.size() == 1);
    CHECK(decoded.retired[0].path == d.out);
    CHECK(file::decode_writer_state(*claimed1).retired.empty());

    SECTION("and back to 1: the writer goes on in the old file; the others are kept") {
        w0.reset();
        w1.reset();
        auto back = s.sink.rescale_writer_states({*claimed0, *claimed1}, 1);
        REQUIRE(back.size() == 1);
        REQUIRE(back[0]);
        auto w = s.sink.create_writer(0, 1);
        w->restore(*back[0]);
        auto state = file::decode_writer_state(*w->fresh_start_state());
        REQUIRE(state.file);
        CHECK_THAT(*state.file, Contains(R"("length":4)"));  // goes on after "a\nb\n"
        CHECK(state.retired.size() == 2);                    // out.jsonl.0 and .1
    }
}

TEST_CASE("file sink: 2 writers to 1, and 3 to 2") {
    Dir d;
    FileSinkUnderTest s(d.out);
    SECTION("2 to 1: both files are cut back and carried; out.jsonl is new") {
        auto states = s.sink.rescale_writer_states(
            {d.written(d.out + ".0", "x\n", "lost\n"), d.written(d.out + ".1", "y\n", "lost\n")},
            1);
        REQUIRE(states.size() == 1);
        auto w = s.sink.create_writer(0, 1);
        w->restore(*states[0]);
        CHECK(file_text(d.out + ".0") == "x\n");
        CHECK(file_text(d.out + ".1") == "y\n");
        CHECK_FALSE(std::filesystem::exists(d.out));
        auto state = file::decode_writer_state(*w->fresh_start_state());
        CHECK(state.file);
        CHECK(state.retired.size() == 2);
    }
    SECTION("3 to 2: writers 0 and 1 go on in their files, writer 0 cuts back the third") {
        auto states = s.sink.rescale_writer_states(
            {d.written(d.out + ".0", "x\n", "lost\n"), d.written(d.out + ".1", "y\n", "lost\n"),
             d.written(d.out + ".2", "z\n", "lost\n")},
            2);
        REQUIRE(states.size() == 2);
        auto w0 = s.sink.create_writer(0, 2);
        auto w1 = s.sink.create_writer(1, 2);
        w0->restore(*states[0]);
        w1->restore(*states[1]);
        CHECK(file_text(d.out + ".0") == "x\n");
        CHECK(file_text(d.out + ".1") == "y\n");
        CHECK(file_text(d.out + ".2") == "z\n");
        CHECK(file::decode_writer_state(*states[0]).retired.size() == 1);
        CHECK(file::decode_writer_state(*states[1]).retired.empty());
    }
    SECTION("a writer that had stored nothing hands nothing on") {
        auto states =
            s.sink.rescale_writer_states({d.written(d.out + ".0", "x\n", ""), std::string()}, 2);
        REQUIRE(states[0]);
        CHECK(file::decode_writer_state(*states[0]).retired.empty());
        CHECK_FALSE(states[1]);
    }
}

TEST_CASE("file sink: a rescaled state that cannot be read names the connector and the field") {
    CHECK_THROWS_WITH(
        file::decode_writer_state(R"({"connector":"file-sink","version":2,"state":{"file":null}})"),
        Contains("file-sink") && Contains("retired"));
    CHECK_THROWS_WITH(
        file::decode_writer_state(R"({"connector":"file-sink","version":3,"state":{"file":null}})"),
        Contains("version 3"));
}
