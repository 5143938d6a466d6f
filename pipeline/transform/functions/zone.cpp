#include "pipeline/transform/functions/zone.h"

#include <map>
#include <mutex>

namespace cdcd::transform {

std::shared_ptr<const Zone> Zone::utc() {
    static const auto z = std::make_shared<const Zone>(TimeZone::utc());
    return z;
}

std::shared_ptr<const Zone> Zone::find(std::string_view id) {
    static std::mutex mu;
    static std::map<std::string, std::shared_ptr<const Zone>, std::less<>> cache;
    std::lock_guard lock(mu);
    if (auto it = cache.find(id); it != cache.end()) return it->second;
    auto tz = TimeZone::of(id);
    std::shared_ptr<const Zone> z = tz ? std::make_shared<const Zone>(std::move(*tz)) : nullptr;
    cache.emplace(std::string(id), z);
    return z;
}

}  // namespace cdcd::transform
