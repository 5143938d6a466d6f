#include "sinks/values/stdout_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace cdcd::values {

namespace asio = boost::asio;

StdoutWriter::StdoutWriter(const asio::any_io_executor& executor) : turn_(executor, 1) {
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) {
        int fd = ::dup(STDOUT_FILENO);
        if (fd >= 0) {
            pipe_.emplace(executor, fd);
            pipe_->non_blocking(true);
        }
    }
}

StdoutWriter::~StdoutWriter() = default;

asio::awaitable<void> StdoutWriter::write(std::string data) {
    if (data.empty()) co_return;
    if (!pipe_) {
        const char* p = data.data();
        std::size_t left = data.size();
        while (left > 0) {
            ssize_t n = ::write(STDOUT_FILENO, p, left);
            if (n < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("values sink: cannot write to stdout: ") +
                                         std::strerror(errno));
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        co_return;
    }
    co_await turn_.async_send(boost::system::error_code{}, asio::use_awaitable);
    struct Release {
        decltype(turn_)& turn;
        ~Release() {
            turn.try_receive([](boost::system::error_code) {});
        }
    } release{turn_};
    auto [ec, written] =
        co_await asio::async_write(*pipe_, asio::buffer(data), asio::as_tuple(asio::use_awaitable));
    if (ec)  // the reader went away (EPIPE), most likely
        throw std::runtime_error("values sink: cannot write to stdout: " + ec.message());
}

}  // namespace cdcd::values
