#pragma once
// Asks the CPU to bring a line into its caches ahead of a read or a write. An asm statement, not
// __builtin_prefetch: GCC 12 at -O2 deletes __builtin_prefetch calls once an inline helper that
// holds them is inlined into its caller (a fetch of a row's two lines, the second under a size
// test, vanished from the file sink and the transform), and an asm volatile stays.

#include <cstddef>

namespace cdcd {

namespace detail {
/// Whether the CPU has PREFETCHW (x86's PRFCHW feature), read once.
bool cpu_prefetches_for_write();
inline const bool kPrefetchForWrite = cpu_prefetches_for_write();
}  // namespace detail

inline void prefetch_for_read(const void* address) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
#elif defined(__aarch64__)
    asm volatile("prfm pldl1keep, %0" : : "Q"(*static_cast<const char*>(address)));
#else
    __builtin_prefetch(address);
#endif
}

/// Asks for every line of the `bytes` bytes at `address` (none when `bytes` is 0).
inline void prefetch_bytes_for_read(const char* address, std::size_t bytes) {
    if (bytes == 0) return;
    for (std::size_t at = 0; at < bytes; at += 64) prefetch_for_read(address + at);
    prefetch_for_read(address + bytes - 1);  // the last line, when the bytes start mid-line
}

/// Asks for the line at `address` ahead of a write: x86's PREFETCHW takes it in the state a
/// write needs, so a line another core last read or wrote is not fetched twice (for the read,
/// then for ownership) when the write comes. A read fetch where the CPU lacks it.
inline void prefetch_for_write(const void* address) {
#if defined(__x86_64__) || defined(__i386__)
    if (detail::kPrefetchForWrite)
        asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(address)));
    else
        prefetch_for_read(address);
#elif defined(__aarch64__)
    asm volatile("prfm pstl1keep, %0" : : "Q"(*static_cast<const char*>(address)));
#else
    __builtin_prefetch(address, 1);
#endif
}

/// Asks for every line of the `bytes` bytes at `address` ahead of writing them.
inline void prefetch_bytes_for_write(const char* address, std::size_t bytes) {
    if (bytes == 0) return;
#if defined(__x86_64__) || defined(__i386__)
    // The CPU's answer once for all the lines, not once a line.
    if (!detail::kPrefetchForWrite) {
        prefetch_bytes_for_read(address, bytes);
        return;
    }
    for (std::size_t at = 0; at < bytes; at += 64)
        asm volatile("prefetchw %0" : : "m"(address[at]));
    asm volatile("prefetchw %0" : : "m"(address[bytes - 1]));
#else
    for (std::size_t at = 0; at < bytes; at += 64) prefetch_for_write(address + at);
    prefetch_for_write(address + bytes - 1);
#endif
}

}  // namespace cdcd
