#pragma once
// Fakes of the connector interfaces (pipeline/connector/) for runtime tests, shared instead of
// one copy per test file: a sink whose writers are a test's own class, an applier that accepts
// every schema change, a writer that keeps nothing, and a registry of one test source and one
// test sink.
//
//   ConnectorRegistry registry = registry_of(
//       "seq", [](const ConnectorContext&) { return std::make_unique<SeqSource>(); },
//       "two-phase", [](const ConnectorContext&) { return
//       std::make_unique<SinkOf<TwoPhaseWriter>>(); });
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "pipeline/connector/registry.h"
#include "pipeline/connector/sink.h"
#include "pipeline/connector/source.h"

namespace cdcd::fakes {

/// Accepts every schema change without doing anything.
class AcceptingApplier final : public MetadataApplier {
  public:
    boost::asio::awaitable<void> apply(const SchemaChangeEvent&) override { co_return; }
};

/// Takes every batch and keeps nothing; its state is empty.
class DiscardingWriter final : public SinkWriter {
  public:
    boost::asio::awaitable<void> write(EventSelection) override { co_return; }
    boost::asio::awaitable<std::string> flush(std::uint64_t) override { co_return std::string(); }
};

/// A sink whose writers are `Writer`s (default-constructed, one per writer index) and whose
/// metadata applier accepts everything.
template <typename Writer>
class SinkOf final : public Sink {
  public:
    std::unique_ptr<SinkWriter> create_writer(int, int) override {
        return std::make_unique<Writer>();
    }
    MetadataApplier& metadata_applier() override { return applier_; }

  private:
    AcceptingApplier applier_;
};

/// A sink whose writers are `Writer(index)`; `independent` is its writers_are_independent()
/// (at parallelism above 1, each writer on a thread of its own).
template <typename Writer>
class IndexedSinkOf final : public Sink {
  public:
    explicit IndexedSinkOf(bool independent) : independent_(independent) {}
    std::unique_ptr<SinkWriter> create_writer(int index, int) override {
        return std::make_unique<Writer>(index);
    }
    MetadataApplier& metadata_applier() override { return applier_; }
    bool writers_are_independent() const override { return independent_; }

  private:
    bool independent_;
    AcceptingApplier applier_;
};

using SourceCreate = std::function<std::unique_ptr<Source>(const ConnectorContext&)>;
using SinkCreate = std::function<std::unique_ptr<Sink>(const ConnectorContext&)>;

/// A registry holding one source and one sink, each with no options.
inline ConnectorRegistry registry_of(std::string source_name, SourceCreate source_create,
                                     std::string sink_name, SinkCreate sink_create) {
    ConnectorRegistry registry;
    SourceFactory source;
    source.name = std::move(source_name);
    source.create = std::move(source_create);
    registry.add(std::move(source));
    SinkFactory sink;
    sink.name = std::move(sink_name);
    sink.create = std::move(sink_create);
    registry.add(std::move(sink));
    return registry;
}

}  // namespace cdcd::fakes
