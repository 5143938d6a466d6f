#pragma once
// FETCH_CONTENT(url) for transform projections: downloads the object an oss-cdc `url` names
// (oss://bucket/key, signed with the source's credentials; or an http(s) pre-signed URL) and
// yields its bytes (BYTES).
//
// The transform evaluator is synchronous and runs on the event loop, so the download runs on a
// dedicated I/O thread (its own io_context and HTTP client, never the pipeline's loop); the
// evaluating row waits for it, bounded by fetch-content.timeout and fetch-content.max-size.
// Errors: a missing object (404) yields NULL; any other failure (too large, denied, retries
// exhausted, timeout) fails the pipeline, or yields NULL with a warning when
// fetch-content.ignore-errors is true.
#include <memory>
#include <optional>
#include <string>

#include "sources/oss/options.h"

namespace cdcd::oss {

/// Adds FETCH_CONTENT to the transform function registry (once per process).
void register_fetch_content_function();
/// Starts the fetcher with a source's endpoint, credentials and limits (the last oss-cdc source
/// created wins: a pipeline has one source). It lives as long as the returned handle, which the
/// source keeps.
std::shared_ptr<void> install_fetch_content(const OssSettings& settings);

/// The blocking download FETCH_CONTENT performs (public for tests): the bytes, or nullopt when
/// the object does not exist. Throws std::runtime_error on failure.
std::optional<std::string> fetch_content_blocking(const std::string& url);

}  // namespace cdcd::oss
