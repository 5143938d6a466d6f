#include "sources/dingtalk/block_fetcher.h"

#include "sources/dingtalk/markdown_renderer.h"

namespace cdcd::dingtalk {

using Clock = std::chrono::steady_clock;

const char* to_string(FetchStatus s) {
    switch (s) {
        case FetchStatus::Ok:
            return "ok";
        case FetchStatus::Gone:
            return "gone";
        case FetchStatus::Skipped:
            return "not readable";
        case FetchStatus::Unstable:
            return "unstable";
        case FetchStatus::TooLarge:
            return "too large";
        case FetchStatus::TimedOut:
            return "timed out";
        case FetchStatus::Failed:
            return "failed";
    }
    return "?";
}

bool same_version(const Node& before, const Node& after) {
    return before.modified_ms == after.modified_ms && before.name == after.name &&
           before.url == after.url;
}

namespace {

// A status other than Ok from an error, or rethrow.
FetchStatus status_of(const ApiError& e) {
    if (e.cls() == ErrorClass::NotFound) return FetchStatus::Gone;
    if (e.cls() == ErrorClass::Skip) return FetchStatus::Skipped;
    if (e.cls() == ErrorClass::TooLarge) return FetchStatus::TooLarge;
    throw e;
}

}  // namespace

boost::asio::awaitable<FetchedDocument> fetch_document(DingTalkApi& api, std::string doc_id,
                                                       FetchLimits limits) {
    FetchedDocument out;
    for (int attempt = 0; attempt <= limits.max_retries; ++attempt) {
        out.attempts = attempt + 1;
        std::chrono::nanoseconds waited = co_await api.fetch_limiter().acquire();
        if (waited.count() > 0) api.metrics().observe_rate_limiter_wait("fetch", waited);
        const auto deadline = Clock::now() + limits.max_duration;
        std::optional<FetchStatus> failed;
        std::string detail;
        Node before, after;
        std::string blocks = "[";
        std::int64_t bytes = 0;
        bool truncated = false;
        try {
            before = co_await api.get_node(doc_id, deadline);
            for (int page = 0;; ++page) {
                if (page >= limits.max_pages) {
                    truncated = true;
                    break;
                }
                if (Clock::now() > deadline) {
                    failed = FetchStatus::TimedOut;
                    break;
                }
                int start = page * limits.fetch_size;
                auto items =
                    co_await api.blocks(doc_id, start, start + limits.fetch_size - 1, deadline);
                for (const auto& item : items) {
                    if (blocks.size() > 1) blocks.push_back(',');
                    blocks += item;
                    bytes += static_cast<std::int64_t>(item.size());
                }
                if (bytes > limits.max_bytes) {
                    failed = FetchStatus::TooLarge;
                    break;
                }
                if (static_cast<int>(items.size()) < limits.fetch_size) break;
            }
            if (!failed) after = co_await api.get_node(doc_id, deadline);
        } catch (const ApiError& e) {
            // A request cut short by the deadline fails as transient: the fetch timed out.
            failed = e.cls() == ErrorClass::Transient && Clock::now() >= deadline
                         ? FetchStatus::TimedOut
                         : status_of(e);
            detail = e.what();
        }
        if (!failed && Clock::now() > deadline) failed = FetchStatus::TimedOut;
        if (failed) {
            out.status = *failed;
            out.detail = detail.empty() ? std::string(to_string(*failed)) : detail;
            co_return out;
        }
        if (!same_version(before, after)) {
            out.status = FetchStatus::Unstable;
            out.detail = "metadata changed during the read";
            continue;  // someone edited the document while we read it: read it again
        }
        blocks.push_back(']');
        std::string markdown = render_markdown(blocks);
        if (static_cast<std::int64_t>(blocks.size() + markdown.size()) > limits.max_bytes) {
            out.status = FetchStatus::TooLarge;
            out.detail = std::to_string(blocks.size() + markdown.size()) + " bytes";
            co_return out;
        }
        out.status = FetchStatus::Ok;
        out.node = std::move(after);
        out.blocks_json = std::move(blocks);
        out.markdown = std::move(markdown);
        out.truncated = truncated;
        out.detail.clear();
        co_return out;
    }
    co_return out;
}

}  // namespace cdcd::dingtalk
