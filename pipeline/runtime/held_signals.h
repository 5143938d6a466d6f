// SIGTERM, SIGINT and SIGHUP held back from the process's start until the daemon handles them,
// so that one sent while it still loads its configuration is handled then (a stop before
// starting, exit 0; a log reopen) instead of ending the process by the signal's default action.
#pragma once

#include <pthread.h>

#include <csignal>

namespace cdcd {

inline sigset_t held_signal_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    return set;
}

/// Before any thread starts (threads inherit the mask): these signals now wait, pending, instead
/// of ending the process.
inline void hold_signals() {
    const sigset_t set = held_signal_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

/// Once the runtime's handlers are installed (and whatever else handles SIGHUP, set up before the
/// runtime runs): a signal held back is delivered now. Only this thread takes them again; the
/// threads started while they were held never do.
inline void release_signals() {
    const sigset_t set = held_signal_set();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace cdcd
