#pragma once
// The test cases of `cdcd test`, read from a `tests:` list (in the pipeline file, which the
// runtime ignores, or in a file of its own):
//
//   tests:
//     - name: paid orders are kept, in cents
//       input:                  # upstream events, as the source would emit them
//         - create: app.orders
//           columns: [id INT NOT NULL, amount DECIMAL(10, 2), status STRING]
//           primary-keys: [id]
//         - insert: app.orders
//           after: {id: 1, amount: 10.50, status: paid}
//       expect:                 # sink-side events, after transform, route and schema evolution
//         - create: ods.orders
//           columns: [id INT NOT NULL, cents BIGINT]
//           primary-keys: [id]
//         - insert: ods.orders
//           after: {id: 1, cents: 1050}
//     - name: a zero divisor fails the pipeline
//       input: [...]
//       expect-error: division by zero   # a text the pipeline's error must contain
//     - name: stamped with the minute
//       now: 2024-01-31 10:15:00            # what NOW(), LOCALTIMESTAMP, ... read (UTC)
//       input: [...]
//       expect: [...]
#include <optional>
#include <string>
#include <vector>

#include "cmd/test/event_spec.h"

namespace cdcd::cmd_test {

struct TestCase {
    std::string name;
    config::SourceLocation where;
    std::vector<EventSpec> input;
    std::vector<EventSpec> expect;
    std::optional<std::string> expect_error;
    /// `now: 2024-01-31 10:00:00` (UTC, or with Z / ±HH:mm): the instant the transform's clock
    /// functions (NOW(), LOCALTIMESTAMP, CURRENT_DATE, ...) read, so their results can be expected.
    std::optional<std::int64_t> now_millis;
};

/// Reads the list; problems go to `diags` with their positions.
std::vector<TestCase> parse_test_cases(const config::ConfigNode& list, config::Diagnostics& diags);

}  // namespace cdcd::cmd_test
