#pragma once
// Arithmetic on the unscaled integers of DECIMAL values (see Decimal in values.h).
#include <optional>

namespace cdcd {

/// 10^n for 0 <= n <= 38.
__int128 pow10_128(int n);
/// Rescales an unscaled decimal with HALF_UP rounding. Scaling up does not check for overflow.
__int128 rescale(__int128 v, int from_scale, int to_scale);
/// v * 10^n, or nullopt when that is past __int128 (a decimal of more than 38 digits).
std::optional<__int128> scale_up(__int128 v, int n);
/// a * b, a + b, a - b; nullopt when the result is past __int128.
std::optional<__int128> checked_mul(__int128 a, __int128 b);
std::optional<__int128> checked_add(__int128 a, __int128 b);
std::optional<__int128> checked_sub(__int128 a, __int128 b);
/// Compares a (unscaled, at scale sa) with b (at scale sb): -1, 0 or 1. Exact, and without
/// overflow: bringing one to the other's scale may pass __int128, and then it is the larger in
/// magnitude.
int compare_decimals(__int128 a, int sa, __int128 b, int sb);
/// True if |v| fits in `precision` digits.
bool fits_precision(__int128 v, int precision);

}  // namespace cdcd
