#pragma once
// A daemon started with stdin, stdout or stderr closed (by a supervisor, `cmd >&-`) would have
// its first files take those descriptors: the event loop's eventfd became stderr, so each log
// line failed with EINVAL, and a values sink printing to stdout wrote into whatever file had
// descriptor 1. Each closed one is opened on /dev/null first, as daemon(3) does.

namespace cdcd::cli {

/// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed. Call it first in main,
/// before anything opens a file.
void open_closed_standard_streams();

}  // namespace cdcd::cli
