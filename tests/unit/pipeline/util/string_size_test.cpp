// set_size_within_capacity: resize() within the capacity, minus the fill.
#include "pipeline/util/string_size.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

using cdcd::set_size_within_capacity;

TEST_CASE("set_size_within_capacity grows a string in place, keeping its bytes and terminator") {
    std::string s;
    s.reserve(64);
    const char* data = s.data();
    s = "abc";
    set_size_within_capacity(s, 40);
    CHECK(s.size() == 40);
    CHECK(s.data() == data);  // no allocation
    CHECK(s.substr(0, 3) == "abc");
    CHECK(s.c_str()[40] == '\0');
    set_size_within_capacity(s, 2);
    CHECK(s == "ab");
    CHECK(s.c_str()[2] == '\0');
}

#if defined(__GLIBCXX__)
TEST_CASE("set_size_within_capacity leaves the bytes it adds as they were") {
    // The point of it: the caller writes the added bytes, so they are not zero-filled first, as
    // resize() would.
    std::string s(32, 'x');
    s.resize(4);  // the bytes past the terminator at 4 still hold 'x'
    set_size_within_capacity(s, 32);
    CHECK(s.substr(0, 4) == "xxxx");
    CHECK(s[4] == '\0');  // the old terminator
    CHECK(s.substr(5) == std::string(27, 'x'));
    CHECK(s.c_str()[32] == '\0');
}
#endif

TEST_CASE("append_uninitialized grows a string by n bytes for the caller to write") {
    std::string s = "ab";
    s.shrink_to_fit();
    std::size_t capacity = s.capacity();
    // Past the capacity it reallocates, keeping the bytes, and grows at least twofold.
    char* at = cdcd::append_uninitialized(s, capacity);
    REQUIRE(s.size() == 2 + capacity);
    CHECK(at == s.data() + 2);
    CHECK(s.substr(0, 2) == "ab");
    CHECK(s.capacity() >= 2 * capacity);
    std::memset(at, 'c', capacity);
    CHECK(s == "ab" + std::string(capacity, 'c'));
    CHECK(s.c_str()[s.size()] == '\0');
    // Within the capacity: no reallocation.
    const char* data = s.data();
    at = cdcd::append_uninitialized(s, 1);
    *at = 'd';
    CHECK(s.data() == data);
    CHECK(s.back() == 'd');
    CHECK(cdcd::append_uninitialized(s, 0) == s.data() + s.size());
}
