#include "pipeline/runtime/available_cpus.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace cdcd {

namespace {

std::optional<long long> parse_number(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    long long value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

/// Rounded up: a quota of 1.5 CPUs lets two threads make progress.
std::optional<std::size_t> quota_cpus(long long quota, long long period) {
    if (quota <= 0 || period <= 0) return std::nullopt;
    return static_cast<std::size_t>((quota + period - 1) / period);
}

std::optional<std::string> read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The process's cgroup path for `controller` (a v1 controller such as "cpu"; "" for v2's unified
/// hierarchy).
std::optional<std::string> cgroup_path(std::string_view controller) {
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {  // "0::/path" (v2) or "4:cpu,cpuacct:/path" (v1)
        auto first = line.find(':');
        auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        std::string_view controllers = std::string_view(line).substr(first + 1, second - first - 1);
        std::string path = line.substr(second + 1);
        if (controller.empty()) {
            if (controllers.empty()) return path;
            continue;
        }
        std::string_view rest = controllers;
        while (!rest.empty()) {
            auto comma = rest.find(',');
            if (rest.substr(0, comma) == controller) return path;
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    return std::nullopt;
}

std::optional<std::size_t> cgroup_cpus() {
    if (auto path = cgroup_path("")) {
        if (auto max = read_file("/sys/fs/cgroup" + *path + "/cpu.max"))
            return cpus_of_cgroup2_max(*max);
    }
    if (auto path = cgroup_path("cpu")) {
        const std::string dir = "/sys/fs/cgroup/cpu" + *path;
        auto quota = read_file(dir + "/cpu.cfs_quota_us");
        auto period = read_file(dir + "/cpu.cfs_period_us");
        if (quota && period) return cpus_of_cgroup1_quota(*quota, *period);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::size_t> cpus_of_cgroup2_max(std::string_view text) {
    auto space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    auto quota = parse_number(text.substr(0, space));
    auto period = parse_number(text.substr(space + 1));
    if (!quota || !period) return std::nullopt;  // "max": no limit
    return quota_cpus(*quota, *period);
}

std::optional<std::size_t> cpus_of_cgroup1_quota(std::string_view quota, std::string_view period) {
    auto q = parse_number(quota);
    auto p = parse_number(period);
    if (!q || !p) return std::nullopt;
    return quota_cpus(*q, *p);  // -1: no limit
}

std::size_t available_cpus() {
    std::size_t cpus = std::max<std::size_t>(1, std::thread::hardware_concurrency());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = static_cast<std::size_t>(std::max(1, CPU_COUNT(&set)));
    if (auto limit = cgroup_cpus()) cpus = std::max<std::size_t>(1, std::min(cpus, *limit));
    return cpus;
}

}  // namespace cdcd
