#pragma once
// Time-zone offsets for `pipeline.local-time-zone`: fixed offsets (UTC, GMT+8, +08:00) and IANA
// zones read from the system's TZif files (/usr/share/zoneinfo).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cdcd::transform {

class Zone {
public:
    /// nullptr when the id is neither a fixed offset nor a known IANA zone.
    static std::shared_ptr<const Zone> find(std::string_view id);
    static std::shared_ptr<const Zone> utc();

    /// Offset from UTC at the instant `epoch_seconds`.
    std::int32_t offset_at_instant(std::int64_t epoch_seconds) const;
    /// Offset for a wall-clock time (seconds since the local epoch); in a gap or overlap the
    /// offset before the transition, like java.time's ZonedDateTime.ofLocal.
    std::int32_t offset_at_local(std::int64_t local_seconds) const;
    const std::string& id() const { return id_; }

private:
    std::string id_;
    std::int32_t fixed_ = 0;
    std::vector<std::int64_t> transitions_;  // UTC seconds
    std::vector<std::int32_t> offsets_;      // offset in effect from transitions_[i]
    std::int32_t initial_ = 0;               // before the first transition
};

}  // namespace cdcd::transform
