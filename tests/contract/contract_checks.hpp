#pragma once
// GoogleTest checks shared by the per-CLI contract tests: that the pinned
// CLIs are installed (a missing install fails the test, it never skips),
// that a run set up and finished in time, and that its shape matches the
// capture of the same scenario. Test-only.

#include <gtest/gtest.h>

#include <string>

#include "tests/contract/contract_run.hpp"
#include "tests/contract/shapes.hpp"

namespace ad::contract {

// Use as the first line of every contract test.
#define AD_REQUIRE_CLIS()                                     \
  do {                                                        \
    auto missing_ = ::ad::contract::missing_clis();           \
    ASSERT_TRUE(missing_.empty()) << missing_;                \
  } while (0)

inline std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

// The run started, needed no setup fix and ended by itself.
inline ::testing::AssertionResult ran(const scenario_run& r) {
  if (!r.failure.empty()) return ::testing::AssertionFailure() << r.failure;
  if (r.outcome.timed_out)
    return ::testing::AssertionFailure()
           << "the CLI was killed at the timeout after " << r.outcome.seconds << " s\nstdout:\n"
           << r.out << "\nstderr:\n"
           << r.err;
  return ::testing::AssertionSuccess();
}

// Exit code, collapsed event types and key texts equal the capture's.
inline void expect_like_capture(cli c, const std::string& capture, const scenario_run& r) {
  auto want = capture_shape(c, capture);
  auto got = shape_of(c, r.out, r.outcome.exit_code);
  SCOPED_TRACE(std::string(name_of(c)) + " vs capture " + capture);
  EXPECT_EQ(got.exit_code, want.exit_code) << "stderr:\n" << r.err;
  EXPECT_EQ(joined(got.types), joined(want.types));
  EXPECT_EQ(got.key.dump(1), want.key.dump(1));
}

// How many requests the mock logged, and how many of them were counted.
inline std::size_t counted_requests(const scenario_run& r) {
  std::size_t n = 0;
  for (const auto& j : r.requests)
    if (j.value("counted", false)) ++n;
  return n;
}

} // namespace ad::contract
