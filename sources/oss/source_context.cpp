#include "sources/oss/source_context.h"

#include <chrono>

#include "metrics/http_observer.h"
#include "sources/oss/fetch_content.h"

namespace cdcd::oss {

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

namespace {

Credentials credentials_of(const OssSettings& s) {
    return {s.access_key_id, s.access_key_secret, s.security_token};
}

std::shared_ptr<const Presigner> presigner_of(const OssSettings& s) {
    if (!s.presign) return nullptr;
    return std::make_shared<Presigner>(s.oss_endpoint, s.oss_region, s.v4, credentials_of(s),
                                       s.presign_ttl);
}

net::HttpClientOptions client_options(metrics::ConnectorMetrics& metrics) {
    net::HttpClientOptions o;
    o.observer = metrics::http_observer(metrics);
    return o;
}

}  // namespace

SourceContext::SourceContext(boost::asio::io_context& io, OssSettings s,
                             metrics::Registry& registry)
    : settings(std::move(s)),
      metrics(registry, metrics::Role::Source, "oss-cdc"),
      http(io, client_options(metrics)),
      records(TableIdMapper(settings.table_id_pattern), settings.oss_region, presigner_of(settings),
              settings.metadata) {
    auto cancelled = [this] { return stopping(); };
    if (!settings.oss_endpoint.empty())
        oss = std::make_unique<OssClient>(
            http,
            OssClientConfig{settings.oss_endpoint, settings.oss_region, settings.v4,
                            credentials_of(settings), settings.request_timeout, std::nullopt},
            cancelled);
    if (!settings.mns_endpoint.empty() && !settings.mns_queue.empty()) {
        mns = std::make_unique<MnsClient>(http, settings.mns_endpoint, settings.mns_queue,
                                          credentials_of(settings), cancelled,
                                          settings.request_timeout);
        // Deletes run after a checkpoint, also while stopping: not cancelled by stopping().
        mns_delete = std::make_unique<MnsClient>(
            http, settings.mns_endpoint, settings.mns_queue, credentials_of(settings),
            [] { return false; }, settings.request_timeout);
        mns_delete->policy().max_retries = settings.mns_delete_max_retries;
    }
    if (oss) {
        metrics::observe_retries(oss->policy(), metrics);
        oss->count_bytes_in(metrics.bytes_in);
    }
    for (auto* client : {mns.get(), mns_delete.get()}) {
        if (!client) continue;
        metrics::observe_retries(client->policy(), metrics);
        client->count_bytes_in(metrics.bytes_in);
    }
    if (settings.rate_limit)
        limiter = std::make_shared<net::RateLimiter>(*settings.rate_limit,
                                                     std::max(1.0, *settings.rate_limit));
}

boost::asio::awaitable<void> SourceContext::throttle(std::size_t n) {
    if (!limiter || n == 0) co_return;
    std::chrono::nanoseconds waited = co_await limiter->acquire(static_cast<double>(n));
    if (waited.count() > 0) metrics.observe_rate_limiter_wait("records", waited);
}

boost::asio::awaitable<void> SourceContext::ready(EventBatch& batch, std::size_t records) {
    EventBatch tables;
    EventBatch rest;
    for (Event& e : batch)
        (std::holds_alternative<CreateTableEvent>(e) ? tables : rest).push_back(std::move(e));
    batch = std::move(rest);
    if (!tables.empty()) co_await emit(std::move(tables));
    co_await throttle(records);
    if (fetch_content) co_await fetch_content->prefetch(batch);
}

boost::asio::awaitable<void> SourceContext::emit(EventBatch batch) {
    std::uint64_t records = 0;
    for (const Event& e : batch)
        if (std::holds_alternative<DataChangeEvent>(e)) ++records;
    metrics.records_in.inc(records);
    co_await output->emit(std::move(batch));
}

boost::asio::awaitable<void> SourceContext::sleep_ms(std::int64_t ms) {
    if (output) co_await output->sleep(ms);
}

}  // namespace cdcd::oss
