// Markdown rendering of every documented block type. Goldens: golden/<case>.json (blocks as the
// Block API returns them, built with the emulator's fixtures) and golden/<case>.md (reviewed
// output). CDCD_UPDATE_GOLDEN=1 rewrites the .md files.
#include "sources/dingtalk/markdown_renderer.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using cdcd::dingtalk::render_markdown;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path golden_dir() {
    // ctest sets CDCD_SOURCE_DIR; __FILE__ may be relative to the build folder (ccache base_dir).
    if (const char* src = std::getenv("CDCD_SOURCE_DIR"))
        return fs::path(src) / "tests/unit/sources/dingtalk/golden";
    return fs::path(__FILE__).parent_path() / "golden";
}

}  // namespace

TEST_CASE("golden Markdown renderings") {
    int cases = 0;
    for (const auto& entry : fs::directory_iterator(golden_dir())) {
        if (entry.path().extension() != ".json") continue;
        ++cases;
        auto md_path = fs::path(entry.path()).replace_extension(".md");
        std::string actual = render_markdown(read_file(entry.path()));
        if (std::getenv("CDCD_UPDATE_GOLDEN")) {
            std::ofstream(md_path, std::ios::binary) << actual;
        }
        INFO("golden case " << entry.path().filename().string());
        REQUIRE(fs::exists(md_path));
        CHECK(actual == read_file(md_path));
    }
    CHECK(cases >= 6);
}

TEST_CASE("each block type renders to its Markdown form") {
    auto one = [](const std::string& block) { return render_markdown("[" + block + "]"); };
    CHECK(
        one(R"({"blockType":"heading","heading":{"level":2,"text":"T"},"children":[{"text":"T"}]})") ==
        "## T\n");
    CHECK(
        one(R"({"blockType":"heading","heading":{"level":"heading-3"},"children":[{"text":"T"}]})") ==
        "### T\n");
    CHECK(
        one(R"({"blockType":"paragraph","paragraph":{},"children":[{"text":"a","bold":true},{"text":" b"}]})") ==
        "**a** b\n");
    CHECK(one(R"({"blockType":"blockquote","blockquote":{"text":"q"}})") == "> q\n");
    CHECK(
        one(R"({"blockType":"callout","callout":{"sticker":"tada","showstk":true},"children":[{"blockType":"paragraph","paragraph":{"text":"c"}}]})") ==
        "> :tada: c\n");
    CHECK(
        one(R"({"blockType":"columns","columns":{"size":2},"children":[{"blockType":"paragraph","paragraph":{"text":"l"}},{"blockType":"paragraph","paragraph":{"text":"r"}}]})") ==
        "l\n\nr\n");
    CHECK(
        render_markdown(
            R"([{"blockType":"orderedList","orderedList":{"list":{"listId":"x","level":0}},"children":[{"text":"a"}]},
                              {"blockType":"orderedList","orderedList":{"list":{"listId":"x","level":0}},"children":[{"text":"b"}]}])") ==
        "1. a\n2. b\n");
    CHECK(
        render_markdown(
            R"([{"blockType":"unorderedList","unorderedList":{"list":{"listId":"y","level":0}},"children":[{"text":"i"}]},
                              {"blockType":"unorderedList","unorderedList":{"list":{"listId":"y","level":1}},"children":[{"text":"j"}]}])") ==
        "- i\n    - j\n");
    CHECK(
        one(R"({"blockType":"table","table":{"rolSize":2,"colSize":2,"cells":[["h1","h2"],["a","b"]]}})") ==
        "| h1 | h2 |\n| --- | --- |\n| a | b |\n");
    CHECK(
        one(R"({"blockType":"tableRow","tableRow":{},"children":[{"blockType":"tableCell","tableCell":{},"children":[{"text":"c"}]}]})") ==
        "| c |\n| --- |\n");
    CHECK(one(R"({"blockType":"tableCell","tableCell":{},"children":[{"text":"only"}]})") ==
          "only\n");
    CHECK(one(R"({"blockType":"unknown","unknown":{}})") ==
          "<!-- unsupported block: unknown -->\n");
    CHECK(
        one(R"({"blockType":"paragraph","paragraph":{},"children":[{"elementType":"link","properties":{"href":"https://x.y/"},"children":[{"text":"go"}]},{"elementType":"image","properties":{"src":"https://x.y/i.png"}},{"elementType":"sticker","properties":{"code":"ok"}}]})") ==
        "[go](https://x.y/)![](https://x.y/i.png):ok:\n");
}

TEST_CASE("empty and malformed input") {
    CHECK(render_markdown("[]").empty());
    CHECK(render_markdown(R"([{"blockType":"paragraph","paragraph":{}}])").empty());
    CHECK_THROWS_AS(render_markdown("{\"a\":1}"), std::invalid_argument);
    CHECK_THROWS_AS(render_markdown("[{"), std::invalid_argument);
}

// Found by the dingtalk_markdown fuzz target: a block without its properties object (or a table
// without rows) was read through a null document and crashed the daemon.
TEST_CASE("blocks without their properties render as empty blocks") {
    CHECK(render_markdown(R"([{"blockType":"paragraph"}])").empty());
    CHECK(render_markdown(R"([{"blockType":"heading"},{"blockType":"orderedList"}])") ==
          "#\n\n1. \n");
    CHECK_NOTHROW(render_markdown(R"([{"blockType":"table","table":{"rolSize":2,"colSize":2}}])"));
    CHECK_NOTHROW(
        render_markdown(R"([{"blockType":"callout","children":[{"elementType":"text"}]}])"));
}

TEST_CASE("a table's declared colSize pads its rows, but a huge one renders only its cells") {
    // Found by fuzz_dingtalk_markdown: colSize 888888888888888883 looped over that many columns.
    const std::string huge =
        render_markdown(R"([{"blockType":"table","table":{"colSize":888888888888888883,)"
                        R"("cells":[["h1","h2"],["a","b"]]}}])");
    CHECK(huge == "| h1 | h2 |\n| --- | --- |\n| a | b |\n");
    // A modest colSize still pads rows that leave trailing cells out.
    const std::string padded = render_markdown(
        R"([{"blockType":"table","table":{"colSize":3,"cells":[["h1"],["a","b"]]}}])");
    CHECK(padded == "| h1 |  |  |\n| --- | --- | --- |\n| a | b |  |\n");
    // The padding budget is per document: 100,000 empty cells, then tables are as wide as their
    // cells (here 2 rows x 60,000 extra columns would pass it).
    const std::string over = render_markdown(
        R"([{"blockType":"table","table":{"colSize":60001,"cells":[["x"],["y"]]}}])");
    CHECK(over == "| x |\n| --- |\n| y |\n");
}

// Found by fuzz_dingtalk_markdown (a CI run): a colSize of 8.9e180, a number past the 64-bit
// range, was converted to an integer (undefined behaviour, which UBSan aborts on); a digit string
// past the range went through std::atoll (undefined too). Both now count as no colSize.
TEST_CASE("a colSize past the 64-bit range counts as none") {
    const std::string row_of_two = "| h1 | h2 |\n| --- | --- |\n";
    CHECK(render_markdown(R"([{"blockType":"table","table":{"colSize":8.8e180,)"
                          R"("cells":[["h1","h2"]]}}])") == row_of_two);
    CHECK(render_markdown(R"([{"blockType":"table","table":{"colSize":-1e300,)"
                          R"("cells":[["h1","h2"]]}}])") == row_of_two);
    CHECK(render_markdown(R"([{"blockType":"table","table":{"colSize":"99999999999999999999999",)"
                          R"("cells":[["h1","h2"]]}}])") == row_of_two);
    // In range, as before.
    CHECK(render_markdown(R"([{"blockType":"table","table":{"colSize":3.0,"cells":[["h1"]]}}])") ==
          "| h1 |  |  |\n| --- | --- | --- |\n");
    CHECK(render_markdown(R"([{"blockType":"table","table":{"colSize":"3","cells":[["h1"]]}}])") ==
          "| h1 |  |  |\n| --- | --- | --- |\n");
}
