#include "cmd/systemd_notify.h"

#ifdef CDCD_HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#else
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#endif

namespace cdcd::service {

#ifdef CDCD_HAVE_LIBSYSTEMD

bool notify(const std::string& state) {
    return sd_notify(0, state.c_str()) > 0;
}

std::chrono::microseconds watchdog_timeout() {
    std::uint64_t usec = 0;
    if (sd_watchdog_enabled(0, &usec) <= 0) return std::chrono::microseconds(0);
    return std::chrono::microseconds(usec);
}

#else

// The datagram protocol of sd_notify(3), for builds without libsystemd.
bool notify(const std::string& state) {
    const char* path = std::getenv("NOTIFY_SOCKET");
    if (!path || (path[0] != '/' && path[0] != '@')) return false;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::size_t len = std::strlen(path);
    if (len >= sizeof addr.sun_path) return false;
    std::memcpy(addr.sun_path, path, len);
    if (path[0] == '@') addr.sun_path[0] = '\0';
    int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    auto addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len);
    bool ok =
        ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&addr),
                 addr_len) == static_cast<ssize_t>(state.size());
    ::close(fd);
    return ok;
}

std::chrono::microseconds watchdog_timeout() {
    const char* usec = std::getenv("WATCHDOG_USEC");
    const char* pid = std::getenv("WATCHDOG_PID");
    if (!usec) return std::chrono::microseconds(0);
    if (pid && std::strtol(pid, nullptr, 10) != ::getpid()) return std::chrono::microseconds(0);
    return std::chrono::microseconds(std::strtoull(usec, nullptr, 10));
}

#endif

}  // namespace cdcd::service
