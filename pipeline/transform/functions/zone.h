#pragma once
// The session zone of `pipeline.local-time-zone` as the evaluator sees it: a cached, shared
// cdcd::TimeZone (pipeline/data/time_zone.h) looked up once per id.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "pipeline/data/time_zone.h"

namespace cdcd::transform {

class Zone {
  public:
    explicit Zone(TimeZone tz) : tz_(std::move(tz)) {}
    /// nullptr when java.time.ZoneId would not know the id.
    static std::shared_ptr<const Zone> find(std::string_view id);
    static std::shared_ptr<const Zone> utc();

    std::int32_t offset_at_instant(std::int64_t epoch_seconds) const {
        return tz_.offset_at(epoch_seconds);
    }
    /// The offset and the instants [*from, *until) that share it.
    std::int32_t offset_at_instant(std::int64_t epoch_seconds, std::int64_t* from,
                                   std::int64_t* until) const {
        return tz_.offset_at(epoch_seconds, from, until);
    }
    std::int32_t offset_at_local(std::int64_t local_seconds) const {
        return tz_.offset_for_local(local_seconds);
    }
    const std::string& id() const { return tz_.id(); }

  private:
    TimeZone tz_;
};

}  // namespace cdcd::transform
