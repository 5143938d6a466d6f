// Hostile YAML: a file that would take unbounded memory or stack (alias bombs, deep nesting, a
// huge text) is refused quickly with an error naming the limit and where it was reached, and an
// unclosed quote is reported where the quoted scalar starts.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "config/yaml_loader.h"

using namespace cdcd::config;
using Catch::Contains;

namespace {

// Eight levels of anchors, each a list of ten aliases of the one before: 10^8 scalars once
// expanded ("billion laughs").
std::string alias_bomb() {
    std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int i = 1; i <= 8; ++i) {
        text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
        text += "]\n";
    }
    return text;
}

}  // namespace

TEST_CASE("an alias bomb is refused at the alias that exceeds the node limit", "[config][yaml]") {
    Diagnostics diags;
    const auto started = std::chrono::steady_clock::now();
    auto doc = load_yaml_string(alias_bomb(), "bomb.yaml", diags);
    const auto took = std::chrono::steady_clock::now() - started;
    CHECK_FALSE(doc);
    REQUIRE(diags.size() == 1);
    // a0 to a3 hold 12,344 nodes, their copies kept for aliases as many: the seventh alias of a3
    // (11,111 nodes) in a4 passes 100,000.
    CHECK_THAT(diags.to_string(),
               Contains("bomb.yaml:5:40: ") &&
                   Contains("error: YAML document too large: more than 100000 nodes once aliases "
                            "are expanded (this alias repeats the 11111 nodes of its anchor)"));
    CHECK(took < std::chrono::seconds(2));
}

TEST_CASE("aliases within the node limit are expanded", "[config][yaml]") {
    Diagnostics diags;
    std::string text = "base: &b {";
    for (int i = 0; i < 100; ++i) text += (i ? ", k" : "k") + std::to_string(i) + ": v";
    text += "}\n";
    for (int i = 0; i < 100; ++i) text += "copy" + std::to_string(i) + ": *b\n";
    auto doc = load_yaml_string(text, "ok.yaml", diags);
    REQUIRE(doc);
    CHECK(diags.ok());
    CHECK(doc->root.find("copy99")->find("k99")->scalar == "v");
}

TEST_CASE("a document of more than 100000 plain nodes is refused too", "[config][yaml]") {
    std::string text = "l: [";
    for (int i = 0; i < 100'001; ++i) text += "x,";
    text += "]\n";
    Diagnostics diags;
    CHECK_FALSE(load_yaml_string(text, "big.yaml", diags));
    CHECK_THAT(diags.to_string(), Contains("big.yaml:1:") && Contains("more than 100000 nodes"));
}

TEST_CASE("deep nesting is refused at the level past the limit, never overflowing the stack",
          "[config][yaml]") {
    const std::size_t depth = 100'000;
    const std::string flow_lists = "source: " + std::string(depth, '[') + std::string(depth, ']');
    std::string flow_maps = "source: ";
    for (std::size_t i = 0; i < depth; ++i) flow_maps += "{a: ";
    flow_maps += "1" + std::string(depth, '}');
    std::string block_maps;
    for (std::size_t i = 0; i < 100; ++i) block_maps += std::string(2 * i, ' ') + "a:\n";
    // The 64th list or map inside the top-level map is the first one refused.
    for (const auto& [text, where] :
         {std::pair{flow_lists, "deep.yaml:1:72: "}, std::pair{flow_maps, "deep.yaml:1:261: "},
          std::pair{block_maps, "deep.yaml:65:129: "}}) {
        Diagnostics diags;
        CHECK_FALSE(load_yaml_string(text, "deep.yaml", diags));
        CHECK_THAT(diags.to_string(),
                   Contains(std::string(where) +
                            "error: YAML too deep: more than 64 levels of maps and lists"));
    }
}

TEST_CASE("a file over 16 MiB is refused before it is parsed", "[config][yaml]") {
    const std::string text = "a: \"" + std::string(kMaxYamlBytes, 'x') + "\"\n";
    Diagnostics diags;
    CHECK_FALSE(load_yaml_string(text, "huge.yaml", diags));
    CHECK_THAT(diags.to_string(),
               Contains("huge.yaml: error: YAML file too large: 16777222 bytes, the limit is "
                        "16777216 bytes (16 MiB)"));

    const std::string path = "/tmp/cdcd-test-huge-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << text;
    Diagnostics file_diags;
    CHECK_FALSE(load_yaml_file(path, file_diags));
    std::remove(path.c_str());
    CHECK_THAT(file_diags.to_string(),
               Contains(path + ": error: YAML file too large: more than 16777216 bytes"));
}

TEST_CASE("an unclosed quote is reported where the quoted scalar starts", "[config][yaml]") {
    Diagnostics diags;
    CHECK_FALSE(
        load_yaml_string("source:\n  type: \"kafka\nsink:\n  type: values\n", "q.yaml", diags));
    CHECK(diags.to_string() ==
          "q.yaml:2:9: error: YAML syntax error: unclosed double quote: the quoted scalar "
          "starting here has no closing \" before the end of the file\n");

    Diagnostics single;
    CHECK_FALSE(load_yaml_string("a: 'it''s\nb: 1\n", "s.yaml", single));
    CHECK_THAT(single.to_string(), Contains("s.yaml:1:4: error: YAML syntax error: unclosed single "
                                            "quote"));
}

TEST_CASE("quoted scalars with escaped quotes, or over several lines, still load",
          "[config][yaml]") {
    Diagnostics diags;
    auto doc = load_yaml_string("a: \"say \\\"hi\\\"\"\nb: 'it''s'\nc: \"two\n  lines\"\n",
                                "ok.yaml", diags);
    REQUIRE(doc);
    CHECK(diags.ok());
    CHECK(doc->root.find("a")->scalar == "say \"hi\"");
    CHECK(doc->root.find("b")->scalar == "it's");
    CHECK(doc->root.find("c")->scalar == "two lines");
}
