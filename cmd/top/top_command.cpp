#include "cmd/top/top_command.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <thread>

#include "cmd/top/scrape.h"
#include "cmd/top/top_view.h"

namespace cdcd::top {

namespace {

volatile std::sig_atomic_t interrupted = 0;

void on_signal(int) {
    interrupted = 1;
}

std::string clock_text() {
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buf[16];
    std::strftime(buf, sizeof buf, "%H:%M:%S", &local);
    return buf;
}

/// The terminal in the mode a full-screen view needs, restored on destruction: keys read one by
/// one without echo, the alternate screen, no cursor.
class Screen {
  public:
    Screen() {
        if (tcgetattr(STDIN_FILENO, &saved_) == 0) {
            termios raw = saved_;
            raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
            raw.c_cc[VMIN] = 0;
            raw.c_cc[VTIME] = 0;
            restore_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
        }
        std::fputs("\x1b[?1049h\x1b[?25l", stdout);
        std::fflush(stdout);
    }
    ~Screen() {
        std::fputs("\x1b[?25h\x1b[?1049l", stdout);
        std::fflush(stdout);
        if (restore_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
    }
    Screen(const Screen&) = delete;
    Screen& operator=(const Screen&) = delete;

    static std::pair<std::size_t, std::size_t> size() {
        winsize ws{};
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
            return {ws.ws_col, ws.ws_row};
        return {80, 24};
    }

    void draw(const std::vector<std::string>& lines, std::size_t rows) {
        std::string out = "\x1b[H";
        for (std::size_t i = 0; i < lines.size() && i < rows; ++i) {
            out += lines[i];
            out += "\x1b[K";
            if (i + 1 < rows) out += "\r\n";
        }
        out += "\x1b[J";
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fflush(stdout);
    }

    /// Waits up to `timeout` for a key; true when it asks to quit (q, Q) or a signal came.
    static bool wait_for_quit(std::chrono::milliseconds timeout) {
        auto until = std::chrono::steady_clock::now() + timeout;
        while (!interrupted) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                until - std::chrono::steady_clock::now());
            if (left.count() <= 0) return false;
            pollfd in{STDIN_FILENO, POLLIN, 0};
            int ready = ::poll(&in, 1, static_cast<int>(left.count()));
            if (ready <= 0) continue;  // timeout (checked above) or a signal (the flag)
            char key[16];
            ssize_t n = ::read(STDIN_FILENO, key, sizeof key);
            if (n <= 0) return false;  // stdin closed: keep refreshing until the deadline
            for (ssize_t i = 0; i < n; ++i)
                if (key[i] == 'q' || key[i] == 'Q') return true;
        }
        return true;
    }

  private:
    termios saved_{};
    bool restore_ = false;
};

}  // namespace

std::vector<std::string> frame_lines(const std::vector<Scrape>& now,
                                     const std::vector<Scrape>& before, const TopOptions& options,
                                     std::size_t width) {
    std::vector<std::string> lines;
    char every[32];
    double seconds = static_cast<double>(options.interval.count()) / 1000;
    std::snprintf(every, sizeof every, seconds < 10 ? "%.3g s" : "%.0f s", seconds);
    lines.push_back(fit("cdcd top · " + std::to_string(now.size()) +
                            (now.size() == 1 ? " daemon" : " daemons") + " · every " + every +
                            " · " + clock_text() + (options.once ? "" : " · q quits"),
                        width));
    for (std::size_t i = 0; i < now.size(); ++i) {
        const Scrape* previous = i < before.size() ? &before[i] : nullptr;
        for (auto& line : daemon_lines(now[i], previous, width)) lines.push_back(std::move(line));
    }
    return lines;
}

int top_command(TopOptions options) {
    if (options.addresses.empty()) options.addresses.push_back("127.0.0.1:8081");
    for (const auto& a : options.addresses) metrics_url(a);  // a malformed address fails now
    const auto timeout = std::clamp(options.interval, std::chrono::milliseconds(500),
                                    std::chrono::milliseconds(5000));
    const bool terminal = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
    if (!terminal) options.once = true;
    if (options.once) {
        // Rates need two scrapes: one interval apart.
        auto before = scrape_all(options.addresses, timeout);
        std::this_thread::sleep_for(options.interval);
        auto now = scrape_all(options.addresses, timeout);
        for (const auto& line : frame_lines(now, before, options, 80))
            std::printf("%s\n", line.c_str());
        bool any = std::any_of(now.begin(), now.end(), [](const Scrape& s) { return !s.error; });
        return any ? 0 : 1;
    }
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    Screen screen;
    std::vector<Scrape> before;
    while (true) {
        auto now = scrape_all(options.addresses, timeout);
        auto [width, rows] = Screen::size();
        screen.draw(frame_lines(now, before, options, width), rows);
        before = std::move(now);
        if (Screen::wait_for_quit(options.interval)) break;
    }
    return 0;
}

}  // namespace cdcd::top
