#include "sources/dingtalk/retry_schedule.h"

#include <algorithm>

namespace cdcd::dingtalk {

std::int64_t retry_delay_ms(int failures, std::int64_t poll_interval_ms) {
    if (failures <= 1) return 0;
    std::int64_t delay = std::max<std::int64_t>(poll_interval_ms, 1);
    for (int i = 1; i < failures && delay < kMaxRetryDelayMs; ++i) delay *= 2;
    return std::min(delay, kMaxRetryDelayMs);
}

const RetryEntry& schedule_retry(RetrySchedule& schedule, const std::string& doc_id,
                                 std::int64_t now_ms, std::int64_t poll_interval_ms) {
    RetryEntry& e = schedule[doc_id];
    e.failures = std::min(e.failures + 1, 1'000'000);
    e.next_ms = now_ms + retry_delay_ms(e.failures, poll_interval_ms);
    return e;
}

bool retry_due(const RetrySchedule& schedule, const std::string& doc_id, std::int64_t now_ms) {
    auto it = schedule.find(doc_id);
    return it != schedule.end() && it->second.next_ms <= now_ms;
}

}  // namespace cdcd::dingtalk
