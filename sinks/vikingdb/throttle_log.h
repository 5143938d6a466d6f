#pragma once
// Reports throttling at a bounded rate, since a throttled service may answer 429 many times a
// second for minutes: the first throttled answer at once, then at most one line per interval,
// counting the answers in between.
//
//   ThrottleLog log("VikingDB data plane");
//   if (auto line = log.note("HTTP 429 RequestLimitExceeded", rate->rate()))
//       spdlog::warn("{}", *line);
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace cdcd::vikingdb {

class ThrottleLog {
  public:
    using Clock = std::chrono::steady_clock;
    explicit ThrottleLog(std::string what, Clock::duration interval = std::chrono::seconds(30),
                         std::function<Clock::time_point()> now = Clock::now);

    /// A throttled answer (`answer` describes it), after which the request rate is `rate`
    /// (requests/s; nullopt: unlimited). Returns the line to log, or nothing within the interval.
    std::optional<std::string> note(const std::string& answer, std::optional<double> rate);

  private:
    std::string what_;
    Clock::duration interval_;
    std::function<Clock::time_point()> now_;
    std::optional<Clock::time_point> last_line_;
    std::uint64_t unreported_ = 0;  // throttled answers since the last line
};

}  // namespace cdcd::vikingdb
