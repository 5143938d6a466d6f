#include "sinks/vikingdb/record_isolation.h"

namespace cdcd::vikingdb {

boost::asio::awaitable<void> send_isolating(std::size_t begin, std::size_t end,
                                            const SendRange& send, const OnRejected& rejected) {
    if (begin >= end) co_return;
    std::optional<ApiError> refused = co_await send(begin, end);
    if (!refused) co_return;
    if (end - begin == 1) {
        rejected(begin, *refused);
        co_return;
    }
    std::size_t mid = begin + (end - begin) / 2;
    co_await send_isolating(begin, mid, send, rejected);
    // Both halves may be accepted although the whole was refused (e.g. a request size limit).
    co_await send_isolating(mid, end, send, rejected);
}

}  // namespace cdcd::vikingdb
