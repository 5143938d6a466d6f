#include "sources/oss/bad_event.h"

namespace cdcd::oss {

std::string BadEventPosition::str() const {
    return "MNS queue " + queue + ", message " + message_id + ", " +
           (event_index ? "event " + std::to_string(*event_index) : std::string("the whole body"));
}

void fail_on_bad_event(const BadEventPosition& position, const std::string& error,
                       std::string_view raw) {
    (void)raw;
    throw BadEventError("oss-cdc: cannot decode the OSS event notification at " + position.str() +
                        ": " + error +
                        "; the message is left in the queue (not deleted) and the pipeline "
                        "stops");
}

}  // namespace cdcd::oss
