#pragma once
// Process-level series: resident memory, CPU time, open descriptors, start time, build info.
#include <string>

#include "metrics/registry.h"

namespace cdcd::metrics {

void register_process_metrics(Registry& registry, const std::string& version);

/// Resident set size in bytes (from /proc/self/statm), 0 if unreadable.
double resident_memory_bytes();
/// User + system CPU seconds of this process.
double cpu_seconds();

}  // namespace cdcd::metrics
