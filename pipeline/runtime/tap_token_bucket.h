#pragma once
// The sampling budget of one tap: `rate` tokens a second, at most `burst` saved up. The pipeline
// thread asks once per batch how many events it may copy, so a tap costs at most `rate` copied
// events a second whatever the pipeline's speed.
#include <chrono>
#include <cstddef>

namespace cdcd {

class TapTokenBucket {
  public:
    using Clock = std::chrono::steady_clock;

    /// Starts full.
    TapTokenBucket(double rate_per_second, double burst, Clock::time_point now);
    /// Whole tokens available at `now` (refilled since the last call).
    std::size_t available(Clock::time_point now);
    /// Spends n tokens of the last available() answer.
    void take(std::size_t n);

  private:
    double rate_;
    double burst_;
    double tokens_;
    Clock::time_point last_;
};

}  // namespace cdcd
