#pragma once
// How many CPUs this process may use: the CPUs its affinity mask allows (taskset, a container's
// cpuset), lowered by a cgroup CPU quota (a container's --cpus), as Rust's
// std::thread::available_parallelism counts them. Threads beyond that only take turns on the
// same CPUs, so the runtime does not start them.
#include <cstddef>
#include <optional>
#include <string_view>

namespace cdcd {

std::size_t available_cpus();

/// CPUs a cgroup v2 `cpu.max` allows ("200000 100000" → 2, "150000 100000" → 2, "max 100000" →
/// nullopt: no limit); nullopt for text it cannot read.
std::optional<std::size_t> cpus_of_cgroup2_max(std::string_view text);
/// The same from cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us (quota -1: no limit).
std::optional<std::size_t> cpus_of_cgroup1_quota(std::string_view quota, std::string_view period);

}  // namespace cdcd
