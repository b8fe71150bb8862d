#include "runtime/workspace/task_name.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

TEST(task_name, subtask_names_give_index_and_deps) {
  auto plain = parse_subtask_name("01_schema");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->index, 1);
  EXPECT_TRUE(plain->deps.empty());

  auto deps = parse_subtask_name("03+01,02_api_v2");
  ASSERT_TRUE(deps);
  EXPECT_EQ(deps->index, 3);
  EXPECT_EQ(deps->deps, (std::vector<std::string>{"01", "02"}));
}

TEST(task_name, bad_subtask_names_are_rejected) {
  for (const char* bad : {"1_x", "001_x", "01", "01_", "01-x", "01_X", "01+1_x", "01+01,_x",
                          "01+_x", "ab_x", "01_x-y", "01 x", "01+01;02_x"})
    EXPECT_FALSE(parse_subtask_name(bad)) << bad;
}

TEST(task_name, plan_and_review_file_names) {
  auto plan = parse_plan_file_name("PLAN-local-G05.md");
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->lane, task_lane::local);
  EXPECT_EQ(plan->grade, 5);
  auto review = parse_review_file_name("CODE_REVIEW-cloud-G10.md");
  ASSERT_TRUE(review);
  EXPECT_EQ(review->lane, task_lane::cloud);
  EXPECT_EQ(review->grade, 10);
  for (const char* bad : {"PLAN-local-G00.md", "PLAN-local-G11.md", "PLAN-local-G5.md",
                          "PLAN-remote-G05.md", "PLAN-local-G05.md.bak", "plan-local-G05.md",
                          "CODE_REVIEW-local-G05.md"})
    EXPECT_FALSE(parse_plan_file_name(bad)) << bad;
  EXPECT_FALSE(parse_review_file_name("PLAN-local-G05.md"));
  EXPECT_EQ(route_label(task_lane::cloud, 3), "cloud-G03");
  EXPECT_EQ(route_label(task_lane::local, 10), "local-G10");
}

TEST(task_name, log_file_names_carry_a_generation) {
  auto log = parse_review_log_name("code_review_local_G04_12.log");
  ASSERT_TRUE(log);
  EXPECT_EQ(log->generation, 12);
  EXPECT_EQ(log->grade, 4);
  EXPECT_TRUE(parse_plan_log_name("plan_cloud_G01_0.log"));
  EXPECT_FALSE(parse_plan_log_name("plan_cloud_G01_01.log"));  // no leading zero
  EXPECT_FALSE(parse_plan_log_name("plan_cloud_G01_.log"));
  EXPECT_FALSE(parse_review_log_name("plan_local_G01_1.log"));
}

TEST(task_name, task_names_are_relative_to_agent_task) {
  EXPECT_EQ(task_name_of("/w/agent-task", "/w/agent-task/auth/02+01_api"), "auth/02+01_api");
  EXPECT_EQ(task_name_of("/w/agent-task", "/w/agent-task/solo"), "solo");
  EXPECT_EQ(task_name_of("/w/agent-task", "/elsewhere/x"), "");
  EXPECT_TRUE(is_valid_group_name("auth"));
  for (const char* bad : {"", ".", "..", "archive", "a/b"})
    EXPECT_FALSE(is_valid_group_name(bad)) << bad;
}

} // namespace
} // namespace ad::runtime
