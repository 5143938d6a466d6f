#include "sources/postgres/byte_reader.h"

namespace cdcd::postgres {

void ByteReader::fail(const std::string& why) const {
    throw PgoutputError(std::string(what_) + ": " + why + " at byte " + std::to_string(pos_) +
                        " of " + std::to_string(bytes_.size()));
}

std::string_view ByteReader::take(std::size_t n) {
    if (n > remaining()) fail("truncated (" + std::to_string(n) + " bytes wanted)");
    std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
}

std::uint64_t ByteReader::be(std::size_t n) {
    std::string_view b = take(n);
    std::uint64_t v = 0;
    for (char c : b) v = (v << 8) | static_cast<std::uint8_t>(c);
    return v;
}

std::string ByteReader::cstring() {
    std::size_t end = bytes_.find('\0', pos_);
    if (end == std::string_view::npos) fail("string without its terminating NUL");
    std::string out(bytes_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
}

}  // namespace cdcd::postgres
