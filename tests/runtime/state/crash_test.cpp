// SIGKILL crash test: AD_STATE_CRASH_ITERATIONS overrides the 25 rounds
// (bench_state --soak runs the same loop 1,000 times).
#include <cstdlib>
#include <gtest/gtest.h>

#include "tests/runtime/state/crash_driver.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(state_crash, sigkill_at_random_moments_keeps_every_acknowledged_change) {
  ad::test::temp_dir dir;
  std::filesystem::create_directories(dir.path() / "ws");
  auto id = identify_workspace(dir.path() / "ws");
  ASSERT_TRUE(id);
  int iterations = 25;
  if (const char* env = std::getenv("AD_STATE_CRASH_ITERATIONS"))
    iterations = std::atoi(env);
  auto result = test::run_crash_loop(dir.path() / "state", *id, iterations, 20261129);
  EXPECT_EQ(result.failure, "");
  EXPECT_EQ(result.iterations, iterations);
  EXPECT_GT(result.batches_acknowledged, 0);
}

} // namespace
} // namespace ad::runtime
