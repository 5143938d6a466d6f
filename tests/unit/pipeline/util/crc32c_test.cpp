// CRC-32C against the published check value, and extending a checksum piece by piece.
#include "pipeline/util/crc32c.h"

#include <catch2/catch.hpp>
#include <string>

using cdcd::crc32c;

TEST_CASE("crc32c: the check value of \"123456789\" is 0xE3069283") {
    CHECK(crc32c("123456789") == 0xE3069283u);
    CHECK(crc32c("") == 0u);
}

TEST_CASE("crc32c: extending a checksum equals the checksum of the concatenation") {
    std::string a = "the committed prefix", b = " and what followed\n";
    CHECK(crc32c(b, crc32c(a)) == crc32c(a + b));
    CHECK(crc32c(a) != crc32c(b));
}
