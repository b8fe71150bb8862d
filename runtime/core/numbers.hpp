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

// The longest wait, 100 years: longer than any wait meant, and a time of day
// plus it is still a date every file and trace can write (and read back).
inline constexpr int64_t longest_wait_ms = int64_t{3'155'760'000'000};

// A duration in milliseconds as a whole number (rounded), saturated to
// [0, longest_wait_ms]; not a number gives 0.
inline int64_t whole_ms(double ms) {
  if (!(ms > 0))
    return 0;
  return ms >= static_cast<double>(longest_wait_ms) ? longest_wait_ms
                                                    : static_cast<int64_t>(std::llround(ms));
}

// Seconds as whole milliseconds, as whole_ms.
inline int64_t seconds_to_ms(double seconds) { return whole_ms(seconds * 1000); }

} // namespace ad::runtime
