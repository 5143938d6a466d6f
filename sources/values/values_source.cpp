#include "sources/values/values_source.h"

#include <charconv>
#include <stdexcept>

#include "pipeline/connector/connector_state.h"
#include "sources/values/event_sets.h"

namespace cdcd::values {

ValuesSource::ValuesSource(ValuesSourceSettings settings, metrics::Registry& metrics)
    : settings_(std::move(settings)), metrics_(metrics) {
    if (settings_.event_set == "GENERATED") {
        generator_.emplace(settings_.generator);
    } else {
        fixed_ = fixed_event_set(settings_.event_set);
        if (!fixed_) throw std::invalid_argument("unknown event-set.id " + settings_.event_set);
    }
}

namespace {

constexpr std::string_view kStateName = "values-source";
// 1: {"position":N}, every ordinal below N emitted. 2: {"positions":[N0,...]}, ordinal k of row
// id emitted iff k < positions[id % count] (EmittedOrdinals); written only when 1 cannot say it.
constexpr int kStateVersion = 2;

std::int64_t checked_position(const ConnectorStateReader& reader, std::int64_t pos) {
    if (pos < 0) throw reader.error("negative position " + std::to_string(pos));
    return pos;
}

/// What a state says was emitted: enveloped, or the bare decimal of the releases before the
/// envelope.
EmittedOrdinals decode_state(std::string_view state) {
    if (is_connector_state(state)) {
        ConnectorStateReader reader(state, kStateName, kStateVersion);
        StateFields fields(reader, reader.payload());
        if (!fields.has("positions"))
            return EmittedOrdinals{{checked_position(reader, fields.integer("position"))}};
        EmittedOrdinals emitted{{}};
        for (simdjson::dom::element e : fields.array("positions")) {
            std::int64_t pos = 0;
            if (e.get_int64().get(pos) != simdjson::SUCCESS)
                throw reader.error("positions holds a value that is not an integer");
            emitted.below.push_back(checked_position(reader, pos));
        }
        if (emitted.below.empty()) throw reader.error("positions is empty");
        return emitted;
    }
    std::int64_t pos = 0;
    auto [ptr, ec] = std::from_chars(state.data(), state.data() + state.size(), pos);
    if (ec != std::errc() || ptr != state.data() + state.size() || pos < 0)
        throw std::runtime_error("values source: unreadable checkpoint state '" +
                                 std::string(state) + "'");
    return EmittedOrdinals{{pos}};
}

std::string position_list(const EmittedOrdinals& emitted) {
    std::string list;
    for (std::int64_t pos : emitted.below) {
        if (!list.empty()) list += ',';
        list += std::to_string(pos);
    }
    return list;
}

std::string encode_state(const EmittedOrdinals& emitted) {
    if (emitted.below.size() == 1)
        return wrap_connector_state(kStateName, 1,
                                    "{\"position\":" + std::to_string(emitted.below[0]) + "}");
    return wrap_connector_state(kStateName, kStateVersion,
                                "{\"positions\":[" + position_list(emitted) + "]}");
}

}  // namespace

void ValuesSource::restore(std::string_view state) {
    emitted_ = decode_state(state);
    if (fixed_) {
        if (emitted_.below.size() != 1)
            throw std::runtime_error(
                "values source: the checkpoint holds the positions of a "
                "split GENERATED stream, but event-set.id is " +
                settings_.event_set);
        position_ = emitted_.below[0];
    }
}

std::string ValuesSource::snapshot_state() {
    if (fixed_) return encode_state(EmittedOrdinals{{position_}});
    if (reader_) return merge_reader_states({reader_->snapshot_state()});
    return encode_state(emitted_);
}

std::string ValuesSource::merge_reader_states(const std::vector<std::string>& states) {
    std::vector<std::int64_t> positions;
    positions.reserve(states.size());
    for (const std::string& s : states) {
        std::int64_t pos = 0;
        auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), pos);
        if (ec != std::errc() || ptr != s.data() + s.size())
            throw std::logic_error("values source: reader state '" + s + "' is not a position");
        positions.push_back(pos);
    }
    return encode_state(EmittedOrdinals::merge(emitted_, positions));
}

std::string ValuesSource::describe_state(std::string_view state) const {
    std::int64_t total =
        generator_ ? generator_->total() : static_cast<std::int64_t>(fixed_->size());
    EmittedOrdinals emitted = decode_state(state);
    std::string where = emitted.below.size() == 1
                            ? "\"position\":" + std::to_string(emitted.below[0])
                            : "\"positions\":[" + position_list(emitted) + "]";
    return "{\"event_set\":\"" + settings_.event_set + "\"," + where +
           ",\"total\":" + std::to_string(total) + "}";
}

std::unique_ptr<GeneratedReader> ValuesSource::make_reader(
    std::size_t index, std::size_t count, std::shared_ptr<SharedProgress> progress) const {
    // A rate is the whole stream's: each of `count` readers takes its share of it.
    std::int64_t rate =
        settings_.rate > 0
            ? std::max<std::int64_t>(1, settings_.rate / static_cast<std::int64_t>(count))
            : 0;
    GeneratedReaderSettings reader{settings_.failure_injection_index, rate, settings_.bounded};
    return std::make_unique<GeneratedReader>(*generator_, reader, emitted_, index, count,
                                             std::move(progress));
}

std::vector<std::unique_ptr<SourceReader>> ValuesSource::split_readers(std::size_t count) {
    std::vector<std::unique_ptr<SourceReader>> readers;
    if (!generator_ || count < 2) return readers;
    auto progress =
        std::make_shared<SharedProgress>(metrics_, generator_->total(), emitted_.lowest(), count);
    for (std::size_t i = 0; i < count; ++i) readers.push_back(make_reader(i, count, progress));
    return readers;
}

boost::asio::awaitable<void> ValuesSource::run(SourceOutput& output) {
    if (fixed_) {
        co_await run_fixed(output);
        co_return;
    }
    reader_ = make_reader(
        0, 1,
        std::make_shared<SharedProgress>(metrics_, generator_->total(), emitted_.lowest(), 1));
    co_await reader_->run(output);
}

boost::asio::awaitable<void> ValuesSource::run_fixed(SourceOutput& output) {
    // Schema events are part of the positioned stream; a restore resumes after the last one
    // checkpointed, and the schema registry restores the schemas they built.
    const auto total = static_cast<std::int64_t>(fixed_->size());
    while (position_ < total && !output.stopping()) {
        check_failure_injection(settings_.failure_injection_index, position_);
        EventBatch batch;
        batch.push_back((*fixed_)[static_cast<std::size_t>(position_)]);
        ++position_;
        co_await output.emit(std::move(batch));
    }
}

}  // namespace cdcd::values
