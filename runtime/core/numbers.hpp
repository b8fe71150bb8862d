#pragma once
// Conversions of doubles from outside input (JSON numbers in agent output,
// probe results, the policy) to integers: out of range is an answer here,
// never undefined behaviour.

#include <cmath>
#include <cstdint>
#include <optional>

namespace ad::runtime {

// d truncated toward zero as int64_t; nullopt when not finite or outside
// int64_t's range.
inline std::optional<int64_t> to_int64(double d) {
  if (!std::isfinite(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
    return std::nullopt;
  return static_cast<int64_t>(d);
}

// Seconds as whole milliseconds (rounded), saturated to [0, 2^62]; not a
// number gives 0. 2^62 ms is longer than any wait and still leaves room to
// add it to a time of day.
inline int64_t seconds_to_ms(double seconds) {
  constexpr double cap = 4611686018427387904.0; // 2^62
  if (!(seconds > 0))
    return 0;
  const double ms = seconds * 1000;
  return ms >= cap ? static_cast<int64_t>(cap) : static_cast<int64_t>(std::llround(ms));
}

} // namespace ad::runtime
