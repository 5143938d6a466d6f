#pragma once
// Reads the big-endian integers and NUL-terminated strings of PostgreSQL's wire messages from a
// byte span, throwing PgoutputError (pgoutput_decoder.h) with the offset when the bytes run out.
#include <cstdint>
#include <string>
#include <string_view>

#include "sources/postgres/pgoutput_decoder.h"

namespace cdcd::postgres {

class ByteReader {
  public:
    ByteReader(std::string_view bytes, std::string_view what) : bytes_(bytes), what_(what) {}

    std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
    std::uint16_t u16() { return static_cast<std::uint16_t>(be(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(be(4)); }
    std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
    std::uint64_t u64() { return be(8); }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    /// A NUL-terminated string (the NUL is consumed, not returned).
    std::string cstring();
    std::string_view take(std::size_t n);
    std::size_t remaining() const { return bytes_.size() - pos_; }
    std::size_t offset() const { return pos_; }
    [[noreturn]] void fail(const std::string& why) const;

  private:
    std::uint64_t be(std::size_t n);
    std::string_view bytes_;
    std::string_view what_;
    std::size_t pos_ = 0;
};

}  // namespace cdcd::postgres
