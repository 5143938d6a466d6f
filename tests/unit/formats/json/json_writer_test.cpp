#include "formats/json/json_writer.h"

#include <catch2/catch.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using cdcd::json::append_quoted;

namespace {
// The plain byte-by-byte definition the fast path must agree with.
std::string reference(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out.push_back(static_cast<char>(c));
                }
        }
    }
    return out + "\"";
}
}  // namespace

TEST_CASE("strings are escaped exactly as RFC 8259 requires, wherever the special byte falls") {
    const std::string specials = std::string("\"\\\n\r\t\b\f\x01\x1f", 9);
    for (char special : specials) {
        for (size_t len = 0; len < 40; ++len) {  // 16- and 8-byte blocks and the tail
            for (size_t at = 0; at < len; ++at) {
                std::string s(len, 'a');
                s[at] = special;
                std::string out;
                append_quoted(out, s);
                CHECK(out == reference(s));
            }
        }
    }
}

TEST_CASE("random strings with several special and high bytes match the byte-by-byte escaping") {
    std::uint32_t state = 12345;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    const char alphabet[] = {'a',    'Z',    ' ',    '"',    '\\',   '\n', '\x01', '\x1f',
                             '\x20', '\x7f', '\x80', '\xc3', '\xff', '/',  '0'};
    for (int n = 0; n < 2000; ++n) {
        std::string s(next() % 70, 'x');
        for (char& c : s)
            if (next() % 4 == 0) c = alphabet[next() % sizeof alphabet];
        std::string out = "prefix";
        append_quoted(out, s);
        REQUIRE(out == "prefix" + reference(s));
    }
}

TEST_CASE("UTF-8 and high bytes pass through unescaped") {
    std::string s = "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \x7f\xff end";
    std::string out;
    append_quoted(out, s);
    CHECK(out == reference(s));
    CHECK(out == "\"" + s + "\"");
}

TEST_CASE("a writer separates members and elements with commas") {
    std::string out;
    cdcd::json::Writer w(out);
    w.begin_object()
        .key("a")
        .integer(1)
        .key("b")
        .begin_array()
        .string("x")
        .null()
        .boolean(true)
        .end_array();
    w.key("c").number(0.5).key("d").begin_object().end_object().end_object();
    CHECK(out == R"({"a":1,"b":["x",null,true],"c":0.5,"d":{}})");
}

TEST_CASE("integers are written as std::to_chars writes them, at every length and both ends") {
    std::vector<std::int64_t> values = {0, -1, 1, std::numeric_limits<std::int64_t>::min(),
                                        std::numeric_limits<std::int64_t>::max()};
    for (std::int64_t p = 1; p <= std::numeric_limits<std::int64_t>::max() / 10; p *= 10)
        for (std::int64_t v : {p - 1, p, -p, -(p - 1), p * 9}) values.push_back(v);
    // One array, so the text grows past the string's capacity many times over.
    std::string out;
    cdcd::json::Writer w(out);
    w.begin_array();
    std::string expected = "[";
    for (std::size_t k = 0; k < values.size(); ++k) {
        w.integer(values[k]);
        char buf[24];
        expected += (k ? "," : "") + std::string(buf, std::to_chars(buf, buf + 24, values[k]).ptr);
    }
    w.end_array();
    CHECK(out == expected + "]");
    CHECK(out.c_str()[out.size()] == '\0');
}
