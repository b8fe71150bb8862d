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

TEST(whole_ms, rounds_and_saturates_milliseconds) {
  EXPECT_EQ(whole_ms(1500.4), 1500);
  EXPECT_EQ(whole_ms(1500.5), 1501);
  EXPECT_EQ(whole_ms(-1), 0);
  EXPECT_EQ(whole_ms(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(whole_ms(3155760000000.0), longest_wait_ms);
  EXPECT_EQ(whole_ms(3155759999999.0), longest_wait_ms - 1);
  EXPECT_EQ(whole_ms(1e303), longest_wait_ms);
}

TEST(seconds_to_ms, rounds_and_saturates) {
  EXPECT_EQ(seconds_to_ms(30), 30'000);
  EXPECT_EQ(seconds_to_ms(0.0015), 2);
  EXPECT_EQ(seconds_to_ms(0), 0);
  EXPECT_EQ(seconds_to_ms(-5), 0);
  EXPECT_EQ(seconds_to_ms(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(seconds_to_ms(1e300), longest_wait_ms);
  EXPECT_EQ(seconds_to_ms(std::numeric_limits<double>::infinity()), longest_wait_ms);
}

} // namespace
} // namespace ad::runtime
