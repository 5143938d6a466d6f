// SIGTERM and SIGINT held back from the process's start until the runtime handles them, so that
// one sent while the daemon still loads its configuration stops it cleanly (exit 0, nothing to
// drain) instead of killing it with the signal's default action.
#pragma once

#include <pthread.h>

#include <csignal>

namespace cdcd {

inline sigset_t stop_signal_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    return set;
}

/// Before any thread starts (threads inherit the mask): a stop signal now waits, pending, instead
/// of ending the process.
inline void hold_stop_signals() {
    const sigset_t set = stop_signal_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

/// Once the runtime's handler is installed: a signal held back is delivered to it now. Only this
/// thread takes stop signals again; the threads started while they were held never do.
inline void release_stop_signals() {
    const sigset_t set = stop_signal_set();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace cdcd
