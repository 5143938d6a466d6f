#include "cmd/stderr_log_sink.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <string>

namespace cdcd::cli {

StderrLogSink::StderrLogSink(int fd) : fd_(fd) {
    struct stat st {};
    if (fstat(fd_, &st) == 0) {
        socket_ = S_ISSOCK(st.st_mode);
        stream_ = socket_ || S_ISFIFO(st.st_mode);
    }
}

void StderrLogSink::sink_it_(const spdlog::details::log_msg& msg) {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    write_line(std::string_view(formatted.data(), formatted.size()));
}

void StderrLogSink::write_text(std::string_view text) {
    std::lock_guard<std::mutex> lock(mutex_);
    write_line(text);
}

void StderrLogSink::write_line(std::string_view line) {
    if (!stream_) {
        write_within(line.data(), line.size(), std::chrono::milliseconds::max());
        return;
    }
    // While lines are being dropped, the next one is written only if there is room right away:
    // a reader that stopped costs the pipeline one wait, not one per line.
    const auto wait = dropped_ > 0 ? std::chrono::milliseconds(0) : kWaitForRoom;
    if (dropped_ > 0 || cut_) {
        std::string notice = cut_ ? "\n" : "";
        if (dropped_ > 0)
            notice += "cdcd: " + std::to_string(dropped_) +
                      " log lines dropped: stderr was not read for a while\n";
        if (!write_within(notice.data(), notice.size(), wait)) {
            ++dropped_;
            return;
        }
        dropped_ = 0;
        cut_ = false;
    }
    if (!write_within(line.data(), line.size(), wait)) ++dropped_;
}

bool StderrLogSink::write_within(const char* data, std::size_t size,
                                 std::chrono::milliseconds wait) {
    const auto deadline = wait == std::chrono::milliseconds::max()
                              ? std::chrono::steady_clock::time_point::max()
                              : std::chrono::steady_clock::now() + wait;
    std::size_t done = 0;
    while (done < size) {
        if (stream_) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            pollfd p{fd_, POLLOUT, 0};
            const int ready =
                poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, left.count())));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0 || (p.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
                if (done > 0) cut_ = true;
                return false;
            }
        }
        // Room in a pipe is a free page, where a write of at most PIPE_BUF bytes goes without
        // blocking; a socket is written without waiting.
        const std::size_t chunk =
            stream_ ? std::min<std::size_t>(size - done, PIPE_BUF) : size - done;
        const ssize_t n = socket_ ? send(fd_, data + done, chunk, MSG_DONTWAIT | MSG_NOSIGNAL)
                                  : write(fd_, data + done, chunk);
        if (n < 0) {
            if (errno == EINTR || (stream_ && (errno == EAGAIN || errno == EWOULDBLOCK))) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a file or terminal set non-blocking
                pollfd p{fd_, POLLOUT, 0};
                poll(&p, 1, static_cast<int>(kWaitForRoom.count()));
                continue;
            }
            if (done > 0) cut_ = true;
            return false;  // nowhere to write (closed, EPIPE): as spdlog's own sink, say nothing
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace cdcd::cli
