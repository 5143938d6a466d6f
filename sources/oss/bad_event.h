#pragma once
// The one decision point for an MNS event the source cannot decode. Today the policy is `fail`:
// the pipeline stops with an error naming the queue, the message and the event, and the message
// stays in the queue. A handler that returns instead drops the event (skip, dead-letter): its
// message is then acknowledged only with the checkpoint taken after that decision.
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cdcd::oss {

/// Where an undecodable event sits.
struct BadEventPosition {
    std::string queue;
    std::string message_id;
    /// Index of the entry in the body's `events`; none when the body as a whole is undecodable.
    std::optional<std::size_t> event_index;

    /// "MNS queue q1, message 5F3A..., event 1" (or "..., the whole body").
    std::string str() const;
};

/// Thrown by the `fail` policy; stops the pipeline.
class BadEventError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// Decides about one undecodable event: `error` says what is wrong, `raw` is the entry's JSON
/// (or the whole message body). Throws to stop (any exception: the reader rethrows it once the
/// valid events before it are delivered); returns to drop the event.
using BadEventHandler = std::function<void(const BadEventPosition& position,
                                           const std::string& error, std::string_view raw)>;

/// Policy `fail`: throws BadEventError naming the position and what is wrong (not `raw`: an
/// event body can be large, and it stays in the queue for inspection).
void fail_on_bad_event(const BadEventPosition& position, const std::string& error,
                       std::string_view raw);

}  // namespace cdcd::oss
