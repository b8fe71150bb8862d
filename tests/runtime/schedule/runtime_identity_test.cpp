#include "runtime/schedule/runtime_identity.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

TEST(runtime_identity, matching_identity_passes_and_every_mismatch_blocks) {
  const std::string unit = "g/01_a::plan-2::tag-x";
  completing_target good{"worker", unit, "codex", "gpt-5.1-codex"};
  struct row {
    std::string label;
    completing_target decision;
    attempt_identity actual;
    std::string error; // empty: ok
  };
  std::vector<row> table = {
      {"same cli and model", good, {"codex", "gpt-5.1-codex"}, ""},
      {"other cli", good, {"claude", "gpt-5.1-codex"},
       "worker runtime cli mismatch: expected=codex actual=claude"},
      {"other model", good, {"codex", "gpt-5"}, "worker runtime model mismatch: expected=gpt-5.1-codex actual=gpt-5"},
      {"review decision", {"review", unit, "codex", "m"}, {"codex", "m"},
       "completing decision is for stage 'review', not worker"},
      {"stale work unit", {"worker", "g/01_a::plan-1::tag-x", "codex", "m"}, {"codex", "m"},
       "completing decision work unit mismatch: decision=g/01_a::plan-1::tag-x plan=" + unit},
      {"empty target", {"worker", unit, "", ""}, {"", ""}, "completing decision names no target (cli='', model='')"},
  };
  for (const auto& r : table) {
    auto st = check_completing_identity(r.decision, unit, r.actual);
    if (r.error.empty()) {
      EXPECT_TRUE(st.is_ok()) << r.label << ": " << st.to_string();
    } else {
      EXPECT_TRUE(st.is_invalid_argument()) << r.label;
      EXPECT_EQ(st.message(), r.error) << r.label;
    }
  }
}

} // namespace
} // namespace ad::runtime
