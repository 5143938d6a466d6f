#include "sinks/file/file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "pipeline/schema/schema_change_apply.h"

namespace cdcd::file {

namespace {

class AcceptAll final : public MetadataApplier {
  public:
    boost::asio::awaitable<void> apply(const SchemaChangeEvent&) override { co_return; }
};

[[noreturn]] void fail(const std::string& what, const std::string& path) {
    throw std::runtime_error("file sink: " + what + " " + path + ": " + std::strerror(errno));
}

class FileWriter final : public SinkWriter {
  public:
    FileWriter(const FileSinkSettings& settings, std::string path,
               metrics::ConnectorMetrics& metrics)
        : settings_(settings), path_(std::move(path)), metrics_(metrics) {
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) fail("cannot open", path_);
    }
    ~FileWriter() override {
        if (fd_ >= 0) ::close(fd_);
    }

    void restore(std::string_view state) override {
        std::uint64_t length = 0;
        auto [ptr, ec] = std::from_chars(state.data(), state.data() + state.size(), length);
        if (ec != std::errc() || ptr != state.data() + state.size())
            throw std::runtime_error("file sink: unreadable checkpoint state for " + path_);
        truncate_to(length);
        positioned_ = true;
    }

    void restore_schemas(const std::vector<std::pair<TableId, Schema>>& schemas) override {
        for (const auto& [table, schema] : schemas) schemas_[table] = schema;
    }

    boost::asio::awaitable<void> write(EventBatch& events) override {
        position();
        for (const Event& e : events) {
            if (const auto* data = std::get_if<DataChangeEvent>(&e)) {
                const Schema& schema = schemas_.at(data->table);
                if (settings_.format == FileFormat::DebeziumJson) {
                    json::write_debezium_json(buf_, *data, schema, settings_.debezium);
                } else {
                    json::write_canal_json(buf_, *data, schema, settings_.debezium.json);
                }
                buf_.push_back('\n');
                ++buffered_records_;
            } else {
                auto change = *as_schema_change(e);
                auto it = schemas_.find(table_of(e));
                schemas_[table_of(e)] =
                    apply_schema_change(it == schemas_.end() ? Schema{} : it->second, change);
            }
        }
        if (buf_.size() >= (1 << 20)) write_out();
        co_return;
    }

    boost::asio::awaitable<std::string> flush(std::uint64_t checkpoint_id) override {
        position();
        write_out();
        if (checkpoint_id != 0 && ::fdatasync(fd_) != 0) fail("cannot sync", path_);
        co_return std::to_string(length_);
    }

    boost::asio::awaitable<void> close() override {
        position();
        write_out();
        if (::fdatasync(fd_) != 0) fail("cannot sync", path_);
        co_return;
    }

  private:
    /// A fresh pipeline owns its file and starts it empty; a restored one continues at the
    /// committed length (set by restore()).
    void position() {
        if (positioned_) return;
        truncate_to(0);
        positioned_ = true;
    }

    void truncate_to(std::uint64_t length) {
        if (::ftruncate(fd_, static_cast<off_t>(length)) != 0) fail("cannot truncate", path_);
        if (::lseek(fd_, static_cast<off_t>(length), SEEK_SET) < 0) fail("cannot seek", path_);
        length_ = length;
    }

    void write_out() {
        const char* p = buf_.data();
        std::size_t left = buf_.size();
        while (left > 0) {
            ssize_t n = ::write(fd_, p, left);
            if (n < 0) {
                if (errno == EINTR) continue;
                fail("cannot write", path_);
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        length_ += buf_.size();
        metrics_.bytes_out.inc(buf_.size());
        metrics_.records_out.inc(buffered_records_);
        buffered_records_ = 0;
        buf_.clear();
    }

    const FileSinkSettings& settings_;
    std::string path_;
    int fd_ = -1;
    std::uint64_t length_ = 0;
    bool positioned_ = false;
    metrics::ConnectorMetrics& metrics_;
    std::string buf_;
    std::uint64_t buffered_records_ = 0;  // lines in buf_
    std::unordered_map<TableId, Schema> schemas_;
};

}  // namespace

FileSink::FileSink(FileSinkSettings settings, metrics::Registry& registry)
    : settings_(std::move(settings)),
      applier_(std::make_unique<AcceptAll>()),
      metrics_(registry, metrics::Role::Sink, "file") {}

std::unique_ptr<SinkWriter> FileSink::create_writer(int index, int parallelism) {
    std::string path =
        parallelism > 1 ? settings_.path + "." + std::to_string(index) : settings_.path;
    return std::make_unique<FileWriter>(settings_, std::move(path), metrics_);
}

}  // namespace cdcd::file
