#pragma once
// The `vikingdb` sink: one HTTP client, one control-plane and one data-plane client, the
// collection catalog and the metadata applier, shared by `pipeline.parallelism` writers. Writer i
// hands records VikingDB refuses for their data to bad_records.writer(i); every wait of both
// clients ends when `stopping` turns true (see ConnectorContext::stopping).
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>

#include "metrics/connector_metrics.h"
#include "net/http_client.h"
#include "pipeline/connector/bad_records.h"
#include "pipeline/connector/sink.h"
#include "sinks/vikingdb/auth.h"
#include "sinks/vikingdb/collection_catalog.h"
#include "sinks/vikingdb/metadata_applier.h"
#include "sinks/vikingdb/options.h"

namespace cdcd::vikingdb {

class VikingdbSink final : public Sink {
  public:
    VikingdbSink(VikingdbSettings settings, boost::asio::io_context& io,
                 const std::string& local_time_zone,
                 metrics::Registry& registry = metrics::Registry::detached(),
                 BadRecordHandlers& bad_records = BadRecordHandlers::detached(),
                 const std::function<bool()>& stopping = nullptr);
    std::unique_ptr<SinkWriter> create_writer(int index, int parallelism) override;
    MetadataApplier& metadata_applier() override { return *applier_; }

  private:
    VikingdbSettings settings_;
    boost::asio::io_context& io_;
    BadRecordHandlers& bad_records_;
    metrics::ConnectorMetrics metrics_;  // before http_: its observer counts on it
    net::HttpClient http_;
    Authenticator auth_;
    std::unique_ptr<ControlPlaneClient> control_;
    std::shared_ptr<DataPlaneClient> data_;
    std::shared_ptr<CollectionCatalog> catalog_;
    std::unique_ptr<VikingdbMetadataApplier> applier_;
};

}  // namespace cdcd::vikingdb
