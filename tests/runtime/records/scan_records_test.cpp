#include "runtime/records/scan_records.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

// Every field set, every optional present, each enum away from its first
// value, so a field the codec drops or mixes up shows.
scanned_task full_task() {
  scanned_task t;
  t.name = "auth/03+01,02_api";
  t.group = "auth";
  t.directory = "/ws/agent-task/auth/03+01,02_api";
  t.index = 3;
  t.deps = {"01", "02"};
  t.plan = t.directory / "PLAN-cloud-G07.md";
  t.review = t.directory / "CODE_REVIEW-cloud-G07.md";
  t.user_review = t.directory / "USER_REVIEW.md";
  t.plan_count = 1;
  t.review_count = 2;
  t.user_review_count = 3;
  t.lane = task_lane::cloud;
  t.grade = 7;
  t.header = plan_header{"auth/03+01,02_api", "2", "tag-x"};
  t.review_verdict_now = review_verdict::warn;
  t.has_complete_log = true;
  t.recovery = true;
  t.plan_logs = {{t.directory / "plan_cloud_G07_1.log", {task_lane::cloud, 7, 1}, std::nullopt}};
  t.review_logs = {{t.directory / "code_review_local_G02_4.log", {task_lane::local, 2, 4},
                    review_verdict::fail}};
  t.recovery_log = t.review_logs.front().path;
  t.recovery_plan_log = t.plan_logs.front().path;
  t.user_review_state.type = user_review_type::external_execution;
  t.user_review_state.target = "deploy";
  t.user_review_state.actions = {"run the migration"};
  t.user_review_state.missing = {user_review_part::resume, user_review_part::evidence};
  t.user_review_state.read_error = "short read";
  t.write_set.paths = {"/ws/src/a.cpp", "/ws/src/b.cpp"};
  t.write_set.diagnostics = {{write_set_problem::glob, 12, "src/*.cpp", "row 12 claims a glob"}};
  t.write_set_known = true;
  t.identity_key = "meta:abc";
  t.errors = {{task_error_kind::incomplete_user_review, "USER_REVIEW.md is incomplete"}};
  return t;
}

TEST(scan_records, a_scanned_task_reads_back_field_for_field) {
  auto t = full_task();
  auto back = scanned_task_from_json(scanned_task_to_json(t));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  // Written again, the copy reads the same: no field was lost on the way.
  EXPECT_EQ(scanned_task_to_json(*back), scanned_task_to_json(t));
  EXPECT_EQ(back->deps, t.deps);
  EXPECT_EQ(back->lane, task_lane::cloud);
  EXPECT_EQ(back->header, t.header);
  EXPECT_EQ(back->review_verdict_now, review_verdict::warn);
  ASSERT_EQ(back->review_logs.size(), 1u);
  EXPECT_EQ(back->review_logs[0].name.generation, 4);
  EXPECT_EQ(back->review_logs[0].verdict, review_verdict::fail);
  EXPECT_EQ(back->plan_logs[0].verdict, std::nullopt);
  EXPECT_EQ(back->user_review_state.missing, t.user_review_state.missing);
  ASSERT_EQ(back->write_set.diagnostics.size(), 1u);
  EXPECT_EQ(back->write_set.diagnostics[0].problem, write_set_problem::glob);
  EXPECT_EQ(back->write_set.diagnostics[0].line, 12u);
  ASSERT_EQ(back->errors.size(), 1u);
  EXPECT_EQ(back->errors[0].kind, task_error_kind::incomplete_user_review);
  EXPECT_EQ(back->work_unit_id(), t.work_unit_id());
}

TEST(scan_records, a_task_without_optional_parts_reads_back_without_them) {
  scanned_task t;
  t.name = "solo";
  t.group = "solo";
  t.directory = "/ws/agent-task/solo";
  auto back = scanned_task_from_json(scanned_task_to_json(t));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_FALSE(back->plan || back->review || back->user_review || back->lane || back->header ||
               back->review_verdict_now || back->recovery_log || back->recovery_plan_log);
  EXPECT_EQ(scanned_task_to_json(*back), scanned_task_to_json(t));
}

TEST(scan_records, a_bad_body_names_the_member) {
  auto j = scanned_task_to_json(full_task());
  auto bad_lane = j;
  bad_lane["lane"] = "orbit";
  auto r = scanned_task_from_json(bad_lane);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("\"lane\""), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("orbit"), std::string::npos) << r.error().message();

  auto no_deps = j;
  no_deps.erase("deps");
  r = scanned_task_from_json(no_deps);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("\"deps\" is missing"), std::string::npos)
    << r.error().message();

  auto bad_problem = j;
  bad_problem["write_set"]["diagnostics"][0]["problem"] = "nothing";
  r = scanned_task_from_json(bad_problem);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("\"problem\""), std::string::npos) << r.error().message();
}

} // namespace
} // namespace ad::runtime
