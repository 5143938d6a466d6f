#include "sources/oss/fetch_content.h"

#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "pipeline/transform/functions.h"
#include "sources/oss/oss_client.h"

namespace cdcd::oss {
namespace {

namespace asio = boost::asio;

class Fetcher {
  public:
    explicit Fetcher(const OssSettings& s)
        : work_(asio::make_work_guard(io_)),
          http_(io_),
          max_bytes_(s.fetch_max_bytes),
          timeout_(s.fetch_timeout),
          ignore_errors_(s.fetch_ignore_errors) {
        if (!s.oss_endpoint.empty())
            client_ = std::make_unique<OssClient>(
                http_,
                OssClientConfig{s.oss_endpoint,
                                s.oss_region,
                                s.v4,
                                {s.access_key_id, s.access_key_secret, s.security_token}},
                [] { return false; });
        else
            client_ = std::make_unique<OssClient>(http_, OssClientConfig{}, [] { return false; });
        client_->policy().max_retries = 3;
        has_endpoint_ = !s.oss_endpoint.empty();
        thread_ = std::thread([this] { io_.run(); });
    }
    ~Fetcher() {
        work_.reset();
        io_.stop();
        if (thread_.joinable()) thread_.join();
    }

    std::optional<std::string> fetch(const std::string& url) {
        std::future<std::optional<std::string>> f;
        if (url.rfind("oss://", 0) == 0) {
            auto slash = url.find('/', 6);
            if (slash == std::string::npos || slash == 6 || slash + 1 == url.size())
                throw std::runtime_error("FETCH_CONTENT: '" + url +
                                         "' is not oss://<bucket>/<key>");
            if (!has_endpoint_)
                throw std::runtime_error(
                    "FETCH_CONTENT of oss:// URLs needs `oss-endpoint` on the oss-cdc source");
            std::string bucket = url.substr(6, slash - 6), key = url.substr(slash + 1);
            f = asio::co_spawn(io_, client_->get_object(bucket, key, max_bytes_), asio::use_future);
        } else if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) {
            f = asio::co_spawn(io_, client_->get_url(url, max_bytes_), asio::use_future);
        } else {
            throw std::runtime_error("FETCH_CONTENT: unsupported URL scheme");
        }
        if (f.wait_for(timeout_) != std::future_status::ready)
            throw std::runtime_error(
                "FETCH_CONTENT: download did not finish within fetch-content.timeout");
        return f.get();
    }
    bool ignore_errors() const { return ignore_errors_; }

  private:
    asio::io_context io_;
    asio::executor_work_guard<asio::io_context::executor_type> work_;
    net::HttpClient http_;
    std::unique_ptr<OssClient> client_;
    std::uint64_t max_bytes_;
    std::chrono::milliseconds timeout_;
    bool ignore_errors_;
    bool has_endpoint_ = false;
    std::thread thread_;
};

std::mutex g_mutex;
std::weak_ptr<Fetcher> g_fetcher;  // owned by the source: gone before static destruction

std::shared_ptr<Fetcher> current() {
    std::lock_guard lock(g_mutex);
    return g_fetcher.lock();
}

transform::Datum eval_fetch_content(const transform::Node& n, transform::EvalContext& c) {
    transform::Datum url = n.args[0]->fn(*n.args[0], c);
    if (url.null) return transform::Datum{};
    std::string u(url.s);
    auto fetcher = current();
    if (!fetcher)
        throw transform::EvalError("FETCH_CONTENT needs an oss-cdc source in the pipeline");
    try {
        auto bytes = fetcher->fetch(u);
        if (!bytes) return transform::Datum{};
        return transform::Datum::of_string(c.arena.copy(*bytes));
    } catch (const std::exception& e) {
        // The message never carries the URL's query (a pre-signed signature).
        if (fetcher->ignore_errors()) {
            spdlog::warn("FETCH_CONTENT failed, yielding NULL: {}", e.what());
            return transform::Datum{};
        }
        throw transform::EvalError(std::string("FETCH_CONTENT failed: ") + e.what());
    }
}

transform::NodePtr build_fetch_content(transform::CallSite& c) {
    c.arity(1, 1);
    c.require_text(0);
    return transform::make_node(eval_fetch_content, DataType::bytes(), std::move(c.args));
}

}  // namespace

void register_fetch_content_function() {
    static std::once_flag once;
    std::call_once(once, [] {
        transform::register_extension_function("FETCH_CONTENT", build_fetch_content, true);
    });
}

std::shared_ptr<void> install_fetch_content(const OssSettings& settings) {
    auto f = std::make_shared<Fetcher>(settings);
    std::lock_guard lock(g_mutex);
    g_fetcher = f;
    return f;
}

std::optional<std::string> fetch_content_blocking(const std::string& url) {
    auto fetcher = current();
    if (!fetcher) throw std::runtime_error("FETCH_CONTENT: no oss-cdc source configured");
    return fetcher->fetch(url);
}

}  // namespace cdcd::oss
