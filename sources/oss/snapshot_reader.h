#pragma once
// SNAPSHOT and INITIAL's first phase: ListObjectsV2 over every `path` prefix (the whole bucket
// when none), page by page, one INSERT per object. The position (prefix index + last emitted
// key, resumed with start-after) is part of the checkpoint, so a restart continues where the
// last checkpoint was taken.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <string>

#include "sources/oss/polling_state.h"
#include "sources/oss/source_context.h"

namespace cdcd::oss {

struct SnapshotProgress {
    std::uint32_t prefix_index = 0;
    std::string start_after;    // last key emitted in the current prefix
    std::uint64_t emitted = 0;  // objects emitted so far (for progress logs)

    void encode(ByteWriter& w) const;
    static SnapshotProgress decode(ByteReader& r);
};

/// The prefixes a scan lists: the configured paths, or "" (whole bucket).
std::vector<std::string> scan_prefixes(const OssSettings& s);

class SnapshotReader {
  public:
    /// `polling` (may be null): INITIAL + POLLING records every emitted object there, so the
    /// polling phase starts from the snapshot without listing again.
    SnapshotReader(SourceContext& ctx, SnapshotProgress& progress, PollingState* polling);
    /// Returns when every prefix is listed (or when stopping).
    boost::asio::awaitable<void> run();

    static constexpr int kPageSize = 1000;

  private:
    SourceContext& ctx_;
    SnapshotProgress& progress_;
    PollingState* polling_;
};

}  // namespace cdcd::oss
