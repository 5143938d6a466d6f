#include "sources/oss/fetch_content.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "pipeline/transform/functions/functions.h"
#include "sources/oss/oss_client.h"

namespace cdcd::oss {
namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

/// A download's outcome: the bytes (nullopt: no such object) or the failure's message.
struct Outcome {
    std::optional<std::string> bytes;
    std::string error;
    bool failed = false;
};

class Fetcher {
  public:
    explicit Fetcher(const OssSettings& s)
        : work_(asio::make_work_guard(io_)),
          http_(io_),
          config_{s.oss_endpoint,
                  s.oss_region,
                  s.v4,
                  {s.access_key_id, s.access_key_secret, s.security_token},
                  s.fetch_timeout,
                  std::nullopt},
          max_bytes_(s.fetch_max_bytes),
          timeout_(s.fetch_timeout),
          ignore_errors_(s.fetch_ignore_errors),
          has_endpoint_(!s.oss_endpoint.empty()),
          cache_budget_(2 * s.fetch_max_bytes) {
        thread_ = std::thread([this] { io_.run(); });
    }
    ~Fetcher() {
        work_.reset();
        io_.stop();
        if (thread_.joinable()) thread_.join();
    }

    /// FETCH_CONTENT on the evaluating thread: the cached outcome, else a download it waits for.
    std::optional<std::string> fetch(const std::string& url) {
        if (auto cached = take(url)) {
            if (cached->failed) throw std::runtime_error(cached->error);
            return std::move(cached->bytes);
        }
        check(url);
        return asio::co_spawn(io_, download(url), asio::use_future).get();
    }

    /// Downloads `urls` (with their declared sizes) into the cache; awaited from the source's
    /// executor, run on the fetcher's thread.
    asio::awaitable<void> prefetch(std::vector<std::pair<std::string, std::int64_t>> wanted) {
        std::vector<std::pair<std::string, std::uint64_t>> urls = admit(wanted);
        if (urls.empty()) co_return;
        co_await asio::co_spawn(io_, download_all(std::move(urls)), asio::use_awaitable);
    }

    bool ignore_errors() const { return ignore_errors_; }

  private:
    struct Entry {
        Outcome outcome;
        int uses = 0;  // rows still to evaluate it
        std::size_t bytes = 0;
        bool ready = false;
        std::uint64_t generation = 0;  // which prefetch made it
    };

    void check(const std::string& url) const {
        if (url.rfind("oss://", 0) == 0) {
            auto slash = url.find('/', 6);
            if (slash == std::string::npos || slash == 6 || slash + 1 == url.size())
                throw std::runtime_error("FETCH_CONTENT: '" + url +
                                         "' is not oss://<bucket>/<key>");
            if (!has_endpoint_)
                throw std::runtime_error(
                    "FETCH_CONTENT of oss:// URLs needs `oss-endpoint` on the oss-cdc source");
        } else if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
            throw std::runtime_error("FETCH_CONTENT: unsupported URL scheme");
        }
    }

    /// One download (on the fetcher's thread), ended by fetch-content.timeout: its client's
    /// requests are cut to the time left and it retries nothing after that.
    asio::awaitable<std::optional<std::string>> download(std::string url) {
        OssClientConfig config = config_;
        const auto deadline = Clock::now() + timeout_;
        config.deadline = deadline;
        auto client = std::make_unique<OssClient>(http_, config,
                                                  [deadline] { return Clock::now() >= deadline; });
        client->policy().max_retries = 3;
        std::optional<std::string> bytes;
        std::exception_ptr failure;
        std::string message;
        try {
            if (url.rfind("oss://", 0) == 0) {
                auto slash = url.find('/', 6);
                bytes = co_await client->get_object(url.substr(6, slash - 6), url.substr(slash + 1),
                                                    max_bytes_);
            } else {
                bytes = co_await client->get_url(url, max_bytes_);
            }
        } catch (const std::exception& e) {
            failure = std::current_exception();
            message = e.what();
        }
        if (failure && Clock::now() < deadline) std::rethrow_exception(failure);
        // Past the deadline the retry loop still makes its last attempt (limited to 1 ms): what
        // it brings did not finish in time either.
        if (failure || Clock::now() >= deadline)
            // The message never carries the URL's query (a pre-signed signature).
            throw std::runtime_error(
                "download did not finish within fetch-content.timeout (" +
                std::to_string(timeout_.count()) +
                " ms), cancelled; raise fetch-content.timeout for larger or slower objects" +
                (message.empty() ? std::string() : " (" + message + ")"));
        co_return bytes;
    }

    using Work = std::vector<std::pair<std::string, std::uint64_t>>;

    /// Downloads the next URL of `work` until none is left (several run side by side).
    asio::awaitable<void> worker(std::shared_ptr<Work> work, std::shared_ptr<std::size_t> next) {
        while (*next < work->size()) {
            auto [url, generation] = (*work)[(*next)++];
            Outcome outcome;
            try {
                check(url);
                outcome.bytes = co_await download(url);
            } catch (const std::exception& e) {
                outcome.failed = true;
                outcome.error = e.what();
            }
            store(url, generation, std::move(outcome));
        }
    }

    asio::awaitable<void> download_all(Work urls) {
        auto executor = co_await asio::this_coro::executor;
        auto work = std::make_shared<Work>(std::move(urls));
        auto next = std::make_shared<std::size_t>(0);
        auto running = std::make_shared<int>(0);
        asio::steady_timer done(executor, asio::steady_timer::time_point::max());
        const int n = static_cast<int>(std::min<std::size_t>(work->size(), kFetchConcurrency));
        *running = n;
        for (int i = 0; i < n; ++i)
            asio::co_spawn(executor, worker(work, next),
                           [running, &done](const std::exception_ptr&) {
                               if (--*running == 0) done.cancel();
                           });
        while (*running > 0) {
            boost::system::error_code ec;
            co_await done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    /// Which of `wanted` to download (with the generation of its entry): each URL once (its rows
    /// counted), replacing an older entry (an earlier event's content may be stale), declared no
    /// larger than fetch-content.max-size (that download fails anyway, with its own message, when
    /// the row is evaluated), and within the cache's budget — the oldest entries make room, those
    /// past it are downloaded when their row is evaluated.
    std::vector<std::pair<std::string, std::uint64_t>> admit(
        const std::vector<std::pair<std::string, std::int64_t>>& wanted) {
        std::lock_guard lock(mutex_);
        std::vector<std::pair<std::string, std::uint64_t>> urls;
        std::unordered_set<std::string> mine;
        std::size_t planned = 0;
        for (const auto& [url, size] : wanted) {
            auto it = cache_.find(url);
            if (mine.contains(url)) {
                ++it->second.uses;
                continue;
            }
            if (it != cache_.end()) {
                cached_bytes_ -= it->second.bytes;
                cache_.erase(it);
            }
            if (size < 0 || static_cast<std::uint64_t>(size) > max_bytes_) continue;
            const auto bytes = static_cast<std::size_t>(size);
            if (planned + bytes > cache_budget_ && planned > 0) continue;
            evict_for(planned + bytes);
            planned += bytes;
            cache_.emplace(url, Entry{{}, 1, bytes, false, ++generation_});
            order_.push_back(url);
            cached_bytes_ += bytes;
            mine.insert(url);
            urls.emplace_back(url, generation_);
        }
        return urls;
    }

    /// Drops the oldest ready entries (never evaluated: filtered rows, or another expression's
    /// URL) until `incoming` more bytes fit the budget.
    void evict_for(std::size_t incoming) {
        while (cached_bytes_ + incoming > cache_budget_ && !order_.empty()) {
            auto it = cache_.find(order_.front());
            order_.pop_front();
            if (it == cache_.end()) continue;
            if (!it->second.ready) {  // still downloading for a batch in flight: keep it
                order_.push_back(it->first);
                break;
            }
            cached_bytes_ -= it->second.bytes;
            cache_.erase(it);
        }
    }

    void store(const std::string& url, std::uint64_t generation, Outcome outcome) {
        std::lock_guard lock(mutex_);
        auto it = cache_.find(url);
        if (it == cache_.end() || it->second.generation != generation) return;  // replaced
        const std::size_t actual = outcome.bytes ? outcome.bytes->size() : 0;
        cached_bytes_ = cached_bytes_ - it->second.bytes + actual;
        it->second.bytes = actual;
        it->second.outcome = std::move(outcome);
        it->second.ready = true;
    }

    std::optional<Outcome> take(const std::string& url) {
        std::lock_guard lock(mutex_);
        auto it = cache_.find(url);
        if (it == cache_.end() || !it->second.ready) return std::nullopt;
        if (--it->second.uses > 0) return it->second.outcome;
        Outcome out = std::move(it->second.outcome);
        cached_bytes_ -= it->second.bytes;
        cache_.erase(it);
        return out;
    }

    asio::io_context io_;
    asio::executor_work_guard<asio::io_context::executor_type> work_;
    net::HttpClient http_;
    OssClientConfig config_;
    std::uint64_t max_bytes_;
    std::chrono::milliseconds timeout_;
    bool ignore_errors_;
    bool has_endpoint_;
    std::size_t cache_budget_;
    std::mutex mutex_;  // the cache: filled on the fetcher's thread, read by the evaluator
    std::unordered_map<std::string, Entry> cache_;
    std::deque<std::string> order_;
    std::size_t cached_bytes_ = 0;
    std::uint64_t generation_ = 0;
    std::thread thread_;
};

transform::Datum eval_fetch_content(const transform::Node& n, transform::EvalContext& c) {
    transform::Datum url = n.args[0]->fn(*n.args[0], c);
    if (url.null) return transform::Datum{};
    std::string u(url.s);
    const auto* downloader = static_cast<const FetchContent*>(n.state.get());
    if (!downloader)  // compiled for validation only
        throw transform::EvalError("FETCH_CONTENT needs an oss-cdc source in the pipeline");
    try {
        auto bytes = downloader->fetch(u);
        if (!bytes) return transform::Datum{};
        return transform::Datum::of_string(c.arena.copy(*bytes));
    } catch (const std::exception& e) {
        // The message never carries the URL's query (a pre-signed signature).
        if (downloader->ignore_errors()) {
            spdlog::warn("FETCH_CONTENT failed, yielding NULL: {}", e.what());
            return transform::Datum{};
        }
        throw transform::EvalError(std::string("FETCH_CONTENT failed: ") + e.what());
    }
}

transform::NodePtr build_fetch_content(transform::CallSite& c) {
    c.arity(1, 1);
    c.require_text(0);
    if (c.context) static_cast<FetchContent*>(c.context.get())->mark_used();
    auto node = transform::make_node(eval_fetch_content, DataType::bytes(), std::move(c.args));
    node->state = c.context;
    return node;
}

}  // namespace

struct FetchContent::Impl {
    explicit Impl(const OssSettings& settings) : fetcher(settings) {}
    Fetcher fetcher;
    std::atomic<bool> used{false};  // a transform compiled FETCH_CONTENT
};

FetchContent::FetchContent(const OssSettings& settings) : impl_(std::make_unique<Impl>(settings)) {}

FetchContent::~FetchContent() = default;

bool FetchContent::ignore_errors() const {
    return impl_->fetcher.ignore_errors();
}

void FetchContent::mark_used() {
    impl_->used = true;
}

std::optional<std::string> FetchContent::fetch(const std::string& url) const {
    return impl_->fetcher.fetch(url);
}

boost::asio::awaitable<void> FetchContent::prefetch(const EventBatch& batch) {
    if (!impl_->used) co_return;
    std::vector<std::pair<std::string, std::int64_t>> wanted;
    for (const Event& e : batch) {
        const auto* change = std::get_if<DataChangeEvent>(&e);
        if (!change) continue;
        const auto& row = change->after ? change->after : change->before;
        if (!row || row->is_null(1)) continue;
        RowView v = row->view();
        wanted.emplace_back(std::string(v.get_string(1)), v.is_null(5) ? 0 : v.get_long(5));
    }
    if (!wanted.empty()) co_await impl_->fetcher.prefetch(std::move(wanted));
}

TransformFunctions fetch_content_functions(std::shared_ptr<FetchContent> downloader) {
    return {TransformFunction{"FETCH_CONTENT", build_fetch_content, true, std::move(downloader)}};
}

}  // namespace cdcd::oss
