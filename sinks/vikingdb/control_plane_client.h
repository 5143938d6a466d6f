#pragma once
// The control-plane calls the sink needs (Get/Create/DeleteVikingdbCollection, Version
// 2025-06-09), V4-signed, with the ResponseMetadata/Result envelope, retries on 5xx and
// throttling, and errors carrying the server's code and message.
#include <boost/asio/awaitable.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "net/http_client.h"
#include "net/retry.h"
#include "sinks/vikingdb/auth.h"

namespace cdcd::vikingdb {

/// A failed VikingDB call: HTTP status, the server's error code and message.
class ApiError : public std::runtime_error {
  public:
    ApiError(const std::string& what, int status, std::string code, std::string message);
    int status() const { return status_; }
    const std::string& code() const { return code_; }
    const std::string& server_message() const { return message_; }

  private:
    int status_;
    std::string code_;
    std::string message_;
};

/// Error code and message of an error body, either plane's shape ({"code","message"} or
/// {"ResponseMetadata":{"Error":{"Code","Message"}}}); empty strings when unparsable.
std::pair<std::string, std::string> parse_error_body(const std::string& body);
/// What an error code says that VikingDB's own words do not, for its error message ("" for most):
/// InvalidTimestamp names the host's clock (a request signed more than 15 minutes from
/// VikingDB's time is refused, whoever's clock is wrong).
std::string cause_note(std::string_view code);
/// How a failed call went, for its error message: " (max-retries: 3 exhausted: 4 attempts over
/// 21.3 s)" when retries ran out, " (after 2 attempts)" when there were several, "" for one.
std::string attempts_note(const net::RetryResult& result, int max_retries);
/// The codes by which VikingDB says "slow down": RequestLimitExceeded (data plane),
/// FlowLimitExceeded (the control plane's OpenAPI gateway), Throttling[.*] (Volcengine OpenAPI).
bool is_throttling_code(std::string_view code);
/// Throttled: 429 or a throttling code (with any status). Retryable: 5xx, 408, and the codes
/// ServiceUnavailable, Timeout, InternalError and other *LimitExceeded. Permanent: other 4xx.
net::Classification classify_response(const net::HttpResponse& response);

struct ExistingField {
    std::string name;
    std::string type;  // FieldType as the API spells it
    std::optional<int> dim;
    bool primary_key = false;
};

struct CollectionInfo {
    std::string name;
    std::string resource_id;
    std::vector<ExistingField> fields;
    std::string primary_key;
    bool vectorize = false;
};

/// Parses GetVikingdbCollection's Result object; throws std::runtime_error on a malformed body.
CollectionInfo parse_collection_info(const std::string& response_body);

class ControlPlaneClient {
  public:
    ControlPlaneClient(net::HttpClient& http, const Authenticator& auth, Endpoint endpoint,
                       std::chrono::milliseconds timeout, net::RetryPolicy policy);

    /// nullopt when the collection does not exist.
    boost::asio::awaitable<std::optional<CollectionInfo>> get_collection(std::string project,
                                                                         std::string name);
    /// Creates the collection from a CreateVikingdbCollection body; false when it already existed.
    boost::asio::awaitable<bool> create_collection(std::string body);
    /// Deletes the collection; false when it did not exist.
    boost::asio::awaitable<bool> delete_collection(std::string project, std::string name);

  private:
    boost::asio::awaitable<net::RetryResult> call(const std::string& action, std::string body);
    ApiError failure(const std::string& action, const std::string& name,
                     const net::RetryResult& r) const;

    net::HttpClient& http_;
    const Authenticator& auth_;
    Endpoint endpoint_;
    std::chrono::milliseconds timeout_;
    net::RetryPolicy policy_;
};

}  // namespace cdcd::vikingdb
