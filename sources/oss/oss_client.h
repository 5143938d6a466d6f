#pragma once
// The OSS calls the source makes: ListObjectsV2 pages and GetObject (for FETCH_CONTENT), signed
// with V1 or V4, retried on throttling, 5xx and transport errors.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metrics/registry.h"
#include "net/http_client.h"
#include "net/retry.h"
#include "sources/oss/credentials.h"
#include "sources/oss/service_call.h"

namespace cdcd::oss {

struct ObjectInfo {
    std::string key;
    std::string etag;  // without quotes
    std::int64_t size = 0;
    std::int64_t mtime_ms = 0;
};

struct ListPage {
    std::vector<ObjectInfo> objects;
    bool truncated = false;
    std::string next_continuation_token;
};

/// An OSS error response (or transport failure after the retries).
class OssError : public ServiceError {
  public:
    using ServiceError::ServiceError;
};

/// Parses a ListObjectsV2 body (URL-decoding keys when EncodingType is url). Throws XmlError or
/// OssError on a malformed page.
ListPage parse_list_page(const std::string& body);
/// "2020-06-22T11:42:32.000Z" → epoch ms; nullopt when malformed.
std::optional<std::int64_t> parse_iso8601_ms(const std::string& text);
/// Code and message of an OSS/MNS <Error> body ("" when not XML).
std::pair<std::string, std::string> parse_error_body(const std::string& body);

/// The most bytes a ListObjectsV2 answer (or an error answer) may hold: a page of 1000 keys of
/// up to 1023 bytes, URL-encoded (x3), with their metadata is under 4 MiB. A fixed limit.
inline constexpr std::size_t kListResponseLimit = 16u << 20;

struct OssClientConfig {
    std::string endpoint;  // normalized
    std::string region;
    bool v4 = false;
    Credentials credentials;
    std::chrono::milliseconds request_timeout{30'000};
    /// When set, every request ends by then (its timeout shortened to the time left): the
    /// client of one FETCH_CONTENT download, bounded by fetch-content.timeout.
    std::optional<std::chrono::steady_clock::time_point> deadline;
};

class OssClient {
  public:
    OssClient(net::HttpClient& http, OssClientConfig config, std::function<bool()> cancelled);

    boost::asio::awaitable<ListPage> list_objects_v2(std::string bucket, std::string prefix,
                                                     std::string start_after,
                                                     std::string continuation_token, int max_keys);
    /// The object's bytes, at most max_bytes (throws OssError "ObjectTooLarge", not transient,
    /// beyond: also when the server ignores the Range and sends more); nullopt when the object
    /// does not exist.
    boost::asio::awaitable<std::optional<std::string>> get_object(std::string bucket,
                                                                  std::string key,
                                                                  std::uint64_t max_bytes);
    /// GET of an already signed (pre-signed) URL, same size rule.
    boost::asio::awaitable<std::optional<std::string>> get_url(std::string url,
                                                               std::uint64_t max_bytes);

    /// Signed request (headers + URL) for the given method/bucket/key/query; public for tests.
    net::HttpRequest sign(
        const std::string& method, const std::string& bucket, const std::string& key,
        const std::vector<std::pair<std::string, std::optional<std::string>>>& query,
        long long now_seconds) const;

    net::RetryPolicy& policy() { return policy_; }
    /// Counts the body bytes of every successful answer (cdcd_bytes_in_total).
    void count_bytes_in(metrics::Counter& counter) { bytes_in_ = &counter; }

  private:
    /// An answer over `max_bytes` (named `limit_name` in the error) is an OssError, not transient.
    boost::asio::awaitable<net::RetryResult> send(std::function<net::HttpRequest()> make,
                                                  const std::string& what, std::size_t max_bytes,
                                                  const std::string& limit_name);
    boost::asio::awaitable<std::optional<std::string>> get_ranged(
        std::function<net::HttpRequest()> make, std::string what, std::uint64_t max_bytes);

    net::HttpClient& http_;
    OssClientConfig config_;
    net::RetryPolicy policy_;
    metrics::Counter* bytes_in_ = nullptr;
};

}  // namespace cdcd::oss
