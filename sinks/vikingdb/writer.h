#pragma once
// One sink writer: maps data changes to upserts and deletes (spec 002 运行机制), batches them per
// collection in key order, and sends them from a few sender coroutines, so several requests are
// in flight at once (writer.cpp: kMaxInFlight); the Batcher lets a batch go only when no earlier
// unacknowledged batch holds one of its keys. A timer coroutine seals partial batches every
// `sink.bulk-flush.interval`; flush() returns only when every record written before it is
// acknowledged (at-least-once). The first failed request fails the writer; a record VikingDB
// refuses for its data goes to the writer's BadRecordSink instead under bad-record.policy skip or
// dead-letter (the rest of its batch is delivered), and fails the writer under fail.
#include <boost/asio/any_io_executor.hpp>
#include <exception>
#include <memory>
#include <unordered_map>

#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/sink.h"
#include "sinks/vikingdb/batcher.h"
#include "sinks/vikingdb/collection_catalog.h"
#include "sinks/vikingdb/data_plane_client.h"

namespace cdcd::vikingdb {

class VikingdbWriter final : public SinkWriter {
  public:
    VikingdbWriter(const VikingdbSettings& settings, std::shared_ptr<CollectionCatalog> catalog,
                   std::shared_ptr<DataPlaneClient> data,
                   const boost::asio::any_io_executor& executor, int index, int parallelism,
                   BadRecordSink& bad_records = BadRecordHandlers::detached().writer(0));
    ~VikingdbWriter() override;

    void restore_schemas(const std::vector<std::pair<TableId, Schema>>& schemas) override;
    boost::asio::awaitable<void> write(EventSelection events) override;
    boost::asio::awaitable<std::string> flush(std::uint64_t checkpoint_id) override;
    boost::asio::awaitable<void> close() override;

    struct State;

  private:
    boost::asio::awaitable<std::shared_ptr<const CollectionBinding>> binding_for(
        const TableId& table);
    boost::asio::awaitable<void> handle(const DataChangeEvent& e);
    void add(const CollectionBinding& b, OpKind kind, std::string key, std::string payload);
    void start();

    const VikingdbSettings& settings_;
    std::shared_ptr<CollectionCatalog> catalog_;
    int index_, parallelism_;
    std::unordered_map<TableId, Schema> schemas_;
    std::unordered_map<TableId, std::shared_ptr<const CollectionBinding>> bindings_;
    std::shared_ptr<State> state_;
    bool started_ = false;
};

}  // namespace cdcd::vikingdb
