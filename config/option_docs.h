// The Markdown table of a connector's (or the pipeline block's) declared options, for
// `cdcd describe --format markdown` and the generated option tables in docs/*.md.
#pragma once

#include <string>

#include "config/option_spec.h"

namespace cdcd::config {

// | Option | Type | Default | Required | Description |, one row per option, then one per prefix
// (`properties.*`). Enum values, ranges and secrets are shown; `|` in text is escaped.
std::string markdown_table(const ConnectorOptionsSpec& spec);

}  // namespace cdcd::config
