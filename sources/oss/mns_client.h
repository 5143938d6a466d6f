#pragma once
// The MNS queue calls the source makes: BatchReceiveMessage (long polling), DeleteMessage,
// BatchDeleteMessage and ChangeMessageVisibility, signed per vendor-apis.md §2.2.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "metrics/registry.h"
#include "net/http_client.h"
#include "net/retry.h"
#include "sources/oss/credentials.h"
#include "sources/oss/service_call.h"

namespace cdcd::oss {

struct MnsMessage {
    std::string message_id;
    std::string receipt_handle;
    std::string body;
    std::int64_t enqueue_time_ms = 0;
    std::int64_t next_visible_time_ms = 0;
    int dequeue_count = 0;
};

/// An MNS error response (or transport failure after the retries).
class MnsError : public ServiceError {
  public:
    using ServiceError::ServiceError;
};

/// The most bytes an MNS answer may hold: a BatchReceiveMessage of 16 messages of up to 64 KiB,
/// base64 (88 KiB each), with their XML is under 1.5 MiB. A fixed limit.
inline constexpr std::size_t kMnsResponseLimit = 4u << 20;

/// <Messages> or <Message> body → messages. Throws XmlError.
std::vector<MnsMessage> parse_messages(const std::string& body);
/// <ReceiptHandles> body for BatchDeleteMessage.
std::string batch_delete_body(const std::vector<std::string>& handles);
/// Handles that failed in a BatchDeleteMessage <Errors> body, with their codes.
std::vector<std::pair<std::string, std::string>> parse_batch_delete_errors(const std::string& body);

struct DeleteFailure {
    std::string receipt_handle;
    std::string code;
};

class MnsClient {
  public:
    MnsClient(net::HttpClient& http, std::string endpoint, std::string queue,
              Credentials credentials, std::function<bool()> cancelled,
              std::chrono::milliseconds request_timeout = std::chrono::milliseconds(30'000));

    /// Up to n messages, waiting up to wait_seconds; empty when none arrived.
    boost::asio::awaitable<std::vector<MnsMessage>> receive(int n, int wait_seconds);
    /// Deletes handles (one call, or BatchDeleteMessage in chunks of 16 when batch); returns the
    /// handles the service refused (MessageNotExist / ReceiptHandleError). Throws MnsError on
    /// throttling/5xx/transport after the retries.
    boost::asio::awaitable<std::vector<DeleteFailure>> remove(std::vector<std::string> handles,
                                                              bool batch);
    /// New receipt handle and next visible time after making the message invisible for seconds.
    boost::asio::awaitable<MnsMessage> change_visibility(std::string handle, int seconds);

    net::HttpRequest sign(const std::string& method, const std::string& target,
                          const std::string& body, long long now_seconds) const;
    net::RetryPolicy& policy() { return policy_; }
    /// Counts the body bytes of every successful answer (cdcd_bytes_in_total).
    void count_bytes_in(metrics::Counter& counter) { bytes_in_ = &counter; }

  private:
    boost::asio::awaitable<net::RetryResult> delete_chunk(std::vector<std::string> chunk,
                                                          bool batch);
    boost::asio::awaitable<net::RetryResult> send(std::function<net::HttpRequest()> make,
                                                  const std::string& what,
                                                  std::chrono::milliseconds timeout);

    net::HttpClient& http_;
    std::string endpoint_, queue_;
    Credentials credentials_;
    net::RetryPolicy policy_;
    std::chrono::milliseconds request_timeout_;
    metrics::Counter* bytes_in_ = nullptr;
};

}  // namespace cdcd::oss
