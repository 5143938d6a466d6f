#pragma once
// `cdcd checkpoints list|show|export`: the stored checkpoints of a state directory, for
// operators and bug reports. Output passes through secret redaction.
#include "cmd/cli_options.h"

namespace cdcd::cli {

/// Returns the process exit code; throws std::exception with a message for bad usage.
int checkpoints_command(const CliOptions& options);

}  // namespace cdcd::cli
