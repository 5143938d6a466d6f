#pragma once
// Runs one writer's write of a batch and its flush for a checkpoint on an event loop of its own,
// as the runtime would: the file sink tests' way to put lines in a file.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <string>

#include "pipeline/connector/sink.h"

namespace cdcd::testing {

/// The writer's state after the flush of checkpoint `checkpoint_id`.
inline std::string write_and_flush(SinkWriter& writer, EventBatch& batch,
                                   std::uint64_t checkpoint_id = 1) {
    boost::asio::io_context io;
    auto done = boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<std::string> {
            co_await writer.write(batch);
            co_return co_await writer.flush(checkpoint_id);
        },
        boost::asio::use_future);
    io.run();
    return done.get();
}

}  // namespace cdcd::testing
