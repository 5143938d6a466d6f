#include "sources/oss/polling_state.h"

#include <algorithm>

#include "sources/oss/encoding.h"
#include "sources/oss/oss_client.h"

namespace cdcd::oss {

std::uint64_t object_fingerprint(std::string_view etag, std::int64_t size, std::int64_t mtime_ms) {
    std::uint64_t h = fnv1a64(etag);
    char buf[16];
    for (int i = 0; i < 8; ++i)
        buf[i] = static_cast<char>((static_cast<std::uint64_t>(size) >> (8 * i)) & 0xFF);
    for (int i = 0; i < 8; ++i)
        buf[8 + i] = static_cast<char>((static_cast<std::uint64_t>(mtime_ms) >> (8 * i)) & 0xFF);
    h = fnv1a64(std::string_view(buf, 16), h);
    // final avalanche (splitmix64) so nearby inputs spread over the whole word
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h <= kDeletedFingerprint ? h + 2 : h;  // the markers stay unambiguous
}

std::uint64_t object_fingerprint(const ObjectInfo& o) {
    return object_fingerprint(o.etag, o.size, o.mtime_ms);
}

void KeyIndex::append(std::string_view key, std::uint64_t fp) {
    if (!fps_.empty() && !(this->key(size() - 1) < key))
        throw StateError("oss-cdc polling state: keys out of order");
    if (arena_.size() + key.size() > 0xFFFFFFFFULL)
        throw StateError("oss-cdc polling state: more than 4 GiB of keys");
    arena_.append(key);
    ends_.push_back(static_cast<std::uint32_t>(arena_.size()));
    fps_.push_back(fp);
}

void KeyIndex::clear() {
    arena_.clear();
    ends_.clear();
    fps_.clear();
}

void KeyIndex::compact() {
    if (std::find(fps_.begin(), fps_.end(), kDeletedFingerprint) == fps_.end()) return;
    KeyIndex kept;
    kept.reserve(size(), arena_.size());
    for (std::size_t i = 0; i < size(); ++i)
        if (fps_[i] != kDeletedFingerprint) kept.append(key(i), fps_[i]);
    *this = std::move(kept);
}

void KeyIndex::reserve(std::size_t n, std::size_t bytes) {
    arena_.reserve(bytes);
    ends_.reserve(n);
    fps_.reserve(n);
}

std::size_t KeyIndex::find(std::string_view k) const {
    std::size_t lo = 0, hi = size();
    while (lo < hi) {
        std::size_t mid = (lo + hi) / 2;
        if (key(mid) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < size() && key(lo) == k ? lo : npos;
}

void KeyIndex::encode(ByteWriter& w) const {
    // A checkpoint taken while deletes are being emitted leaves out the keys already deleted.
    std::size_t n = 0, bytes = 0;
    for (std::size_t i = 0; i < size(); ++i)
        if (fps_[i] != kDeletedFingerprint) ++n, bytes += key(i).size();
    w.varint(n);
    w.varint(bytes);
    std::string_view prev;
    for (std::size_t i = 0; i < size(); ++i) {
        if (fps_[i] == kDeletedFingerprint) continue;
        std::string_view k = key(i);
        std::size_t shared = 0, limit = std::min(prev.size(), k.size());
        while (shared < limit && prev[shared] == k[shared]) ++shared;
        w.varint(shared);
        w.bytes(k.substr(shared));
        w.fixed64(fps_[i]);
        prev = k;
    }
}

namespace {
constexpr std::uint64_t kMinEncodedKey = 10;
constexpr std::uint64_t kReservedBytesPerKey = 1023;
}  // namespace

KeyIndex KeyIndex::decode(ByteReader& r) {
    KeyIndex idx;
    std::uint64_t n = r.varint();
    std::uint64_t bytes = r.varint();
    if (n > (1ULL << 32) || bytes > (1ULL << 32))
        throw StateError("oss-cdc polling state: implausible size");
    // The sizes are only trusted as far as the input backs them (they size allocations): a key
    // takes at least 10 encoded bytes (two length varints and its fingerprint). OSS keys are at
    // most 1023 bytes: the reservation stops there (longer keys still decode, growing it).
    if (n > r.remaining() / kMinEncodedKey)
        throw StateError("oss-cdc polling state: " + std::to_string(n) + " keys declared, but " +
                         std::to_string(r.remaining()) + " bytes remain (at least " +
                         std::to_string(kMinEncodedKey) + " per key)");
    idx.reserve(n, std::min(bytes, n * kReservedBytesPerKey));
    std::string prev;
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t shared = r.varint();
        if (shared > prev.size()) throw StateError("oss-cdc polling state: bad key prefix");
        std::uint64_t len = r.varint();
        prev.resize(shared);
        prev.append(r.raw(len));
        idx.append(prev, r.fixed64());
    }
    return idx;
}

std::size_t PollingState::objects() const {
    std::size_t n = 0;
    for (const auto& p : prefixes) n += p.size();
    return n;
}

void PollingState::encode(ByteWriter& w) const {
    w.varint(baseline_done ? 1 : 0);
    w.varint(scans);
    w.varint(prefixes.size());
    for (const auto& p : prefixes) p.encode(w);
}

PollingState PollingState::decode(ByteReader& r) {
    PollingState s;
    s.baseline_done = r.varint() != 0;
    s.scans = r.varint();
    std::uint64_t n = r.varint();
    if (n > 100'000) throw StateError("oss-cdc polling state: implausible prefix count");
    for (std::uint64_t i = 0; i < n; ++i) s.prefixes.push_back(KeyIndex::decode(r));
    return s;
}

}  // namespace cdcd::oss
