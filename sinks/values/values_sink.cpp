#include "sinks/values/values_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "pipeline/data/field_format.h"
#include "pipeline/event/event_format.h"
#include "pipeline/schema/schema_change_apply.h"

namespace cdcd::values {

namespace {

class ValuesApplier final : public MetadataApplier {
public:
    explicit ValuesApplier(bool reject) : reject_(reject) {}
    boost::asio::awaitable<void> apply(const SchemaChangeEvent& event) override {
        // Flink's ErrorOnChangeMetadataApplier accepts table creation and rejects every change.
        if (reject_ && !std::holds_alternative<CreateTableEvent>(event))
            throw UnsupportedSchemaChange("values sink rejects schema changes (error.on.schema.change): " +
                                          format_schema_change(event));
        co_return;
    }

private:
    bool reject_;
};

/// Writes whole lines to stdout through one buffer per writer, flushed at checkpoints, so that
/// concurrent writers never interleave inside a line.
class StdoutBuffer {
public:
    void line(std::string_view text) {
        buf_.append(text);
        buf_.push_back('\n');
        if (buf_.size() >= (1 << 16)) flush();
    }
    void flush() {
        const char* p = buf_.data();
        std::size_t left = buf_.size();
        while (left > 0) {
            ssize_t n = ::write(STDOUT_FILENO, p, left);
            if (n < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("values sink: cannot write to stdout: ") + std::strerror(errno));
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        buf_.clear();
    }

private:
    std::string buf_;
};

class ValuesWriter final : public SinkWriter {
public:
    ValuesWriter(const ValuesSinkSettings& settings, MaterializedTables& materialized, int index, int parallelism)
        : settings_(settings),
          materialized_(materialized),
          prefix_(parallelism > 1 ? std::to_string(index + 1) + "> " : "") {}

    boost::asio::awaitable<void> write(EventBatch& events) override {
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
                schemas_[table_of(e)] = apply_schema_change(it == schemas_.end() ? Schema{} : it->second, change);
                if (settings_.print) out_.line(prefix_ + format_schema_change(change));
            }
            // Only the first writer materializes schema events (they are broadcast to all).
            if (settings_.materialize && (is_data_change(e) || prefix_.empty() || prefix_ == "1> "))
                materialized_.apply(e);
        }
        co_return;
    }

    boost::asio::awaitable<std::string> flush(std::uint64_t) override {
        out_.flush();
        co_return std::string();
    }

    boost::asio::awaitable<void> close() override {
        out_.flush();
        co_return;
    }

private:
    const ValuesSinkSettings& settings_;
    MaterializedTables& materialized_;
    std::string prefix_;
    std::unordered_map<TableId, Schema> schemas_;
    StdoutBuffer out_;
};

}  // namespace

void MaterializedTables::apply(const Event& event) {
    if (const auto* data = std::get_if<DataChangeEvent>(&event)) {
        const Schema& schema = schemas_.at(data->table);
        auto key_of = [&](const Row& row) {
            std::string key;
            for (int idx : schema.primary_key_indexes())
                key += format_field(row.view(), static_cast<std::size_t>(idx), schema.columns()[static_cast<std::size_t>(idx)].type) + ",";
            return key;
        };
        auto& table = tables_[data->table];
        if (data->before && data->op != OpType::Insert) table.erase(key_of(*data->before));
        if (data->after && data->op != OpType::Delete) table[key_of(*data->after)] = format_row(data->after->view(), schema);
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

ValuesSink::ValuesSink(ValuesSinkSettings settings)
    : settings_(settings), applier_(std::make_unique<ValuesApplier>(settings.error_on_schema_change)) {}

std::unique_ptr<SinkWriter> ValuesSink::create_writer(int index, int parallelism) {
    return std::make_unique<ValuesWriter>(settings_, materialized_, index, parallelism);
}

}  // namespace cdcd::values
