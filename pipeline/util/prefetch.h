#pragma once
// Asks the CPU to bring a line into its caches ahead of a read. An asm statement, not
// __builtin_prefetch: GCC 12 at -O2 deletes __builtin_prefetch calls once an inline helper that
// holds them is inlined into its caller (a fetch of a row's two lines, the second under a size
// test, vanished from the file sink and the transform), and an asm volatile stays.

namespace cdcd {

inline void prefetch_for_read(const void* address) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
#elif defined(__aarch64__)
    asm volatile("prfm pldl1keep, %0" : : "Q"(*static_cast<const char*>(address)));
#else
    __builtin_prefetch(address);
#endif
}

}  // namespace cdcd
