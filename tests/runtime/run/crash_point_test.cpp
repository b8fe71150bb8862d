// Which AD_TEST_CRASH_AT values name which crash points (docs/test-hooks.md).
#include <gtest/gtest.h>

#include "runtime/run/crash_point.hpp"

namespace ad::runtime {
namespace {

TEST(crash_point, a_point_fires_at_every_role_and_a_qualified_one_at_its_role_only) {
  EXPECT_TRUE(crash_point_matches("after-attempt-end", "after-attempt-end", "worker"));
  EXPECT_TRUE(crash_point_matches("after-attempt-end", "after-attempt-end", ""));
  EXPECT_TRUE(crash_point_matches("after-attempt-end:review", "after-attempt-end", "review"));
  EXPECT_FALSE(crash_point_matches("after-attempt-end:review", "after-attempt-end", "worker"));
  EXPECT_FALSE(crash_point_matches("after-attempt-end:review", "after-attempt-end", ""));
  EXPECT_FALSE(crash_point_matches("after-attempt-end:", "after-attempt-end", "review"));
  EXPECT_FALSE(crash_point_matches("after-attempt-end:reviewer", "after-attempt-end", "review"));
  EXPECT_FALSE(crash_point_matches("after-attempt", "after-attempt-end", "review"));
  EXPECT_FALSE(crash_point_matches("after-attempt-endx", "after-attempt-end", ""));
  EXPECT_FALSE(crash_point_matches("", "after-handoff", ""));
}

} // namespace
} // namespace ad::runtime
