// Doubles from outside input as integers: out of range is an answer, never
// undefined behaviour.
#include "runtime/core/numbers.hpp"

#include <gtest/gtest.h>
#include <limits>

namespace ad::runtime {
namespace {

TEST(to_int64, truncates_what_fits_and_refuses_the_rest) {
  EXPECT_EQ(to_int64(41.9), 41);
  EXPECT_EQ(to_int64(-41.9), -41);
  EXPECT_EQ(to_int64(-9223372036854775808.0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(to_int64(9223372036854775808.0), std::nullopt);
  EXPECT_EQ(to_int64(1e234), std::nullopt);
  EXPECT_EQ(to_int64(-1e234), std::nullopt);
  EXPECT_EQ(to_int64(std::numeric_limits<double>::infinity()), std::nullopt);
  EXPECT_EQ(to_int64(std::numeric_limits<double>::quiet_NaN()), std::nullopt);
}

TEST(seconds_to_ms, rounds_and_saturates) {
  EXPECT_EQ(seconds_to_ms(30), 30'000);
  EXPECT_EQ(seconds_to_ms(0.0015), 2);
  EXPECT_EQ(seconds_to_ms(0), 0);
  EXPECT_EQ(seconds_to_ms(-5), 0);
  EXPECT_EQ(seconds_to_ms(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(seconds_to_ms(1e300), int64_t{1} << 62);
  EXPECT_EQ(seconds_to_ms(std::numeric_limits<double>::infinity()), int64_t{1} << 62);
}

} // namespace
} // namespace ad::runtime
