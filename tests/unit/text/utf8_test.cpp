// UTF-8 code points: every code point survives encode → decode, and what is not UTF-8 decodes as
// -1 one byte at a time.
#include "text/utf8.h"

#include <catch2/catch.hpp>
#include <string>

using namespace cdcd;

TEST_CASE("every code point encodes to its shortest form and decodes back") {
    for (char32_t c = 0; c <= 0x10FFFF; ++c) {
        if (c >= 0xD800 && c <= 0xDFFF) continue;
        std::string s;
        utf8::append(s, c);
        std::size_t expected = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        REQUIRE(s.size() == expected);
        std::size_t len = 0;
        REQUIRE(utf8::decode(s, 0, len) == static_cast<std::int32_t>(c));
        REQUIRE(len == expected);
    }
    std::string text = "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80";
    std::size_t len = 0;
    CHECK(utf8::decode(text, 1, len) == 0xE9);
    CHECK(len == 2);
    CHECK(utf8::decode(text, 3, len) == 0x4E2D);
    CHECK(len == 3);
    CHECK(utf8::decode(text, 6, len) == 0x1F600);
    CHECK(len == 4);
}

TEST_CASE("bytes that are not UTF-8 decode as -1 and one byte") {
    const char* bad[] = {
        "\x80",              // a continuation byte first
        "\xC0\xAF",          // overlong '/'
        "\xE0\x80\xAF",      // overlong, three bytes
        "\xED\xA0\x80",      // a surrogate (U+D800)
        "\xF4\x90\x80\x80",  // past U+10FFFF
        "\xF5\x80\x80\x80",  // a lead byte that never starts UTF-8
        "\xC3",              // cut short at the end
        "\xE4\xB8",          // cut short at the end
        "\xC3\x28",          // a lead byte without its continuation
    };
    for (const char* b : bad) {
        std::string s(b);
        INFO(s.size());
        std::size_t len = 7;
        CHECK(utf8::decode(s, 0, len) == -1);
        CHECK(len == 1);
    }
}

TEST_CASE("scrubbed keeps UTF-8 and replaces each stray byte by U+FFFD") {
    CHECK(utf8::scrubbed("plain, \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80") ==
          "plain, \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80");
    const std::string fffd = "\xEF\xBF\xBD";
    CHECK(utf8::scrubbed("a\xFF"
                         "b") == "a" + fffd + "b");
    CHECK(utf8::scrubbed("\xC3") == fffd);                        // truncated sequence
    CHECK(utf8::scrubbed("\xC0\xAF") == fffd + fffd);             // overlong '/'
    CHECK(utf8::scrubbed("\xED\xA0\x80") == fffd + fffd + fffd);  // a surrogate
    CHECK(utf8::scrubbed(std::string("x\0y", 3)) == std::string("x\0y", 3));
}
