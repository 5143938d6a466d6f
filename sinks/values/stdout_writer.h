#pragma once
// Writes to the process's stdout for every writer of the values sink, one write at a time. When
// stdout is a pipe it is written asynchronously, so a slow reader back-pressures the pipeline
// instead of blocking the event loop; a terminal or a file is written directly.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <optional>
#include <string>

namespace cdcd::values {

class StdoutWriter {
  public:
    explicit StdoutWriter(const boost::asio::any_io_executor& executor);
    ~StdoutWriter();
    /// Writes all of `data`; returns once it has been handed to the kernel.
    boost::asio::awaitable<void> write(std::string data);

  private:
    std::optional<boost::asio::posix::stream_descriptor> pipe_;
    // A one-slot channel used as an async mutex: writers take turns.
    boost::asio::experimental::channel<void(boost::system::error_code)> turn_;
};

}  // namespace cdcd::values
