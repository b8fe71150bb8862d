#include "runtime/schedule/admission_json.hpp"

#include <functional>

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

admission_input sample_input() {
  admission_input in;
  task_view a;
  a.name = "g/01_a";
  a.group = "g";
  a.index = 1;
  a.write_set = write_set_kind::valid;
  a.write_paths = {"/w/src/a.cpp", "/w/src/shared.hpp"};
  task_view b;
  b.name = "g/02+01_b";
  b.group = "g";
  b.index = 2;
  b.predecessors = {{1, {"/w/agent-task/archive/g/01_a"}}};
  b.write_set = write_set_kind::unknown;
  b.write_set_error = "PLAN.md:4: no write set";
  task_view c;
  c.name = "h/01_c";
  c.group = "h";
  c.index = 1;
  c.stage = view_stage::review;
  c.write_set = write_set_kind::valid;
  c.write_paths = {"/w/src/shared.hpp"};
  c.live = live_where::elsewhere;
  c.live_detail = "pid 4242 alive";
  task_view d;
  d.name = "k";
  d.group = "k";
  d.stage = view_stage::user_review;
  d.blocked_reason = "waiting for USER_REVIEW.md";
  in.tasks = {a, b, c, d};
  in.claims = {{"x/01_old", write_claim{claim_kind::exclusive, {}}},
               {"h/01_c", write_claim{claim_kind::paths, {"/w/src/shared.hpp"}}}};
  in.live = {{"h/01_c", live_where::elsewhere}, {"other/01_z", live_where::here}};
  in.max_parallel = 3;
  return in;
}

TEST(admission_json, an_input_reads_back_equal_and_admits_the_same) {
  auto in = sample_input();
  auto back = admission_input_from_json(admission_input_to_json(in));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(back->tasks, in.tasks);
  EXPECT_EQ(back->claims, in.claims);
  ASSERT_EQ(back->live.size(), in.live.size());
  for (std::size_t i = 0; i < in.live.size(); ++i) {
    EXPECT_EQ(back->live[i].name, in.live[i].name);
    EXPECT_EQ(back->live[i].where, in.live[i].where);
  }
  EXPECT_EQ(back->max_parallel, 3);
  EXPECT_EQ(admission_plan_to_json(plan_admission(*back)),
            admission_plan_to_json(plan_admission(in)));
}

TEST(admission_json, empty_optional_members_of_a_view_are_left_out) {
  task_view v;
  v.name = "g/01_a";
  v.group = "g";
  v.index = 1;
  auto j = task_view_to_json(v);
  for (const char* key :
       {"blocked_reason", "predecessors", "write_paths", "write_set_error", "live_detail"})
    EXPECT_FALSE(j.contains(key)) << key;
  auto back = task_view_from_json(j);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(*back, v);
}

TEST(admission_json, a_plan_names_causes_and_the_claims_held) {
  auto plan = plan_admission(sample_input());
  auto j = admission_plan_to_json(plan);
  ASSERT_EQ(j["entries"].size(), plan.entries.size());
  std::map<std::string, json> by_task;
  for (const auto& e : j["entries"])
    by_task[e["task"]] = e;
  // g/01_a shares a path with the live h/01_c (the smallest owner in its way).
  EXPECT_EQ(by_task["g/01_a"]["kind"], "wait");
  EXPECT_EQ(by_task["g/01_a"]["cause"], "claim-conflict");
  EXPECT_EQ(by_task["g/01_a"]["reason"], "claim conflict with h/01_c on /w/src/shared.hpp");
  EXPECT_FALSE(by_task["g/01_a"].contains("claim"));
  EXPECT_EQ(by_task["g/02+01_b"]["kind"], "blocked");
  EXPECT_EQ(by_task["h/01_c"]["kind"], "running-elsewhere");
  EXPECT_EQ(by_task["h/01_c"]["claim"]["paths"], json::array({"/w/src/shared.hpp"}));
  EXPECT_EQ(by_task["k"]["cause"], "task-blocked");
  EXPECT_EQ(j["occupied"], plan.occupied);
  EXPECT_EQ(j["admitted"], json(plan.admitted));
}

struct bad_input {
  std::string label;
  std::function<void(json&)> damage;
  std::string names; // the member the error must name
};

class admission_json_rejects : public ::testing::TestWithParam<bad_input> {};

TEST_P(admission_json_rejects, names_the_bad_member) {
  auto j = admission_input_to_json(sample_input());
  GetParam().damage(j);
  auto back = admission_input_from_json(j);
  ASSERT_FALSE(back.is_ok()) << GetParam().label;
  EXPECT_NE(back.error().message().find(GetParam().names), std::string::npos)
    << back.error().message();
}

INSTANTIATE_TEST_SUITE_P(
  members, admission_json_rejects,
  ::testing::Values(
    bad_input{"tasks_missing", [](json& j) { j.erase("tasks"); }, "\"tasks\" is missing"},
    bad_input{"index_text", [](json& j) { j["tasks"][0]["index"] = "01"; }, "\"index\""},
    bad_input{"unknown_stage", [](json& j) { j["tasks"][0]["stage"] = "merging"; },
              "\"stage\" has an unknown value \"merging\""},
    bad_input{"unknown_live", [](json& j) { j["live"][0]["live"] = "maybe"; }, "\"live\""},
    bad_input{"null_paths", [](json& j) { j["tasks"][0]["write_paths"] = nullptr; },
              "\"write_paths\""},
    bad_input{"claims_list", [](json& j) { j["claims"] = json::array(); }, "\"claims\""},
    bad_input{"claim_kind", [](json& j) { j["claims"]["h/01_c"]["kind"] = "shared"; },
              "\"h/01_c\""},
    bad_input{"max_parallel_missing", [](json& j) { j.erase("max_parallel"); },
              "\"max_parallel\" is missing"}),
  [](const auto& info) { return info.param.label; });

} // namespace
} // namespace ad::runtime
