#include "metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace cdcd::metrics {

double resident_memory_bytes() {
    std::ifstream statm("/proc/self/statm");
    long size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

double cpu_seconds() {
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    auto secs = [](const timeval& tv) {
        return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
    };
    return secs(usage.ru_utime) + secs(usage.ru_stime);
}

namespace {
double open_fds() {
    std::error_code ec;
    double n = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++n;
    return n;
}
}  // namespace

void register_process_metrics(Registry& registry, const std::string& version) {
    registry.gauge_fn("cdcd_process_resident_memory_bytes", "Resident set size of the process", {},
                      resident_memory_bytes);
    registry.counter_fn("cdcd_process_cpu_seconds_total", "User and system CPU time of the process",
                        {}, cpu_seconds);
    registry.gauge_fn("cdcd_process_open_fds", "Open file descriptors", {}, open_fds);
    double start =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    registry.gauge("cdcd_process_start_time_seconds", "Start time of the process, Unix seconds")
        .set(start);
    registry.gauge("cdcd_build_info", "Always 1; the version is a label", {{"version", version}})
        .set(1);
}

}  // namespace cdcd::metrics
