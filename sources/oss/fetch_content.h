#pragma once
// FETCH_CONTENT(url) for transform projections: downloads the object an oss-cdc `url` names
// (oss://bucket/key, signed with the source's credentials; or an http(s) pre-signed URL) and
// yields its bytes (BYTES).
//
// Downloads run on a dedicated I/O thread (its own io_context and HTTP client). The transform
// evaluator is synchronous, so the source downloads ahead: before a batch of events advances the
// source's state, prefetch_contents() downloads the objects its rows' `url` names (concurrently,
// awaited without blocking the event loop, so other receivers and checkpoints go on), and the
// evaluation takes the bytes from that cache. A row whose download was not cached (FETCH_CONTENT
// of another expression, a cache over its budget) downloads while the row waits.
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
#include "sources/oss/options.h"

namespace cdcd::oss {

/// Adds FETCH_CONTENT to the transform function registry (once per process).
void register_fetch_content_function();
/// Starts the fetcher with a source's endpoint, credentials and limits (the last oss-cdc source
/// created wins: a pipeline has one source). It lives as long as the returned handle, which the
/// source keeps.
std::shared_ptr<void> install_fetch_content(const OssSettings& settings);

/// When a transform uses FETCH_CONTENT: downloads what the rows of `batch` name in `url`
/// (column 1) into the cache FETCH_CONTENT reads first, at most kFetchConcurrency at a time and
/// at most 2 x fetch-content.max-size of declared object sizes per call. Never throws: a failed
/// download is cached as that failure, for the row's evaluation to report.
boost::asio::awaitable<void> prefetch_contents(const EventBatch& batch);
inline constexpr int kFetchConcurrency = 4;

/// The blocking download FETCH_CONTENT performs (public for tests): the bytes, or nullopt when
/// the object does not exist. Throws std::runtime_error on failure.
std::optional<std::string> fetch_content_blocking(const std::string& url);

}  // namespace cdcd::oss
