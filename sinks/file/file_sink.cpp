#include "sinks/file/file_sink.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <unordered_map>

#include "pipeline/event/row_prefetch.h"
#include "pipeline/schema/schema_change_apply.h"
#include "pipeline/util/blocking_calls.h"
#include "sinks/file/writer_state.h"

namespace cdcd::file {

namespace {

class AcceptAll final : public MetadataApplier {
  public:
    boost::asio::awaitable<void> apply(const SchemaChangeEvent&) override { co_return; }
};

class FileWriter final : public SinkWriter {
  public:
    FileWriter(const FileSinkSettings& settings, int index, std::string path,
               metrics::ConnectorMetrics& metrics)
        : settings_(settings), index_(index), path_(std::move(path)), metrics_(metrics) {}

    /// Claims the file before anything is written to it: the runtime stores this state, so a
    /// crash before the first checkpoint resumes into this file rather than refusing it.
    std::optional<std::string> fresh_start_state() override {
        open();
        return wrap(file_->state());
    }

    void restore(std::string_view state) override {
        DecodedWriterState decoded = decode_writer_state(state);
        if (decoded.file) file_ = output::AppendOnlyFile::resume(path_, *decoded.file);
        // Files of writers no longer there (another parallelism): cut back, then left as they
        // are. Done again by a restore of the same state, to the same length.
        retired_.clear();
        for (const auto& retired : decoded.retired) {
            auto file = output::AppendOnlyFile::resume(retired.path, retired.file);
            retired_.push_back({retired.path, file.commit()});  // the cut made durable
            spdlog::info(
                "file sink: {} ends at its checkpointed {} bytes: no writer goes on in it at this "
                "parallelism; writer {} writes {}",
                retired.path, file.length(), index_, path_);
        }
    }

    void restore_schemas(const std::vector<std::pair<TableId, Schema>>& schemas) override {
        for (const auto& [table, schema] : schemas) set_schema(table, schema);
    }

    boost::asio::awaitable<void> write(EventSelection events) override {
        open();
        for (std::size_t k = 0; k < events.size(); ++k) {
            // At parallelism above 1 the rows were built on another thread.
            prefetch_rows_ahead(events, k);
            const Event& e = events[k];
            if (const auto* data = std::get_if<DataChangeEvent>(&e)) {
                const TableFormat& table = format_of(data->table);
                if (settings_.format == FileFormat::DebeziumJson) {
                    json::write_debezium_json(buf_, *data, table.schema, settings_.debezium,
                                              table.connect_schema, &table.rendering);
                } else {
                    json::write_canal_json(buf_, *data, table.schema, settings_.debezium.json,
                                           &table.rendering);
                }
                buf_.push_back('\n');
                ++buffered_records_;
            } else {
                auto change = *as_schema_change(e);
                auto it = tables_.find(table_of(e));
                set_schema(table_of(e),
                           apply_schema_change(it == tables_.end() ? Schema{} : it->second.schema,
                                               change));
            }
        }
        if (buf_.size() >= (1 << 20)) write_out();
        co_return;
    }

    boost::asio::awaitable<std::string> flush(std::uint64_t checkpoint_id) override {
        open();
        write_out();
        co_return wrap(checkpoint_id != 0 ? file_->commit() : file_->state());
    }

    /// The file syncs on a helper thread while this writer goes on appending what follows the
    /// barrier: with the sync on the writer's thread, checkpoints every second cost a quarter
    /// of the throughput (a sync took ~0.3 s of every second at 500 MB/s), and on the event
    /// loop they stalled the source and the admin endpoint too.
    boost::asio::awaitable<CheckpointFlush> flush_for_checkpoint(std::uint64_t) override {
        open();
        write_out();
        output::AppendOnlyFile::Commit commit = file_->begin_commit();
        CheckpointFlush flushed;
        flushed.state = wrap(commit.state);
        flushed.until_durable = syncs_.run(std::move(commit.sync));
        co_return flushed;
    }

    boost::asio::awaitable<void> close() override {
        open();
        write_out();
        output::AppendOnlyFile::Commit commit = file_->begin_commit();
        co_await syncs_.run(std::move(commit.sync));
    }

  private:
    std::string wrap(const std::string& file_state) const {
        return encode_writer_state(file_state, retired_);
    }

    /// A table's schema with what its rows' documents repeat, rendered once per schema.
    struct TableFormat {
        Schema schema;
        json::TableRendering rendering;  // column keys, the table's names
        std::string connect_schema;      // debezium-json's schema block, when it is included
    };

    void set_schema(TableId table, Schema schema) {
        TableFormat& f = tables_[table];
        f.rendering = json::TableRendering::of(table, schema);
        f.connect_schema =
            settings_.format == FileFormat::DebeziumJson && settings_.debezium.include_schema
                ? json::debezium_connect_schema(schema)
                : std::string();
        f.schema = std::move(schema);
    }

    /// The table's format; a batch's events are mostly of one table, so the last is kept.
    const TableFormat& format_of(TableId table) {
        if (!last_format_ || table != last_table_) {
            last_format_ = &tables_.at(table);
            last_table_ = table;
        }
        return *last_format_;
    }

    /// A fresh start that was not claimed (fresh_start_state()) opens the file at first use.
    void open() {
        if (!file_)
            file_ = output::AppendOnlyFile::open_fresh(path_, settings_.if_exists,
                                                       "the file sink's option if-exists");
    }

    void write_out() {
        file_->append(buf_);
        metrics_.bytes_out.inc(buf_.size());
        metrics_.records_out.inc(buffered_records_);
        buffered_records_ = 0;
        buf_.clear();
    }

    const FileSinkSettings& settings_;
    int index_;
    std::string path_;
    std::optional<output::AppendOnlyFile> file_;
    /// Files of writers no longer there, complete: carried in every state (writer_state.h).
    std::vector<RetiredFile> retired_;
    BlockingCalls syncs_{"file sink"};  // after file_: joined before the file closes
    metrics::ConnectorMetrics& metrics_;
    std::string buf_;
    std::uint64_t buffered_records_ = 0;               // lines in buf_
    std::unordered_map<TableId, TableFormat> tables_;  // elements keep their address
    TableId last_table_;                               // format_of()'s last table
    const TableFormat* last_format_ = nullptr;         // its format in tables_
};

}  // namespace

FileSink::FileSink(FileSinkSettings settings, metrics::Registry& registry)
    : settings_(std::move(settings)),
      applier_(std::make_unique<AcceptAll>()),
      metrics_(registry, metrics::Role::Sink, "file") {}

std::unique_ptr<SinkWriter> FileSink::create_writer(int index, int parallelism) {
    return std::make_unique<FileWriter>(settings_, index,
                                        writer_path(settings_.path, index, parallelism), metrics_);
}

std::vector<std::optional<std::string>> FileSink::rescale_writer_states(
    const std::vector<std::string>& states, int parallelism) const {
    return file::rescale_writer_states(settings_.path, states, parallelism);
}

}  // namespace cdcd::file
