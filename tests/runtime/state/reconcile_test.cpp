#include "runtime/state/reconcile.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

orchestration_record record_with(const std::string& task, std::vector<std::string> baseline) {
  orchestration_record r;
  r.tasks[task] = {orchestration_task_status::active, "", std::move(baseline)};
  return r;
}

TEST(reconcile_orchestration, one_new_archive_completes_and_releases_claim) {
  auto rec = record_with("g/01_a", {"/arch/2026/10/g/01_a"});
  auto out = reconcile_orchestration("g", rec, {},
                                     {{"g/01_a", {"/arch/2026/10/g/01_a", "/arch/2026/11/g/01_a"}}});
  ASSERT_EQ(out.completed.size(), 1u);
  EXPECT_EQ(out.completed["g/01_a"], "/arch/2026/11/g/01_a");
  EXPECT_TRUE(out.errors.empty());
  ASSERT_EQ(out.changes.size(), 2u);
  auto* done = std::get_if<complete_orchestration_task>(&out.changes[0]);
  ASSERT_NE(done, nullptr);
  EXPECT_EQ(done->archive, "/arch/2026/11/g/01_a");
  EXPECT_EQ(std::get<release_claim>(out.changes[1]).owner, "g/01_a");

  state_model s;
  s.orchestrations["g"] = rec;
  for (const auto& c : out.changes)
    ASSERT_TRUE(apply_change(s, c));
  EXPECT_EQ(s.orchestrations["g"].tasks["g/01_a"].status, orchestration_task_status::complete);
}

TEST(reconcile_orchestration, no_new_archive_is_an_error) {
  auto rec = record_with("g/01_a", {"/arch/old"});
  auto out = reconcile_orchestration("g", rec, {}, {{"g/01_a", {"/arch/old"}}});
  EXPECT_TRUE(out.completed.empty());
  ASSERT_EQ(out.errors.count("g/01_a"), 1u);
  EXPECT_NE(out.errors["g/01_a"].find("no new archive"), std::string::npos);
  EXPECT_TRUE(out.changes.empty());
}

TEST(reconcile_orchestration, several_new_archives_name_the_candidates) {
  auto rec = record_with("g/01_a", {});
  auto out = reconcile_orchestration("g", rec, {}, {{"g/01_a", {"/arch/x", "/arch/y"}}});
  ASSERT_EQ(out.errors.count("g/01_a"), 1u);
  EXPECT_NE(out.errors["g/01_a"].find("/arch/x"), std::string::npos);
  EXPECT_NE(out.errors["g/01_a"].find("/arch/y"), std::string::npos);
  EXPECT_TRUE(out.changes.empty());
}

TEST(reconcile_orchestration, live_tasks_are_left_alone) {
  auto rec = record_with("g/01_a", {});
  auto out = reconcile_orchestration("g", rec, {"g/01_a"}, {{"g/01_a", {"/arch/x"}}});
  EXPECT_TRUE(out.completed.empty());
  EXPECT_TRUE(out.errors.empty());
  EXPECT_TRUE(out.changes.empty());
}

TEST(reconcile_orchestration, recorded_completion_is_checked_against_the_archive) {
  orchestration_record rec;
  rec.tasks["g/01_a"] = {orchestration_task_status::complete, "/arch/x", {}};
  auto ok = reconcile_orchestration("g", rec, {}, {{"g/01_a", {"/arch/x"}}});
  EXPECT_EQ(ok.completed["g/01_a"], "/arch/x");
  ASSERT_EQ(ok.changes.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<release_claim>(ok.changes[0]));

  auto gone = reconcile_orchestration("g", rec, {}, {});
  ASSERT_EQ(gone.errors.count("g/01_a"), 1u);
  EXPECT_NE(gone.errors["g/01_a"].find("/arch/x"), std::string::npos);
}

} // namespace
} // namespace ad::runtime
