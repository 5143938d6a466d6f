#pragma once
// Reads the Prometheus text exposition format (version 0.0.4), as the admin endpoint's /metrics
// serves it: `name{label="value",...} value [timestamp]` lines, `#` comments. What `cdcd top`
// shows comes from here, so it reads what any Prometheus server reads; no second protocol.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cdcd::top {

struct Sample {
    std::string name;
    std::vector<std::pair<std::string, std::string>> labels;  // in the order served
    double value = 0;

    /// The label's value, or "" when the sample has no such label.
    std::string_view label(std::string_view key) const;
    /// The name and labels, as one key for matching a series across scrapes.
    std::string series() const;
};

class ExpositionError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Every sample of `text`. Throws ExpositionError naming the line and column of the first
/// malformed line.
std::vector<Sample> parse_prometheus_text(std::string_view text);

}  // namespace cdcd::top
