#include "pipeline/util/java_hash_map.h"

#include <algorithm>
#include <cstdint>

namespace cdcd {

int java_string_hash(const std::string& s) {
    std::uint32_t h = 0;
    // Decode UTF-8 into UTF-16 code units.
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        std::uint32_t cp;
        size_t len;
        if ((c >> 5) == 6 && i + 1 < s.size()) {
            cp = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
            len = 2;
        } else if ((c >> 4) == 14 && i + 2 < s.size()) {
            cp = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            len = 3;
        } else if ((c >> 3) == 30 && i + 3 < s.size()) {
            cp = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) |
                 (s[i + 3] & 0x3F);
            len = 4;
        } else {  // ASCII (or a stray byte, taken as it is)
            cp = c;
            len = 1;
        }
        i += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = h * 31 + (0xD800 + (cp >> 10));
            h = h * 31 + (0xDC00 + (cp & 0x3FF));
        } else {
            h = h * 31 + cp;
        }
    }
    return static_cast<int>(h);
}

std::vector<std::size_t> java_hash_map_order(const std::vector<std::string>& keys) {
    // HashMap starts at 16 buckets and doubles when size exceeds 0.75 * capacity.
    std::size_t capacity = 16;
    while (keys.size() > capacity * 3 / 4) capacity *= 2;
    struct Entry {
        std::size_t bucket, index;
    };
    std::vector<Entry> entries;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        auto h = static_cast<std::uint32_t>(java_string_hash(keys[i]));
        h ^= h >> 16;
        entries.push_back({h & (capacity - 1), i});
    }
    // Resizing splits buckets preserving relative order, so insertion order within a bucket holds.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.bucket < b.bucket; });
    std::vector<std::size_t> order;
    order.reserve(entries.size());
    for (auto& e : entries) order.push_back(e.index);
    return order;
}

}  // namespace cdcd
