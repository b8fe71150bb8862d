#include "runtime/state/model_json.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/state/state_fixtures.hpp"

namespace ad::runtime {
namespace {

TEST(state_model_json, full_state_round_trips) {
  auto s = test::sample_state();
  auto text = state_to_json_text(s);
  auto back = state_from_json_text(text, "mem");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(*back, s);
  EXPECT_EQ(state_to_json_text(*back), text);
}

TEST(state_model_json, streamed_text_equals_the_whole_tree_dump) {
  auto s = test::sample_state();
  EXPECT_EQ(state_to_json_text(s), dump_json(state_to_json(s)));
  state_model empty;
  EXPECT_EQ(state_to_json_text(empty), dump_json(state_to_json(empty)));
  auto back = state_from_json_text(state_to_json_text(empty), "mem");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(*back, empty);
}

TEST(state_model_json, the_text_written_in_parts_is_the_whole_text) {
  auto s = test::sample_state();
  s.spent["auth__02+01_api__p3__worker__a02"] = {"auth/02+01_api", "sim-a", token_usage{}};
  s.claim_violations.push_back({"auth/01_db", "a1", "/w/src/x", "", "fanotify", {}, "warn", 5});
  for (int i = 0; i < 200; ++i) {
    auto name = "grp/" + std::to_string(i) + "_t";
    s.tasks[name] = s.tasks.at("auth/02+01_api");
    s.attempt_counters[{name, 1, "worker"}] = i;
    s.orchestrations["auth"].tasks[name] = {orchestration_task_status::active, "", {}};
  }
  std::string whole = state_to_json_text(s);
  ASSERT_EQ(whole, dump_json(state_to_json(s)));
  // A part ends between two values: at most one value past the part's size
  // (a task, or a group's whole orchestration record).
  std::size_t largest_value = 0;
  for (const auto& [name, task] : s.tasks)
    largest_value = std::max(largest_value, dump_json(json(task)).size() + name.size() + 4);
  for (const auto& [scope, record] : s.orchestrations)
    largest_value = std::max(largest_value, dump_json(json(record)).size() + scope.size() + 4);

  constexpr std::size_t part_bytes = 4096;
  std::vector<std::string> parts;
  ASSERT_TRUE(write_state_json_text(s, part_bytes, [&](std::string_view part) {
    parts.emplace_back(part);
    return status::ok();
  }));
  std::string joined;
  for (const auto& part : parts)
    joined += part;
  EXPECT_EQ(joined, whole);
  ASSERT_GT(parts.size(), 10u);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i + 1 < parts.size())
      EXPECT_GE(parts[i].size(), part_bytes) << "part " << i;
    EXPECT_LE(parts[i].size(), part_bytes + largest_value) << "part " << i;
  }

  // The first failed write stops the writing and is what comes back.
  int calls = 0;
  auto st = write_state_json_text(s, part_bytes, [&](std::string_view) {
    return ++calls == 3 ? status::io_error("made up: disk full") : status::ok();
  });
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(), "made up: disk full");
  EXPECT_EQ(calls, 3);

  // An empty state in one part, as the whole text.
  parts.clear();
  ASSERT_TRUE(write_state_json_text(state_model{}, part_bytes, [&](std::string_view part) {
    parts.emplace_back(part);
    return status::ok();
  }));
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0], dump_json(state_to_json(state_model{})));
}

TEST(state_model_json, the_attempts_usage_round_trips_and_a_state_without_it_reads) {
  auto s = test::sample_state();
  token_usage u;
  u.input_tokens = 1200;
  u.output_tokens = 40;
  u.cost_usd = 0.0028;
  s.spent["auth__02+01_api__p3__worker__a02"] = {"auth/02+01_api", "sim-a", u};
  auto text = state_to_json_text(s);
  EXPECT_EQ(text, dump_json(state_to_json(s)));
  auto back = state_from_json_text(text, "mem");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(*back, s);
  // A state written before usage was recorded has no "spent".
  EXPECT_EQ(state_to_json_text(test::sample_state()).find("\"spent\""), std::string::npos);
  auto old = state_from_json_text(state_to_json_text(test::sample_state()), "mem");
  ASSERT_TRUE(old);
  EXPECT_TRUE(old->spent.empty());
  auto bad = state_from_json_text(
    R"({"spent":{"x":{"task":"a","usage":{"output_tokens":2.5}}}})", "snap.json");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().is_corruption());
  EXPECT_NE(bad.error().message().find("output_tokens"), std::string::npos) << bad.error().message();
}

TEST(state_model_json, decision_keeps_every_spec_field) {
  json j = test::sample_decision("worker", route_transition::failover);
  for (const char* key : {"work_unit_id", "stage", "lane", "grade", "candidates", "selected_target",
                          "rule_id", "priority", "reason_codes", "evaluated_at", "quota",
                          "transition", "previous_target", "next_target"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["transition"], "failover");
  EXPECT_EQ(j["candidates"][1]["reasons"][0], "quota-exhausted");
}

TEST(state_model_json, task_round_trips_as_text) {
  auto t = test::sample_state().tasks.at("auth/02+01_api");
  auto back = task_from_json_text(task_to_json_text(t), "mem");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, t);
}

TEST(state_model_json, malformed_input_is_corruption_not_exception) {
  auto bad_type = state_from_json_text(R"({"tasks":{"a":{"work_unit_id":5}}})", "snap.json");
  ASSERT_FALSE(bad_type);
  EXPECT_TRUE(bad_type.error().is_corruption());
  EXPECT_NE(bad_type.error().message().find("snap.json"), std::string::npos);

  auto bad_enum = state_from_json_text(R"({"claims":{"a":{"kind":"sometimes"}}})", "snap.json");
  ASSERT_FALSE(bad_enum);
  EXPECT_NE(bad_enum.error().message().find("sometimes"), std::string::npos);

  auto not_json = task_from_json_text("{oops", "task");
  ASSERT_FALSE(not_json);
  EXPECT_TRUE(not_json.error().is_corruption());
}

// An integer field written as 1e300 was cast by nlohmann, undefined
// behaviour (UBSan: float-cast-overflow); a fraction was cut silently.
TEST(state_model_json, a_number_with_a_fraction_is_corruption_naming_it) {
  auto huge = state_from_json_text(
    R"({"tasks":{"a":{"work_unit_id":"w","counters":{"rounds":1e300}}}})", "snap.json");
  ASSERT_FALSE(huge);
  EXPECT_TRUE(huge.error().is_corruption());
  EXPECT_EQ(huge.error().message(),
            "snap.json: malformed state: holds 1e+300 where an integer belongs");
  auto cut = state_from_json_text(
    R"({"attempt_counters":[{"task":"a","plan":1,"role":"worker","count":2.5}]})", "snap.json");
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message().find("holds 2.5 where"), std::string::npos);
  auto task = task_from_json_text(R"({"work_unit_id":"w","failure_budgets":{"worker":-1e19}})",
                                  "task");
  ASSERT_FALSE(task);
  EXPECT_TRUE(task.error().is_corruption());
  EXPECT_NE(task.error().message().find("holds -1e+19 where"), std::string::npos);
}

TEST(state_model_json, enum_names_parse_back) {
  for (auto t : {route_transition::initial, route_transition::resume, route_transition::failover,
                 route_transition::promotion})
    EXPECT_EQ(*parse_route_transition(to_string(t)), t);
  EXPECT_FALSE(parse_claim_kind("both"));
  EXPECT_EQ(*parse_orchestration_status("blocked"), orchestration_status::blocked);
  EXPECT_EQ(*parse_orchestration_task_status("complete"), orchestration_task_status::complete);
}

} // namespace
} // namespace ad::runtime
