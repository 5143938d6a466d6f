#include "sinks/values/values_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "pipeline/data/field_format.h"
#include "pipeline/event/event_format.h"
#include "pipeline/schema/schema_change_apply.h"
#include "sinks/values/stdout_writer.h"

namespace cdcd::values {

namespace {

class ValuesApplier final : public MetadataApplier {
  public:
    explicit ValuesApplier(bool reject) : reject_(reject) {}
    boost::asio::awaitable<void> apply(const SchemaChangeEvent& event) override {
        // Flink's ErrorOnChangeMetadataApplier accepts table creation and rejects every change.
        if (reject_ && !std::holds_alternative<CreateTableEvent>(event))
            throw UnsupportedSchemaChange(
                "values sink rejects schema changes (error.on.schema.change): " +
                format_schema_change(event));
        co_return;
    }

  private:
    bool reject_;
};

/// Lines for stdout, collected per writer and written whole, so writers never interleave
/// inside a line.
class LineBuffer {
  public:
    void line(std::string_view text) {
        buf_.append(text);
        buf_.push_back('\n');
    }
    bool full() const { return buf_.size() >= (1 << 16); }
    bool empty() const { return buf_.empty(); }
    std::string take() { return std::exchange(buf_, {}); }

  private:
    std::string buf_;
};

class ValuesWriter final : public SinkWriter {
  public:
    ValuesWriter(const ValuesSinkSettings& settings, MaterializedTables& materialized,
                 StdoutWriter& stdout_writer, metrics::ConnectorMetrics& metrics, int index,
                 int parallelism)
        : settings_(settings),
          materialized_(materialized),
          stdout_(stdout_writer),
          metrics_(metrics),
          prefix_(parallelism > 1 ? std::to_string(index + 1) + "> " : "") {}

    void restore_schemas(const std::vector<std::pair<TableId, Schema>>& schemas) override {
        for (const auto& [table, schema] : schemas) schemas_[table] = schema;
    }

    boost::asio::awaitable<void> write(EventSelection events) override {
        for (const Event& e : events) {
            if (const auto* data = std::get_if<DataChangeEvent>(&e)) {
                if (settings_.print) {
                    auto it = schemas_.find(data->table);
                    if (it == schemas_.end())
                        throw std::runtime_error("values sink: data for " + data->table.str() +
                                                 " before its CreateTableEvent");
                    out_.line(prefix_ + format_data_change(*data, it->second));
                }
            } else {
                auto change = *as_schema_change(e);
                auto it = schemas_.find(table_of(e));
                schemas_[table_of(e)] =
                    apply_schema_change(it == schemas_.end() ? Schema{} : it->second, change);
                if (settings_.print) out_.line(prefix_ + format_schema_change(change));
            }
            // Only the first writer materializes schema events (they are broadcast to all).
            if (settings_.materialize && (is_data_change(e) || prefix_.empty() || prefix_ == "1> "))
                materialized_.apply(e);
        }
        metrics_.records_out.inc(events.size());
        if (out_.full()) co_await print();
    }

    // Printed when the input runs dry, as Flink's values sink prints each event at once: without
    // it, a quiet pipeline's output waited for the next checkpoint (10 s by default).
    boost::asio::awaitable<void> input_drained() override {
        if (!out_.empty()) co_await print();
    }

    boost::asio::awaitable<std::string> flush(std::uint64_t) override {
        co_await print();
        co_return std::string();
    }

    boost::asio::awaitable<void> close() override { co_await print(); }

  private:
    /// Writes what is buffered to stdout (nothing when print.enabled is false).
    boost::asio::awaitable<void> print() {
        std::string text = out_.take();
        const std::size_t bytes = text.size();
        co_await stdout_.write(std::move(text));
        metrics_.bytes_out.inc(bytes);
    }

    const ValuesSinkSettings& settings_;
    MaterializedTables& materialized_;
    StdoutWriter& stdout_;
    metrics::ConnectorMetrics& metrics_;
    std::string prefix_;
    std::unordered_map<TableId, Schema> schemas_;
    LineBuffer out_;
};

}  // namespace

void MaterializedTables::apply(const Event& event) {
    if (const auto* data = std::get_if<DataChangeEvent>(&event)) {
        const Schema& schema = schemas_.at(data->table);
        auto key_of = [&](const Row& row) {
            std::string key;
            for (int idx : schema.primary_key_indexes())
                key += format_field(row.view(), static_cast<std::size_t>(idx),
                                    schema.columns()[static_cast<std::size_t>(idx)].type) +
                       ",";
            return key;
        };
        auto& table = tables_[data->table];
        if (data->before && data->op != OpType::Insert) table.erase(key_of(*data->before));
        if (data->after && data->op != OpType::Delete)
            table[key_of(*data->after)] = format_row(data->after->view(), schema);
        return;
    }
    auto change = *as_schema_change(event);
    TableId t = table_of(event);
    if (std::holds_alternative<DropTableEvent>(change)) {
        tables_.erase(t);
        schemas_.erase(t);
        return;
    }
    if (std::holds_alternative<TruncateTableEvent>(change)) tables_[t].clear();
    auto it = schemas_.find(t);
    schemas_[t] = apply_schema_change(it == schemas_.end() ? Schema{} : it->second, change);
}

const std::map<std::string, std::string>* MaterializedTables::rows(TableId table) const {
    auto it = tables_.find(table);
    return it == tables_.end() ? nullptr : &it->second;
}

std::size_t MaterializedTables::total_rows() const {
    std::size_t n = 0;
    for (const auto& [t, rows] : tables_) n += rows.size();
    return n;
}

ValuesSink::ValuesSink(ValuesSinkSettings settings, const boost::asio::any_io_executor& executor,
                       metrics::Registry& registry)
    : settings_(settings),
      applier_(std::make_unique<ValuesApplier>(settings.error_on_schema_change)),
      stdout_(std::make_unique<StdoutWriter>(executor)),
      metrics_(registry, metrics::Role::Sink, "values") {}

ValuesSink::~ValuesSink() = default;

std::unique_ptr<SinkWriter> ValuesSink::create_writer(int index, int parallelism) {
    return std::make_unique<ValuesWriter>(settings_, materialized_, *stdout_, metrics_, index,
                                          parallelism);
}

}  // namespace cdcd::values
