#include "sources/postgres/replication_reader.h"

#include <spdlog/spdlog.h>

#include <map>
#include <thread>

#include "formats/json/json_writer.h"
#include "sources/postgres/backfill_filter.h"
#include "sources/postgres/catalog.h"
#include "sources/postgres/change_decoder.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/replication_protocol.h"
#include "sources/postgres/snapshot_reader.h"

namespace cdcd::postgres {

namespace {

// Chunks the queue holds; the event loop emits one while the thread reads the next.
constexpr std::size_t kQueueCapacity = 4;
// Most changes per chunk while streaming.
constexpr std::size_t kMaxChunkEvents = 1024;
// Between a lost replication connection and the next attempt.
constexpr std::chrono::milliseconds kReconnectBackoff{1000};
// How long one wait for the server lasts before the thread looks at stopping_ again.
constexpr std::chrono::milliseconds kPollSlice{100};
// How long the first change of a chunk waits for more before the chunk is handed over. The
// server's WAL sender decodes more slowly than the reader takes its messages, so without it most
// chunks would hold a few changes, each costing two thread wake-ups and a pass through the
// pipeline (bench/reports/postgres.md).
constexpr std::chrono::milliseconds kChunkLinger{10};

}  // namespace

ReplicationReader::ReplicationReader(PostgresSettings settings, std::optional<SourceState> restored,
                                     std::function<void()> wake)
    : settings_(std::move(settings)), restored_(std::move(restored)), wake_(std::move(wake)) {}

ReplicationReader::~ReplicationReader() {
    stopping_ = true;
    space_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void ReplicationReader::start() {
    thread_ = std::thread([this] { run(); });
}

bool ReplicationReader::try_pop(Chunk& chunk) {
    std::lock_guard lock(mutex_);
    if (queue_.empty()) {
        wake_armed_ = true;
        return false;
    }
    chunk = std::move(queue_.front());
    queue_.pop_front();
    space_.notify_all();
    return true;
}

void ReplicationReader::confirm(Lsn lsn) {
    Lsn previous = confirmed_.load();
    while (lsn > previous && !confirmed_.compare_exchange_weak(previous, lsn)) {
    }
}

void ReplicationReader::intent_durable(std::uint64_t intent) {
    std::lock_guard lock(mutex_);
    intents_durable_ = std::max(intents_durable_, intent);
    space_.notify_all();
}

bool ReplicationReader::record_intent(std::optional<Lsn> after) {
    Chunk chunk;
    chunk.intent = ++intents_;
    chunk.creating_slot_after = after;
    if (!push(std::move(chunk))) return false;
    std::unique_lock lock(mutex_);
    while (intents_durable_ < intents_ && !stopping_) space_.wait_for(lock, kPollSlice);
    return !stopping_;
}

std::optional<std::pair<Lsn, std::string>> ReplicationReader::create_slot(
    PgConnection& catalog, PgConnection& replication, const std::optional<SlotInfo>& existing) {
    const std::string& slot_name = settings_.options.slot_name;
    if (existing) {
        // The WAL position before this source last set out to create the slot; 0: it did not.
        const Lsn ours = restored_ ? restored_->creating_slot_after.value_or(0) : 0;
        // A kill right after this source created the slot: the server may not have noticed the
        // dead connection that held it yet.
        std::optional<SlotInfo> slot = existing;
        const auto deadline = std::chrono::steady_clock::now() + settings_.options.connect_timeout;
        while (ours != 0 && slot && slot->active && std::chrono::steady_clock::now() < deadline &&
               !stopping_) {
            std::this_thread::sleep_for(kPollSlice);
            slot = find_slot(catalog, slot_name);
        }
        if (stopping_) return std::nullopt;
        if (slot && !(ours != 0 && created_after(*slot, ours)))
            throw std::runtime_error(
                "postgres source: replication slot " + slot_name + " already exists" +
                (ours != 0 ? " and is not the one this pipeline was creating (it "
                             "reserves WAL from before that, or is in use)"
                           : "") +
                "; scan.startup.mode initial creates the slot itself to take a snapshot "
                "consistent with it: drop it (SELECT pg_drop_replication_slot('" +
                slot_name +
                "')), name another `slot.name`, or use scan.startup.mode committed-offset to "
                "stream from it without a snapshot");
        if (slot) {
            spdlog::warn(
                "postgres source: dropping slot {}, which this pipeline created before it "
                "stopped and no checkpoint names; taking the snapshot from the start",
                slot_name);
            drop_slot(catalog, slot_name);
        }
    } else if (restored_ && restored_->lsn != 0) {
        spdlog::warn(
            "postgres source: slot {} of the unfinished snapshot is gone; taking the snapshot "
            "again from the start",
            slot_name);
    }
    // Durably ours before it exists: a kill between its creation and the first checkpoint that
    // names its position leaves a slot the restart recognises (state_codec.h).
    if (!record_intent(current_wal_insert_lsn(catalog))) return std::nullopt;
    std::optional<PgResult> created;
    try {
        created.emplace(replication.exec("CREATE_REPLICATION_SLOT " + slot_name +
                                         " LOGICAL pgoutput EXPORT_SNAPSHOT"));
    } catch (const PgError&) {
        // Someone else's slot of that name, made since it was looked up: not ours to drop on
        // the next start.
        if (find_slot(catalog, slot_name)) record_intent(std::nullopt);
        throw;
    }
    auto consistent = parse_lsn(created->text(0, 1));
    if (!consistent)
        throw std::runtime_error(
            "postgres source: CREATE_REPLICATION_SLOT answered consistent point '" +
            created->text(0, 1) + "'");
    spdlog::info("postgres source: created slot {} at {}; reading the snapshot", slot_name,
                 format_lsn(*consistent));
    return std::pair{*consistent, created->text(0, 2)};
}

bool ReplicationReader::push(Chunk chunk) {
    std::unique_lock lock(mutex_);
    while (queue_.size() >= kQueueCapacity && !stopping_) {
        space_.wait_for(lock, kPollSlice);
        if (streaming_) {
            // The event loop is behind (back-pressure): keep the server's wal_sender_timeout
            // from closing the stream meanwhile.
            lock.unlock();
            send_status(false);
            lock.lock();
        }
    }
    if (stopping_) return false;
    queue_.push_back(std::move(chunk));
    if (wake_armed_) {
        wake_armed_ = false;
        wake_();
    }
    return true;
}

void ReplicationReader::run() {
    try {
        read();
    } catch (...) {
        Chunk failed;
        failed.error = std::current_exception();
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(failed));
        if (wake_armed_) {
            wake_armed_ = false;
            wake_();
        }
    }
}

void ReplicationReader::send_status(bool now) {
    const auto clock = std::chrono::steady_clock::now();
    const Lsn flush = confirmed_.load();
    if (!now && flush == reported_flush_ &&
        clock - last_status_ < settings_.options.heartbeat_interval)
        return;
    streaming_->write_copy(
        standby_status_update(std::max(received_, flush), flush, postgres_epoch_now_us()));
    reported_flush_ = flush;
    last_status_ = clock;
}

void ReplicationReader::read() {
    const PostgresOptions& o = settings_.options;
    TableFilter filter(settings_.database, o.tables, o.tables_exclude, o.table_id_include_database);
    auto catalog = std::make_unique<PgConnection>(settings_, PgConnection::Kind::Normal);
    const std::vector<CapturedTable> tables = list_captured_tables(*catalog, filter);
    if (tables.empty())
        throw std::runtime_error(
            "postgres source: no table of database " + settings_.database +
            " matches `tables` = " + o.tables +
            (o.tables_exclude ? " and `tables.exclude` = " + *o.tables_exclude : std::string()));
    const bool resume_stream = restored_ && restored_->phase == Phase::Stream;
    // Where a snapshot interrupted by a stop goes on, and the tables already announced.
    SnapshotProgress progress;
    std::map<TableId, Schema> announced;
    if (restored_) {
        for (const auto& [id, schema] : restored_->tables) announced.emplace(id, schema);
        if (restored_->phase == Phase::Snapshot) progress = restored_->snapshot;
    }
    const SnapshotSettings snapshot_settings{.fetch_size = o.snapshot_fetch_size,
                                             .chunk_size = o.snapshot_chunk_size,
                                             .metadata = settings_.metadata,
                                             .modes = settings_.modes,
                                             .chunk_key_column = o.chunk_key_column,
                                             .schema_changes = o.schema_change_enabled};
    // The reads of the snapshot's rest after restarts, each in a snapshot of its own.
    std::vector<ResumedRead> resumed;
    if (restored_) resumed = restored_->resumed;
    // Snapshot batches go out with the LSN streaming starts from once the snapshot is read.
    auto handing_over = [this, &resumed](Lsn start) {
        return [this, start, &resumed](SnapshotBatch b) {
            Chunk chunk{std::move(b.events),
                        std::move(b.bad_records),
                        Phase::Snapshot,
                        start,
                        0,
                        false,
                        nullptr,
                        std::move(b.progress),
                        resumed,
                        0,
                        std::nullopt};
            chunk.rows_estimate = b.rows_estimate;
            return push(std::move(chunk));
        };
    };

    if (o.startup == StartupMode::Snapshot && !resume_stream) {
        PgConnection snapshot(settings_, PgConnection::Kind::Normal);
        read_snapshot(snapshot, "", tables, filter, snapshot_settings, progress, announced,
                      handing_over(0));
        if (!stopping_)
            push(Chunk{{}, {}, Phase::Snapshot, 0, 0, true, nullptr, {}, {}, 0, std::nullopt});
        return;
    }

    ensure_publication(*catalog, settings_, tables);
    // A catalog lookup while streaming; idle for long, or after a server restart, the connection
    // may be gone: once more on a new one.
    auto ask_catalog = [&](const auto& lookup) {
        try {
            return lookup(*catalog);
        } catch (const PgError&) {
            catalog = std::make_unique<PgConnection>(settings_, PgConnection::Kind::Normal);
            return lookup(*catalog);
        }
    };
    ChangeDecoder decoder(
        filter,
        [&](const RelationMessage& m) {
            const std::string name = filter.table_id(m.namespace_name, m.relation_name).str();
            return ask_catalog([&](PgConnection& conn) {
                return table_schema(conn, m.relation_oid, name, settings_.modes);
            });
        },
        o.schema_change_enabled, settings_.modes);
    decoder.set_type_resolver([&](Oid type) {
        return ask_catalog([&](PgConnection& conn) {
            return resolve_types(conn, {{type, -1}}).front();
        });
    });
    decoder.set_metadata(settings_.metadata);

    auto replication = std::make_unique<PgConnection>(settings_, PgConnection::Kind::Replication);
    const std::string& slot_name = o.slot_name;
    std::optional<SlotInfo> slot = find_slot(*catalog, slot_name);
    if (slot && slot->plugin != "pgoutput")
        throw std::runtime_error("postgres source: slot " + slot_name + " uses plugin " +
                                 slot->plugin + "; cdcd decodes pgoutput only");
    if (slot && slot->database != settings_.database)
        throw std::runtime_error("postgres source: slot " + slot_name + " belongs to database " +
                                 slot->database + ", not " + settings_.database);

    Lsn start = 0;
    std::uint64_t skip = 0;
    std::vector<std::pair<TableId, Schema>> snapshot_schemas;
    if (resume_stream) {
        if (!slot)
            throw std::runtime_error(
                "postgres source: replication slot " + slot_name +
                " no longer exists, so the changes after the checkpoint's LSN " +
                format_lsn(restored_->lsn) +
                " are lost; start again with --reset-state (a new snapshot)");
        start = restored_->lsn;
        skip = restored_->txn_events;
        spdlog::info(
            "postgres source: resuming slot {} at {} (skipping {} changes already emitted)",
            slot_name, format_lsn(start), skip);
    } else if (o.startup == StartupMode::Initial) {
        if (restored_ && slot && restored_->lsn != 0) {
            // The snapshot was interrupted: the slot still holds every change since its
            // consistent point, so the rest of the tables is read in a snapshot of now and the
            // stream then starts at that point. Changes to those rows in between arrive twice
            // (once in the rows, once streamed): at-least-once, as Flink CDC without backfill.
            start = restored_->lsn;
            spdlog::info(
                "postgres source: reading on the snapshot ({} tables done); the changes "
                "since {} follow{}",
                progress.done.size(), format_lsn(start),
                o.backfill_skip ? " (backfill skipped: at-least-once)" : "");
            // Exactly-once: the stream will drop what this snapshot already saw.
            SnapshotTaken taken;
            if (!o.backfill_skip)
                taken = [&](const TxnSnapshot& s, Lsn high) {
                    resumed.push_back(ResumedRead{progress, s, high});
                };
            PgConnection snapshot(settings_, PgConnection::Kind::Normal);
            snapshot_schemas = read_snapshot(snapshot, "", tables, filter, snapshot_settings,
                                             progress, announced, handing_over(start), taken);
        } else {
            resumed.clear();
            auto created = create_slot(*catalog, *replication, slot);
            if (!created) return;
            start = created->first;
            PgConnection snapshot(settings_, PgConnection::Kind::Normal);
            snapshot_schemas = read_snapshot(snapshot, created->second, tables, filter,
                                             snapshot_settings, {}, announced, handing_over(start));
        }
        if (stopping_) return;
        if (!push(Chunk{
                {}, {}, Phase::Stream, start, 0, false, nullptr, {}, resumed, 0, std::nullopt}))
            return;
    } else {
        if (!slot) {
            PgResult created = replication->exec("CREATE_REPLICATION_SLOT " + slot_name +
                                                 " LOGICAL pgoutput NOEXPORT_SNAPSHOT");
            start = parse_lsn(created.text(0, 1)).value_or(0);
            spdlog::info("postgres source: created slot {} at {}", slot_name, format_lsn(start));
        } else if (o.startup == StartupMode::CommittedOffset) {
            start = slot->confirmed_flush.value_or(0);
        } else {
            start = current_wal_lsn(*catalog);
        }
        if (!push(Chunk{{}, {}, Phase::Stream, start, 0, false, nullptr, {}, {}, 0, std::nullopt}))
            return;
    }
    // What downstream was told: the snapshot's schemas are (it announced the restored ones'
    // changes, if any), the restored ones for the tables it did not read.
    if (restored_)
        for (const auto& [id, schema] : restored_->tables) decoder.add_known(id, schema);
    for (const auto& [id, schema] : snapshot_schemas) decoder.add_known(id, schema);
    if (!resumed.empty()) {
        // Keys compared by the server, in the order the snapshot read them (types, collations):
        // each key becomes a record of the table's row type.
        auto at_or_before = [&](const TableId& id, const std::vector<std::string>& a,
                                const std::vector<std::string>& b) {
            const CapturedTable* table = nullptr;
            for (const CapturedTable& t : tables)
                if (filter.table_id(t.schema, t.name) == id) table = &t;
            if (!table)
                throw std::runtime_error("postgres source: table " + id.str() +
                                         " of the interrupted snapshot is no longer captured");
            const Schema* schema = decoder.known(id);
            if (!schema)
                throw std::runtime_error("postgres source: table " + id.str() +
                                         " of the interrupted snapshot has no known schema");
            const auto columns = paging_key(*schema, id, o.chunk_key_column);
            if (columns.size() != a.size() || a.size() != b.size())
                throw std::runtime_error("postgres source: the key of table " + id.str() +
                                         " changed while its snapshot was interrupted");
            auto record = [&](const std::vector<std::string>& key) {
                std::string out;
                json::Writer w(out);
                w.begin_object();
                for (std::size_t i = 0; i < columns.size(); ++i)
                    w.key(schema->columns()[columns[i]].name).string(key[i]);
                w.end_object();
                return out;
            };
            std::string left, right;
            for (std::size_t c : columns) {
                const std::string column = catalog->quote_identifier(schema->columns()[c].name);
                left += (left.empty() ? "a." : ", a.") + column;
                right += (right.empty() ? "b." : ", b.") + column;
            }
            const std::string type = catalog->quote_identifier(table->schema) + "." +
                                     catalog->quote_identifier(table->name);
            const std::string sql = "SELECT ROW(" + left + ") <= ROW(" + right +
                                    ") FROM json_populate_record(NULL::" + type +
                                    ", $1::json) a, json_populate_record(NULL::" + type +
                                    ", $2::json) b";
            PgResult r = [&] {
                try {
                    return catalog->exec_params(sql, {record(a), record(b)});
                } catch (const PgError&) {
                    catalog = std::make_unique<PgConnection>(settings_, PgConnection::Kind::Normal);
                    return catalog->exec_params(sql, {record(a), record(b)});
                }
            }();
            return r.text(0, 0) == "t";
        };
        backfill_ =
            std::make_unique<BackfillFilter>(std::move(resumed), at_or_before, o.chunk_key_column);
        if (!backfill_->active(start)) backfill_.reset();
    }
    stream(std::move(replication), decoder, start, skip);
}

void ReplicationReader::stream(std::unique_ptr<PgConnection> replication, ChangeDecoder& decoder,
                               Lsn start, std::uint64_t skip) {
    Position handed_over{start, skip};
    int failures = 0;
    for (;;) {
        const Position from = handed_over;
        try {
            stream_session(*replication, decoder, from, handed_over);
            return;
        } catch (const PgError& e) {
            if (stopping_) return;
            // A session that handed something over worked: count failures in a row only.
            if (handed_over.lsn != from.lsn || handed_over.txn_events != from.txn_events)
                failures = 0;
            if (++failures > settings_.options.connect_max_retries) throw;
            spdlog::warn("{}; reconnecting (attempt {} of {}), resuming at {}", e.what(), failures,
                         settings_.options.connect_max_retries, format_lsn(handed_over.lsn));
        }
        replication.reset();
        std::this_thread::sleep_for(kReconnectBackoff);
        if (stopping_) return;
        replication = std::make_unique<PgConnection>(settings_, PgConnection::Kind::Replication);
    }
}

void ReplicationReader::stream_session(PgConnection& replication, ChangeDecoder& decoder,
                                       Position from, Position& handed_over) {
    const Lsn start = from.lsn;
    std::uint64_t skip = from.txn_events;
    const std::string publication =
        replication.quote_literal(replication.quote_identifier(settings_.publication));
    replication.start_copy_both("START_REPLICATION SLOT " + settings_.options.slot_name +
                                " LOGICAL " + format_lsn(start) +
                                " (proto_version '1', publication_names " + publication + ")");
    streaming_ = &replication;
    struct Forget {
        PgConnection*& streaming;
        ~Forget() { streaming = nullptr; }
    } forget{streaming_};
    received_ = start;
    reported_flush_ = 0;  // a new session hears the confirmed position at once
    last_status_ = std::chrono::steady_clock::now();

    // The position after the last change taken: the end of the last whole transaction, and how
    // many changes of the open one were taken.
    Lsn committed = start;
    std::uint64_t txn_events = 0;
    bool in_txn = false;
    Chunk pending{{}, {}, Phase::Stream, start, 0, false, nullptr, {}, {}, 0, std::nullopt};
    std::uint32_t xid = 0;  // of the transaction being read

    auto flush_pending = [&]() {
        pending.lsn = committed;
        pending.txn_events = txn_events;
        // The restarted snapshot's reads stay in the checkpoint until the stream is past them.
        if (backfill_ && !backfill_->active(committed)) backfill_.reset();
        if (backfill_) pending.resumed = backfill_->reads();
        const bool nothing = pending.events.empty() && pending.bad_records.empty();
        // While skipping what was emitted before, the position handed over stays ahead.
        if (nothing && (skip > 0 || (pending.lsn == handed_over.lsn &&
                                     pending.txn_events == handed_over.txn_events)))
            return true;
        handed_over = {pending.lsn, pending.txn_events};
        Chunk out = std::move(pending);
        pending = Chunk{{}, {}, Phase::Stream, committed, txn_events, false, nullptr, {},
                        {}, 0,  std::nullopt};
        return push(std::move(out));
    };

    using Clock = std::chrono::steady_clock;
    Clock::time_point pending_since{};
    while (!stopping_) {
        // Take what the server sends until the chunk is full or its first change waited
        // kChunkLinger, then hand it over.
        const bool have_pending = !pending.events.empty() || !pending.bad_records.empty();
        std::chrono::milliseconds wait = kPollSlice;
        if (have_pending)
            wait = std::max(std::chrono::milliseconds(0),
                            std::chrono::duration_cast<std::chrono::milliseconds>(
                                pending_since + kChunkLinger - Clock::now()));
        auto bytes = replication.read_copy(wait);
        if (!bytes) {
            if (!flush_pending()) return;
            send_status(false);
            continue;
        }
        const ServerCopyMessage message = decode_server_copy(*bytes);
        if (const auto* keepalive = std::get_if<PrimaryKeepalive>(&message)) {
            received_ = std::max(received_, keepalive->wal_end);
            // Idle between transactions, everything before wal_end has been sent: a restart may
            // begin there, so the slot can let go of WAL written for other tables meanwhile.
            if (!in_txn && skip == 0 && keepalive->wal_end > committed)
                committed = keepalive->wal_end;
            if (keepalive->reply_requested) send_status(true);
            continue;
        }
        const auto& data = std::get<XLogData>(message);
        received_ = std::max(received_, data.wal_start);
        const PgoutputMessage decoded = decode_pgoutput(data.payload);
        if (const auto* begin = std::get_if<BeginMessage>(&decoded)) {
            in_txn = true;
            txn_events = 0;
            xid = begin->xid;
            decoder.set_commit_time(unix_ms_of(begin->commit_time_us));
        } else if (const auto* commit = std::get_if<CommitMessage>(&decoded)) {
            in_txn = false;
            committed = commit->end_lsn;
            txn_events = 0;
            skip = 0;
            received_ = std::max(received_, commit->end_lsn);
        } else {
            EventBatch events;
            std::vector<BadRecord> bad;
            const std::size_t changes = decoder.decode(decoded, events, bad);
            if (changes > 0 && backfill_) backfill_->apply(decoded, xid, decoder, events, bad);
            if (changes > 0) ++txn_events;
            if (changes > 0 && skip > 0) {
                --skip;  // emitted before the restart
            } else {
                if (pending.events.empty() && pending.bad_records.empty())
                    pending_since = Clock::now();
                for (auto& e : events) pending.events.push_back(std::move(e));
                for (auto& b : bad) pending.bad_records.push_back(std::move(b));
            }
        }
        const bool full = pending.events.size() >= kMaxChunkEvents;
        const bool due = (!pending.events.empty() || !pending.bad_records.empty()) &&
                         Clock::now() - pending_since >= kChunkLinger;
        if ((full || due) && !flush_pending()) return;
        send_status(false);
    }
}

}  // namespace cdcd::postgres
