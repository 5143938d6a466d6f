// The option tables in docs/*.md are generated from the declarations: each sits between
//   <!-- BEGIN cdcd describe --format markdown source kafka -->
//   <!-- END cdcd describe -->
// (block `source`, `sink` or `pipeline`, then the connector's name), and a unit test fails when
// the checked-in text differs from what the declarations give.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/option_spec.h"

namespace cdcd::cli {

// The declarations of a block ("source", "sink" or "pipeline") and connector name (empty for
// the pipeline); nullptr when there is no such connector.
using SpecLookup =
    std::function<const config::ConnectorOptionsSpec*(const std::string&, const std::string&)>;

struct OptionTables {
    std::string text;                 // the document with every table regenerated
    std::vector<std::string> errors;  // "line N: ..." for markers that cannot be regenerated
    int tables = 0;                   // how many were found
};

// Regenerates every marked table of a Markdown document.
OptionTables refresh_option_tables(std::string_view markdown, const SpecLookup& lookup);

}  // namespace cdcd::cli
