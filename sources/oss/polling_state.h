#pragma once
// What POLLING remembers of the last scan: per path prefix, the sorted keys with a 64-bit
// fingerprint of (eTag, size, mtime). In memory: keys in one arena + 4-byte offsets + 8-byte
// fingerprints (≈ key + 12 bytes per object). On disk (checkpoint): front-coded keys (shared
// prefix length, suffix) + 8-byte fingerprint, typically 12-20 bytes per object.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sources/oss/codec.h"

namespace cdcd::oss {

struct ObjectInfo;

/// 64-bit fingerprint of what makes an object "changed"; never one of the two markers below.
std::uint64_t object_fingerprint(std::string_view etag, std::int64_t size, std::int64_t mtime_ms);
std::uint64_t object_fingerprint(const ObjectInfo& o);

/// The fingerprint of a key listed but not emitted yet: the next scan finds it changed.
constexpr std::uint64_t kUnemittedFingerprint = 0;
/// The fingerprint of a key whose DELETE was emitted: dropped by compact() and never encoded.
constexpr std::uint64_t kDeletedFingerprint = 1;

class KeyIndex {
  public:
    std::size_t size() const { return fps_.size(); }
    std::string_view key(std::size_t i) const {
        std::uint32_t b = i == 0 ? 0 : ends_[i - 1];
        return std::string_view(arena_).substr(b, ends_[i] - b);
    }
    std::uint64_t fingerprint(std::size_t i) const { return fps_[i]; }
    void set_fingerprint(std::size_t i, std::uint64_t fp) { fps_[i] = fp; }
    /// Drops the keys marked kDeletedFingerprint.
    void compact();
    /// Keys must come in strictly increasing order; throws StateError otherwise.
    void append(std::string_view key, std::uint64_t fp);
    void clear();
    void reserve(std::size_t n, std::size_t bytes);
    /// Binary search; npos when absent.
    std::size_t find(std::string_view key) const;
    std::size_t key_bytes() const { return arena_.size(); }
    std::size_t memory_bytes() const {
        return arena_.capacity() + ends_.capacity() * 4 + fps_.capacity() * 8;
    }

    void encode(ByteWriter& w) const;
    static KeyIndex decode(ByteReader& r);

    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  private:
    std::string arena_;
    std::vector<std::uint32_t> ends_;
    std::vector<std::uint64_t> fps_;
};

struct PollingState {
    bool baseline_done = false;      // the first complete scan is recorded
    std::vector<KeyIndex> prefixes;  // one per configured prefix (one for the whole bucket)
    std::uint64_t scans = 0;

    std::size_t objects() const;
    void encode(ByteWriter& w) const;
    static PollingState decode(ByteReader& r);
};

}  // namespace cdcd::oss
