#include "cmd/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace cdcd::cli {

void open_closed_standard_streams() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // open() takes the lowest free descriptor: this one, as those below it are open by now.
        // Without /dev/null (a bare chroot) it stays closed, as before.
        (void)open("/dev/null", O_RDWR);  // NOLINT(android-cloexec-open): stays open for good
    }
}

}  // namespace cdcd::cli
