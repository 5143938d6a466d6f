#pragma once
// FETCH_CONTENT(url) for transform projections: downloads the object an oss-cdc `url` names
// (oss://bucket/key, signed with the source's credentials; or an http(s) pre-signed URL) and
// yields its bytes (BYTES). The source's factory declares it for its own pipeline
// (SourceFactory::transform_functions): nothing process-wide holds it.
//
// Downloads run on a dedicated I/O thread (its own io_context and HTTP client). The transform
// evaluator is synchronous, so the source downloads ahead: before a batch of events advances the
// source's state, FetchContent::prefetch() downloads the objects its rows' `url` names
// (concurrently, awaited without blocking the event loop, so other receivers and checkpoints go
// on), and the evaluation takes the bytes from that cache. A row whose download was not cached
// (FETCH_CONTENT of another expression, a cache over its budget) downloads while the row waits.
// Each download ends by fetch-content.timeout: its requests' time limits are cut to what is left
// (the connection is closed), and no retry starts after it.
// Errors: a missing object (404) yields NULL; any other failure (too large, denied, retries
// exhausted, timeout) fails the pipeline, or yields NULL with a warning when
// fetch-content.ignore-errors is true.
#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string>

#include "pipeline/connector/source.h"
#include "pipeline/connector/transform_functions.h"
#include "sources/oss/options.h"

namespace cdcd::oss {

/// The downloader of one oss-cdc source (its endpoint, credentials and fetch-content.* limits),
/// which that source prefetches with and its pipeline's FETCH_CONTENT reads from.
class FetchContent {
  public:
    explicit FetchContent(const OssSettings& settings);
    ~FetchContent();
    FetchContent(const FetchContent&) = delete;
    FetchContent& operator=(const FetchContent&) = delete;

    /// When a transform of the pipeline uses FETCH_CONTENT: downloads what the rows of `batch`
    /// name in `url` (column 1) into the cache FETCH_CONTENT reads first, at most
    /// kFetchConcurrency at a time and at most 2 x fetch-content.max-size of declared object sizes
    /// per call. Never throws: a failed download is cached as that failure, for the row's
    /// evaluation to report.
    boost::asio::awaitable<void> prefetch(const EventBatch& batch);
    /// The blocking download FETCH_CONTENT performs (the cached outcome first): the bytes, or
    /// nullopt when the object does not exist. Throws std::runtime_error on failure.
    std::optional<std::string> fetch(const std::string& url) const;
    bool ignore_errors() const;
    /// A transform compiled FETCH_CONTENT: prefetch() downloads from now on.
    void mark_used();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};
inline constexpr int kFetchConcurrency = 4;

/// FETCH_CONTENT, for the transforms of the pipeline whose source downloads with `downloader`
/// (null when the pipeline is only validated: the function is known, never evaluated).
TransformFunctions fetch_content_functions(std::shared_ptr<FetchContent> downloader);

}  // namespace cdcd::oss
