#pragma once
// Exactly-once after a restart in the middle of the snapshot (scan.incremental.snapshot.backfill
// .skip false). The slot's exported snapshot S ends with the process, so the rest of the tables
// is read in a REPEATABLE READ snapshot of its own; every such resumed read is recorded
// (ResumedRead: where it began, its snapshot's xmin:xmax:xip, the WAL position after it was
// taken). Streaming still starts at the slot's consistent point, so a change to a row read in a
// resumed snapshot arrives again unless filtered: a change of transaction X to key k is emitted
// iff X is not visible in the snapshot k was read in. That is exact: PostgreSQL serialises the
// transactions that change one row, so those a snapshot sees come first in the stream; the
// row's emitted value, then the changes it did not see, are its history without a gap or a
// repeat. Keys read in S (before the first resumed read) take every streamed change, as
// without a restart. Once the stream is past the last resumed read's WAL position, no
// transaction it saw is left and the filter is dropped.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/stream.h"
#include "pipeline/data/table_id.h"
#include "sources/postgres/change_decoder.h"
#include "sources/postgres/state_codec.h"

namespace cdcd::postgres {

/// Where each side of a streamed change goes.
enum class Verdict { Emit, Suppress };

class BackfillFilter {
  public:
    /// Whether key `a` sorts at or before key `b` in table `table` (the server's order: the
    /// column types and collations of the key); keys are in PostgreSQL's text format.
    using KeyAtOrBefore =
        std::function<bool(const TableId& table, const std::vector<std::string>& a,
                           const std::vector<std::string>& b)>;

    /// `chunk_key_column`: scan.incremental.snapshot.chunk.key-column, the key of a table
    /// without a primary key.
    BackfillFilter(std::vector<ResumedRead> reads, KeyAtOrBefore at_or_before,
                   std::optional<std::string> chunk_key_column = std::nullopt);

    /// Whether the filter still matters at stream position `lsn` (a transaction starting at or
    /// after the last resumed read's high watermark was seen by none).
    bool active(Lsn lsn) const;
    const std::vector<ResumedRead>& reads() const { return reads_; }

    /// A change of transaction `xid` to the row of `table` keyed `key` (the snapshot's paging key
    /// in text; nullopt: the table is read whole, or the key is unknown).
    Verdict row(const TableId& table, const std::optional<std::vector<std::string>>& key,
                std::uint32_t xid) const;
    /// Drops from `events` (and `bad`), what `decoder` made of the streamed `message` of
    /// transaction `xid`, the changes a resumed read already saw. An update that moves a row from
    /// a key whose read did not see it to one whose read did (or the reverse) keeps its emitted
    /// side: a delete of the old key, or an insert of the new one.
    void apply(const PgoutputMessage& message, std::uint32_t xid, const ChangeDecoder& decoder,
               EventBatch& events, std::vector<BadRecord>& bad) const;

    /// A TRUNCATE of `table` by `xid`; throws when some of the table's rows were read before the
    /// truncate and others after it (no event says that downstream).
    Verdict truncate(const TableId& table, std::uint32_t xid) const;

  private:
    /// Whether `table`'s row `key` was emitted before resumed read `i` began.
    bool emitted_before(std::size_t i, const TableId& table,
                        const std::optional<std::vector<std::string>>& key) const;

    std::vector<ResumedRead> reads_;
    KeyAtOrBefore at_or_before_;
    std::optional<std::string> chunk_key_column_;
};

}  // namespace cdcd::postgres
