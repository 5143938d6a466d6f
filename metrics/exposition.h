#pragma once
// Pieces of the Prometheus text exposition format, shared by the registry and its tests.
#include <string>
#include <string_view>

#include "metrics/registry.h"

namespace cdcd::metrics {

/// [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_metric_name(std::string_view name);
/// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved).
bool valid_label_name(std::string_view name);
/// `{a="x",b="y"}` with `\`, `"` and newlines escaped; empty for no labels.
std::string format_labels(const Labels& labels);
/// A sample value: integers without a fraction, NaN, +Inf, -Inf, else the shortest round-trip.
void append_value(std::string& out, double value);
/// HELP text with `\` and newlines escaped.
std::string escape_help(std::string_view help);

}  // namespace cdcd::metrics
