#pragma once
// Time zones as java.time.ZoneId understands them, for TIMESTAMP_LTZ / TIMESTAMP_TZ conversions
// under `pipeline.local-time-zone`. g++ 12's libstdc++ has no std::chrono::locate_zone, and
// setenv("TZ") + localtime_r is neither thread-safe nor able to hold several zones, so region
// zones are read from the system's TZif files (/usr/share/zoneinfo, RFC 8536), including the
// POSIX-TZ footer rule that covers instants after the last listed transition.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pipeline/data/values.h"

namespace cdcd {

class TimeZone {
  public:
    /// Like ZoneId.of: "Z", "UTC", "GMT", "UT", fixed offsets "+08:00", "-8", "+0530",
    /// "GMT+08:00", "UTC-3", and region ids "Asia/Shanghai" (case-sensitive). "systemDefault" is
    /// the zone of /etc/localtime. nullopt (and *error) when unknown.
    static std::optional<TimeZone> of(std::string_view id, std::string* error = nullptr);
    static TimeZone utc();
    static TimeZone fixed(int offset_seconds);

    const std::string& id() const;
    /// UTC offset in effect at an instant (seconds since the epoch).
    int offset_at(std::int64_t epoch_seconds) const;
    /// The same, and the instants [*from, *until) around it that have that offset too, so that a
    /// caller can answer nearby instants without a lookup (the span may be narrower than the
    /// zone's, never wider).
    int offset_at(std::int64_t epoch_seconds, std::int64_t* from, std::int64_t* until) const;
    /// UTC offset used for a wall-clock time, as LocalDateTime.atZone does: in a gap or an
    /// overlap it is the offset before the transition.
    int offset_for_local(std::int64_t local_seconds) const;

    /// LocalDateTime.ofInstant(instant, zone), as a zone-less TIMESTAMP value.
    Timestamp to_local(Timestamp instant) const;
    /// localDateTime.atZone(zone).toInstant().
    Timestamp to_instant(Timestamp local) const;

    struct Rules;

  private:
    explicit TimeZone(std::shared_ptr<const Rules> rules) : rules_(std::move(rules)) {}
    std::shared_ptr<const Rules> rules_;
};

}  // namespace cdcd
