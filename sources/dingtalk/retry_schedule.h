#pragma once
// Documents that could not be read although they exist (the operator may not read them, or they
// are over scan.document.max-bytes) are read again on their own back-off, without waiting for an
// edit: at the next poll, then after 2, 4, 8... poll intervals, at most an hour apart. Kept per
// workspace in the checkpoint, so a restart keeps retrying them; an entry exists only for a
// document of the workspace's tree, so the schedule is bounded by scan.discovery.max-nodes.
#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace cdcd::dingtalk {

struct RetryEntry {
    int failures = 0;          // consecutive failed reads
    std::int64_t next_ms = 0;  // epoch ms; due at the first poll from then on
    friend bool operator==(const RetryEntry&, const RetryEntry&) = default;
};

using RetrySchedule = std::unordered_map<std::string, RetryEntry>;

/// The longest wait between two reads of a document that keeps failing.
inline constexpr std::int64_t kMaxRetryDelayMs = 3'600'000;

/// The wait after the `failures`-th consecutive failure: 0 (the next poll) after the first, then
/// 2^(failures-1) poll intervals, capped at kMaxRetryDelayMs.
std::int64_t retry_delay_ms(int failures, std::int64_t poll_interval_ms);
/// Records a failed read at `now_ms`; returns the entry (failures counted, next read scheduled).
const RetryEntry& schedule_retry(RetrySchedule& schedule, const std::string& doc_id,
                                 std::int64_t now_ms, std::int64_t poll_interval_ms);
/// True when `doc_id` waits for a retry that is due at `now_ms`.
bool retry_due(const RetrySchedule& schedule, const std::string& doc_id, std::int64_t now_ms);

}  // namespace cdcd::dingtalk
