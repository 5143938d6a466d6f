#pragma once
// The value of an expression during evaluation: a small tagged-by-type value. The node that
// produced it knows its DataType, so the Datum itself only carries the payload:
//   BOOLEAN, TINYINT..BIGINT, DATE (epoch days), TIME (nanos of day) → i
//   FLOAT, DOUBLE → d;  DECIMAL → dec (unscaled at the type's scale)
//   TIMESTAMP, TIMESTAMP_LTZ → i (millis) + nanos;  TIMESTAMP_TZ → also off (offset seconds)
//   CHAR, VARCHAR, BINARY, VARBINARY → s;  ARRAY, ROW → s (row bytes); MAP → s (map bytes)
// (i, d, dec and s overlap: only the member of the type is meaningful.)
// Strings point into the input row, a constant, or the per-row Arena.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "pipeline/data/values.h"

namespace cdcd::transform {

struct Datum {
    // One payload at a time, so they share storage: a Datum is 32 bytes, cheap to return by
    // value. `dec` zero-initialises all of it (a NULL reads as 0, 0.0 and "").
    union {
        __int128 dec;
        std::int64_t i;
        double d;
        std::string_view s;
    };
    std::int32_t nanos = 0;
    std::int32_t off = 0;
    bool null = true;

    Datum() noexcept : dec(0) {}
    static Datum null_value() { return Datum{}; }
    static Datum of_long(std::int64_t v) {
        Datum x;
        x.null = false;
        x.i = v;
        return x;
    }
    static Datum of_bool(bool v) { return of_long(v ? 1 : 0); }
    static Datum of_double(double v) {
        Datum x;
        x.null = false;
        x.d = v;
        return x;
    }
    static Datum of_decimal(__int128 v) {
        Datum x;
        x.null = false;
        x.dec = v;
        return x;
    }
    static Datum of_string(std::string_view v) {
        Datum x;
        x.null = false;
        x.s = v;
        return x;
    }
    static Datum of_timestamp(Timestamp t, std::int32_t offset = 0) {
        Datum x;
        x.null = false;
        x.i = t.millis;
        x.nanos = t.nanos_of_milli;
        x.off = offset;
        return x;
    }
    Timestamp ts() const { return Timestamp{i, nanos}; }
    bool truth() const { return !null && i != 0; }
};

/// memcpy for the short strings of expression values: inline up to 16 bytes, where a call into
/// the library costs more than the copy itself.
inline void copy_bytes(char* dst, const char* src, std::size_t n) {
    if (n > 16) {
        std::memcpy(dst, src, n);
    } else if (n >= 8) {  // two overlapping words
        std::uint64_t a, b;
        std::memcpy(&a, src, 8);
        std::memcpy(&b, src + n - 8, 8);
        std::memcpy(dst, &a, 8);
        std::memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        std::uint32_t a, b;
        std::memcpy(&a, src, 4);
        std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4);
        std::memcpy(dst + n - 4, &b, 4);
    } else if (n > 0) {  // 1 to 3 bytes: first, middle, last
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/// Bump allocator for values produced while evaluating one row; reset() between rows keeps the
/// first block, so steady-state evaluation allocates nothing.
class Arena {
  public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    char* alloc(std::size_t n) {
        if (n > cap_ - used_) grow(n);
        char* p = cur_ + used_;
        used_ += n;
        return p;
    }
    /// Hands back the last n bytes of the latest alloc().
    void give_back(std::size_t n) { used_ -= n; }
    std::string_view copy(std::string_view v) {
        char* p = alloc(v.size());
        copy_bytes(p, v.data(), v.size());
        return {p, v.size()};
    }
    void reset() {
        if (blocks_.size() > 1) keep_largest();  // one block: cur_ and cap_ already point at it
        used_ = 0;
    }

  private:
    void grow(std::size_t n);
    void keep_largest();
    std::vector<std::unique_ptr<char[]>> blocks_;
    std::vector<std::size_t> sizes_;
    char* cur_ = nullptr;
    std::size_t used_ = 0;
    std::size_t cap_ = 0;
};

}  // namespace cdcd::transform
