#include "runtime/schedule/dependency_gate.hpp"

#include <gtest/gtest.h>

#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {
namespace {

task_view subtask(std::string name, std::vector<predecessor_view> preds) {
  task_view t;
  t.name = std::move(name);
  t.group = task_group(t.name);
  t.index = subtask_index_of(t.name).value_or(0);
  t.predecessors = std::move(preds);
  return t;
}

TEST(live_set, here_wins_over_elsewhere_and_none_is_ignored) {
  live_set live({{"g/01_a", live_where::elsewhere}, {"g/01_a", live_where::here}, {"g/02_b", live_where::none}});
  EXPECT_EQ(live.size(), 1u);
  EXPECT_EQ(live.where("g/01_a"), live_where::here);
  EXPECT_EQ(live.where("g/02_b"), live_where::none);
  auto ones = live.with_index("g", 1);
  ASSERT_EQ(ones.size(), 1u);
  EXPECT_EQ(ones[0].where, live_where::here);
  EXPECT_TRUE(live.with_index("h", 1).empty());
}

TEST(dependency_gate, predecessor_matching_uses_index_and_group) {
  // 01+00_x is subtask 01 too; 010_x and other groups are not.
  live_set live({{"g/01+00_x", live_where::elsewhere}, {"h/02_y", live_where::here}});
  auto t = subtask("g/03+01,02_c", {{1, {"/a/g/01+00_x"}}, {2, {"/a/g/02_b"}}});
  auto v = check_dependencies(t, live);
  EXPECT_EQ(v.kind, dependency_kind::predecessor_live);
  EXPECT_EQ(v.reason, "waiting for g/01+00_x to finish (running elsewhere)");
}

TEST(dependency_gate, ambiguity_is_reported_before_missing_predecessors) {
  live_set live;
  auto t = subtask("g/03+01,02_c", {{1, {}}, {2, {"/b", "/a"}}});
  auto v = check_dependencies(t, live);
  EXPECT_EQ(v.kind, dependency_kind::ambiguous);
  EXPECT_EQ(v.reason, "dependency ambiguity: 02_* matches 2 completed folders: /a, /b");
}

TEST(dependency_gate, no_predecessors_or_all_met_is_ready) {
  live_set live({{"g/09_z", live_where::here}});
  EXPECT_EQ(check_dependencies(subtask("g/01_a", {}), live).kind, dependency_kind::ready);
  auto met = check_dependencies(subtask("g/02+01_b", {{1, {"/a/g/01_a"}}}), live);
  EXPECT_EQ(met.kind, dependency_kind::ready);
  EXPECT_TRUE(met.reason.empty());
}

} // namespace
} // namespace ad::runtime
