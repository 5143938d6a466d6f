#include "cmd/stderr_log_sink.h"

#include <fcntl.h>
#include <spdlog/logger.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

using cdcd::cli::StderrLogSink;

namespace {

constexpr int kPipeBytes = 4 * 4096;

// A pipe of four pages (poll() finds room in a pipe while one of its pages is free), whose read
// end can be emptied.
struct SmallPipe {
    int fds[2] = {-1, -1};
    SmallPipe() {
        REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
        REQUIRE(fcntl(fds[1], F_SETPIPE_SZ, kPipeBytes) >= 0);
    }
    ~SmallPipe() {
        close(fds[0]);
        close(fds[1]);
    }
    SmallPipe(const SmallPipe&) = delete;
    SmallPipe& operator=(const SmallPipe&) = delete;
    void fill() {
        const int flags = fcntl(fds[1], F_GETFL);
        fcntl(fds[1], F_SETFL, flags | O_NONBLOCK);
        const std::string chunk(256, 'x');
        while (write(fds[1], chunk.data(), chunk.size()) > 0) {
        }
        fcntl(fds[1], F_SETFL, flags);
    }
    std::string drain() {
        const int flags = fcntl(fds[0], F_GETFL);
        fcntl(fds[0], F_SETFL, flags | O_NONBLOCK);
        std::string all;
        char buf[1024];
        for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) all.append(buf, n);
        fcntl(fds[0], F_SETFL, flags);
        return all;
    }
};

// A logger (message text only) whose stderr is a SmallPipe.
struct PipeLogger {
    SmallPipe pipe;
    std::shared_ptr<spdlog::logger> log =
        std::make_shared<spdlog::logger>("t", std::make_shared<StderrLogSink>(pipe.fds[1]));
    PipeLogger() { log->set_pattern("%v"); }
};

}  // namespace

TEST_CASE_METHOD(PipeLogger, "lines reach a pipe that is read", "[stderr_log_sink]") {
    log->info("one");
    log->info("two");
    CHECK(pipe.drain() == "one\ntwo\n");
}

TEST_CASE_METHOD(PipeLogger,
                 "a full pipe drops lines instead of blocking, and says so once there is room",
                 "[stderr_log_sink]") {
    pipe.fill();
    log->info("lost one");  // waits a moment for room, then is dropped
    log->info("lost two");  // dropped at once
    CHECK(pipe.drain().find("lost") == std::string::npos);
    log->info("back");
    CHECK(pipe.drain() == "cdcd: 2 log lines dropped: stderr was not read for a while\nback\n");
}

TEST_CASE_METHOD(PipeLogger,
                 "a line longer than a full pipe takes is cut, and what follows starts a line",
                 "[stderr_log_sink]") {
    const std::string longer(kPipeBytes + 4096, 'y');
    log->info(longer);  // more than the pipe holds, and nobody reads: cut, the rest dropped
    std::string got = pipe.drain();
    CHECK(got.size() < longer.size());
    log->info("next");
    got += pipe.drain();
    // The cut line is ended before the count and the next line.
    CHECK(got.find("\ncdcd: 1 log lines dropped") != std::string::npos);
    CHECK(got.size() >= 5);
    CHECK(got.substr(got.size() - 5) == "next\n");
}
