#pragma once
// What a client asks of `GET /tap?point=…&table=…&rate=…&limit=…` (the admin endpoint's tap):
// the query string is untrusted input, parsed here and fuzzed (tests/fuzz/pipeline/).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cdcd {

/// Where a tap reads the stream: as the source emits it, after transform and route (sink-side
/// tables), or as handed to each sink writer (after partitioning).
enum class TapPoint : std::uint8_t { Source, Transform, Sink };
inline constexpr std::size_t kTapPointCount = 3;
const char* to_string(TapPoint point);

/// Sampled events per second per tap: the default, and the most a client may ask for.
inline constexpr std::uint32_t kDefaultTapRate = 100;
inline constexpr std::uint32_t kMaxTapRate = 1000;

struct TapRequest {
    TapPoint point = TapPoint::Transform;
    std::string table;  // a table selector (pipeline/route/selectors.h); empty: every table
    std::uint32_t rate = kDefaultTapRate;
    std::uint64_t limit = 0;  // lines to send before the tap ends; 0: until the client goes
};

/// A query the tap refuses; what() names the parameter (the endpoint answers 400 with it).
struct TapRequestError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// Parses a query string (without the '?'), percent-decoded, '+' as a space. Unknown or repeated
/// parameters, and bad values, throw TapRequestError.
TapRequest parse_tap_request(std::string_view query);

}  // namespace cdcd
