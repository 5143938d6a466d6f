#pragma once
// Finding the records a server refuses in a batch it rejects as a whole. VikingDB validates a
// whole upsert or delete before applying any of it, so a 400 about one record's data refuses
// every record of the batch. send_isolating() splits a rejected range in halves and sends each
// half, down to single records: the accepted halves are delivered, and each single record
// still refused is handed to `rejected` (which may throw, ending the search). Records of one
// batch have distinct keys (the Batcher keeps only the last operation per key in a batch), and
// resending an accepted half is harmless (upserts and deletes by id are idempotent), so the
// order in which halves go out changes nothing. A batch of n records with r refused ones takes
// at most about 2·r·log2(n) + 1 requests.
//
//   co_await send_isolating(0, batch.size(), send_range,
//                           [&](std::size_t i, const ApiError& e) { dead_letter(batch, i, e); });
#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <functional>
#include <optional>

#include "sinks/vikingdb/control_plane_client.h"

namespace cdcd::vikingdb {

/// Sends records [begin, end) in one request. Returns nullopt when they were accepted, the
/// server's error when it refused them for their data (worth splitting); throws on any other
/// failure (credentials, a missing collection, retries run out).
using SendRange = std::function<boost::asio::awaitable<std::optional<ApiError>>(std::size_t begin,
                                                                                std::size_t end)>;
/// Record `index`, alone, was refused for its data with `error`.
using OnRejected = std::function<void(std::size_t index, const ApiError& error)>;

boost::asio::awaitable<void> send_isolating(std::size_t begin, std::size_t end,
                                            const SendRange& send, const OnRejected& rejected);

}  // namespace cdcd::vikingdb
