// UPPER and LOWER against the JVM's own String.toUpperCase/toLowerCase(Locale.ROOT): tables that
// java_case/JavaCase.java writes with Java 17.
#include "pipeline/transform/functions/java_case.h"

#include <unicode/uchar.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "text/utf8.h"

using namespace cdcd::transform;
namespace fs = std::filesystem;

namespace {

fs::path data_dir() {
    // ctest sets CDCD_SOURCE_DIR; __FILE__ may be relative to the build folder (ccache base_dir).
    if (const char* src = std::getenv("CDCD_SOURCE_DIR"))
        return fs::path(src) / "tests/unit/pipeline/transform/functions/java_case";
    return fs::path(__FILE__).parent_path() / "java_case";
}

// "3a3 3b1" to UTF-8.
std::string from_hex(const std::string& field) {
    std::istringstream in(field);
    std::string out, word;
    while (in >> word)
        cdcd::utf8::append(out, static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
    return out;
}

struct Row {
    std::string in, upper, lower;
};

std::vector<Row> read_table(const std::string& name) {
    std::ifstream f(data_dir() / name);
    REQUIRE(f);
    std::vector<Row> rows;
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto t1 = line.find('\t');
        auto t2 = line.find('\t', t1 + 1);
        rows.push_back({from_hex(line.substr(0, t1)), from_hex(line.substr(t1 + 1, t2 - t1 - 1)),
                        from_hex(line.substr(t2 + 1))});
    }
    return rows;
}

std::string upper(const std::string& s) {
    std::string out(java_case_capacity(s.size()), '\0');
    out.resize(java_to_upper(s, out.data()));
    return out;
}
std::string lower(const std::string& s) {
    std::string out(java_case_capacity(s.size()), '\0');
    out.resize(java_to_lower(s, out.data()));
    return out;
}

}  // namespace

TEST_CASE("every code point maps as in Java 17, but those Unicode added after Java 17's 13.0") {
    const auto java = read_table("single.tsv");
    std::map<std::string, const Row*> by_text;
    for (const auto& r : java) by_text.emplace(r.in, &r);
    REQUIRE(by_text.size() > 2800);
    std::size_t checked = 0, newer = 0;
    for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        std::string s;
        cdcd::utf8::append(s, cp);
        std::string up = upper(s), low = lower(s);
        // The capacity holds every mapping (java_case_capacity).
        CHECK(up.size() <= java_case_capacity(s.size()));
        CHECK(low.size() <= java_case_capacity(s.size()));
        auto it = by_text.find(s);
        if (it != by_text.end()) {
            INFO("U+" << std::hex << cp);
            CHECK(up == it->second->upper);
            CHECK(low == it->second->lower);
            ++checked;
        } else if (up != s || low != s) {
            // A mapping Java 17 lacks: a character of a later Unicode version.
            UVersionInfo age;
            u_charAge(static_cast<UChar32>(cp), age);
            INFO("U+" << std::hex << cp);
            CHECK(age[0] > 13);
            ++newer;
        }
    }
    CHECK(checked == by_text.size());
    CHECK(newer < 200);
}

TEST_CASE("strings around a 'Σ' lowercase to Java's final sigma") {
    auto rows = read_table("words.tsv");
    REQUIRE(rows.size() == 4000);
    for (const auto& r : rows) {
        INFO(r.in);
        CHECK(upper(r.in) == r.upper);
        CHECK(lower(r.in) == r.lower);
    }
}

TEST_CASE("bytes that are not UTF-8 are copied") {
    // A lone continuation byte, a truncated sequence, an overlong form, a surrogate, past U+10FFFF.
    const std::vector<std::string> bad = {
        "\x80",     "\xC3",         "\xE2\x82",         "\xF0\x9F\x98",
        "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF"};
    for (const auto& b : bad) {
        INFO(b.size());
        CHECK(upper("a" + b + "ßΣ") == "A" + b + "SSΣ");
        CHECK(lower("A" + b + "ΑΣ") == "a" + b + "ας");
        CHECK(lower("ΑΣ" + b + "Α") == "ας" + b + "α");
    }
}
