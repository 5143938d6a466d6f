#pragma once
// Arithmetic on the unscaled integers of DECIMAL values (see Decimal in values.h).

namespace cdcd {

/// 10^n for 0 <= n <= 38.
__int128 pow10_128(int n);
/// Rescales an unscaled decimal with HALF_UP rounding. Scaling up does not check for overflow.
__int128 rescale(__int128 v, int from_scale, int to_scale);
/// True if |v| fits in `precision` digits.
bool fits_precision(__int128 v, int precision);

}  // namespace cdcd
