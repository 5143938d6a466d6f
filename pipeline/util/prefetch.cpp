#include "pipeline/util/prefetch.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace cdcd::detail {

bool cpu_prefetches_for_write() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0x80000001U, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ecx & (1U << 8)) != 0;  // PRFCHW (the 3DNowPrefetch flag)
#else
    return false;
#endif
}

}  // namespace cdcd::detail
