#include "pipeline/transform/zone.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace cdcd::transform {

namespace {

std::int64_t be(const unsigned char* p, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
    if (n == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    return static_cast<std::int64_t>(v);
}

// "+08:00", "-0530", "+8" → seconds; false if not an offset.
bool parse_offset(std::string_view s, std::int32_t& out) {
    if (s.empty() || (s[0] != '+' && s[0] != '-')) return false;
    int sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
    std::string digits;
    int h = 0, m = 0;
    auto colon = s.find(':');
    auto all_digits = [](std::string_view x) {
        return !x.empty() && std::all_of(x.begin(), x.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    };
    if (colon != std::string_view::npos) {
        if (!all_digits(s.substr(0, colon)) || !all_digits(s.substr(colon + 1))) return false;
        h = std::stoi(std::string(s.substr(0, colon)));
        m = std::stoi(std::string(s.substr(colon + 1)));
    } else {
        if (!all_digits(s)) return false;
        if (s.size() <= 2) {
            h = std::stoi(std::string(s));
        } else if (s.size() == 4) {
            h = std::stoi(std::string(s.substr(0, 2)));
            m = std::stoi(std::string(s.substr(2)));
        } else {
            return false;
        }
    }
    if (h > 18 || m > 59) return false;
    out = sign * (h * 3600 + m * 60);
    return true;
}

}  // namespace

std::shared_ptr<const Zone> Zone::utc() {
    static const auto z = [] {
        auto p = std::make_shared<Zone>();
        p->id_ = "UTC";
        return std::shared_ptr<const Zone>(p);
    }();
    return z;
}

std::shared_ptr<const Zone> Zone::find(std::string_view id) {
    static std::mutex mu;
    static std::map<std::string, std::shared_ptr<const Zone>, std::less<>> cache;
    std::lock_guard lock(mu);
    if (auto it = cache.find(id); it != cache.end()) return it->second;
    auto z = std::make_shared<Zone>();
    z->id_ = std::string(id);
    std::int32_t off = 0;
    bool ok = false;
    if (id == "UTC" || id == "GMT" || id == "Z" || id == "UT") {
        ok = true;
    } else if (parse_offset(id, off)) {
        z->fixed_ = off;
        ok = true;
    } else if ((id.rfind("UTC", 0) == 0 || id.rfind("GMT", 0) == 0) && parse_offset(id.substr(3), off)) {
        z->fixed_ = off;
        ok = true;
    } else if (!id.empty() && id.find("..") == std::string_view::npos && id.front() != '/') {
        std::ifstream in("/usr/share/zoneinfo/" + std::string(id), std::ios::binary);
        if (in) {
            std::stringstream ss;
            ss << in.rdbuf();
            std::string data = ss.str();
            const auto* p = reinterpret_cast<const unsigned char*>(data.data());
            if (data.size() >= 44 && data.compare(0, 4, "TZif") == 0) {
                auto counts = [&](std::size_t at, std::int64_t c[6]) {
                    for (int k = 0; k < 6; ++k) c[k] = be(p + at + 20 + 4 * k, 4);
                };
                std::int64_t c[6];  // isut, isstd, leap, time, type, char
                counts(0, c);
                std::size_t at = 44;
                int tsize = 4;
                if (data[4] >= '2') {
                    at += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
                    if (at + 44 <= data.size()) {
                        counts(at, c);
                        at += 44;
                        tsize = 8;
                    }
                }
                std::size_t need = at + c[3] * tsize + c[3] + c[4] * 6;
                if (need <= data.size() && c[4] > 0) {
                    std::vector<std::int32_t> type_off(c[4]);
                    std::size_t types_at = at + c[3] * tsize + c[3];
                    for (std::int64_t k = 0; k < c[4]; ++k) type_off[k] = static_cast<std::int32_t>(be(p + types_at + 6 * k, 4));
                    z->initial_ = type_off[0];
                    for (std::int64_t k = 0; k < c[3]; ++k) {
                        z->transitions_.push_back(be(p + at + k * tsize, tsize));
                        unsigned idx = p[at + c[3] * tsize + k];
                        z->offsets_.push_back(idx < type_off.size() ? type_off[idx] : 0);
                    }
                    if (z->transitions_.empty()) z->fixed_ = z->initial_;
                    ok = true;
                }
            }
        }
    }
    std::shared_ptr<const Zone> result = ok ? std::shared_ptr<const Zone>(z) : nullptr;
    cache.emplace(std::string(id), result);
    return result;
}

std::int32_t Zone::offset_at_instant(std::int64_t t) const {
    if (transitions_.empty()) return fixed_;
    auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t);
    if (it == transitions_.begin()) return initial_;
    return offsets_[it - transitions_.begin() - 1];
}

std::int32_t Zone::offset_at_local(std::int64_t local) const {
    if (transitions_.empty()) return fixed_;
    // The offsets in effect shortly before and after; in an overlap the earlier one wins, in a
    // gap the one before the transition (java.time's ofLocal).
    std::int32_t before = offset_at_instant(local - 64800);
    std::int32_t after = offset_at_instant(local + 64800);
    if (offset_at_instant(local - before) == before) return before;
    if (offset_at_instant(local - after) == after) return after;
    return before;
}

}  // namespace cdcd::transform
