// The option tables in docs/*.md are generated from the declarations; this test fails when the
// checked-in text drifts from them. Regenerate with scripts/update-option-docs.sh.
#include "cmd/option_tables.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "config/pipeline_options.h"
#include "pipeline/connector/registry.h"

using namespace cdcd;

namespace {

const config::ConnectorOptionsSpec kSpec{
    {config::OptionSpec::string("path").required().desc("File | to write.")}, {}};

cli::SpecLookup only_file_sink() {
    return [](const std::string& block, const std::string& name) {
        return block == "sink" && name == "file" ? &kSpec : nullptr;
    };
}

// The lookup of the built-in connectors and the pipeline block; `used` records what was asked.
cli::SpecLookup builtin(std::set<std::string>* used) {
    return [used](const std::string& block,
                  const std::string& name) -> const config::ConnectorOptionsSpec* {
        used->insert(block + " " + name);
        auto& registry = ConnectorRegistry::builtin();
        if (block == "pipeline") return &config::pipeline_options_spec();
        if (block == "source" && registry.source(name)) return &registry.source(name)->options;
        if (block == "sink" && registry.sink(name)) return &registry.sink(name)->options;
        return nullptr;
    };
}

std::string read(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("option tables: the text between the markers is regenerated, the rest kept") {
    const std::string doc =
        "# File sink\n\nintro\n"
        "<!-- BEGIN cdcd describe --format markdown sink file -->\n"
        "| stale | table |\n"
        "<!-- END cdcd describe -->\n"
        "after\n";
    auto out = cli::refresh_option_tables(doc, only_file_sink());
    CHECK(out.errors.empty());
    CHECK(out.tables == 1);
    CHECK(out.text ==
          "# File sink\n\nintro\n"
          "<!-- BEGIN cdcd describe --format markdown sink file -->\n"
          "| Option | Type | Default | Required | Description |\n"
          "|---|---|---|---|---|\n"
          "| `path` | STRING | – | yes | File \\| to write. |\n"
          "<!-- END cdcd describe -->\n"
          "after\n");
    // Regenerating again changes nothing.
    CHECK(cli::refresh_option_tables(out.text, only_file_sink()).text == out.text);
}

TEST_CASE("option tables: an unknown connector or a missing END marker is reported by line") {
    auto unknown = cli::refresh_option_tables(
        "a\n<!-- BEGIN cdcd describe --format markdown sink nope -->\nx\n<!-- END cdcd "
        "describe -->\n",
        only_file_sink());
    REQUIRE(unknown.errors.size() == 1);
    CHECK(unknown.errors[0] == "line 2: no sink `nope` (write source NAME, sink NAME or pipeline)");
    auto open = cli::refresh_option_tables(
        "<!-- BEGIN cdcd describe --format markdown sink file -->\n| x |\n", only_file_sink());
    REQUIRE(open.errors.size() == 1);
    CHECK_THAT(open.errors[0], Catch::Contains("line 1: no `<!-- END cdcd describe -->`"));
}

TEST_CASE("option tables: the docs match the declarations of every connector") {
    const char* root = std::getenv("CDCD_SOURCE_DIR");
    REQUIRE(root != nullptr);
    const bool update = std::getenv("CDCD_UPDATE_DOCS") != nullptr;
    std::set<std::string> used;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(root) / "docs")) {
        if (entry.path().extension() != ".md") continue;
        const std::string text = read(entry.path());
        auto out = cli::refresh_option_tables(text, builtin(&used));
        INFO(entry.path().filename().string());
        CHECK(out.errors.empty());
        for (const auto& e : out.errors) FAIL_CHECK(e);
        if (out.text == text) continue;
        if (update) {
            std::ofstream(entry.path(), std::ios::binary) << out.text;
        } else {
            FAIL_CHECK(
                "the option tables differ from the declarations; run "
                "scripts/update-option-docs.sh");
        }
    }
    // Every connector's options are documented somewhere.
    auto& registry = ConnectorRegistry::builtin();
    CHECK(used.count("pipeline ") == 1);
    for (const auto& name : registry.source_names()) {
        INFO("source " << name);
        CHECK(used.count("source " + name) == 1);
    }
    for (const auto& name : registry.sink_names()) {
        INFO("sink " << name);
        CHECK(used.count("sink " + name) == 1);
    }
}
