#include "runtime/state/task_reader.hpp"

#include <gtest/gtest.h>

#include "runtime/state/model_json.hpp"
#include "tests/runtime/state/state_fixtures.hpp"

namespace ad::runtime {
namespace {

// Every member of a task, and of each struct inside it, away from its default.
task_state full_task() {
  auto t = test::sample_state().tasks.at("auth/02+01_api");
  t.selfcheck_done = true;
  t.intervention->named_files = {
    named_file{"/w/src/x.cpp", "src/x.cpp", true, 1764421656000, false, {"a01", "a02"}, {"auth/01_db"}}};
  return t;
}

// Reads `text` as the parser sends it; the reader's refusal, or "" when it
// read the whole value.
template <class T>
std::string read_text(const std::string& text, T& out) {
  task_reader r(out);
  bool read = json::sax_parse(text, &r);
  if (!read)
    return r.failure().empty() ? "refused without a reason" : r.failure();
  return r.done() ? "" : "not done";
}

TEST(task_reader, a_task_reads_back_equal_from_its_text_and_from_its_tree) {
  auto t = full_task();
  auto text = task_to_json_text(t);
  task_state from_text;
  ASSERT_EQ(read_text(text, from_text), "");
  EXPECT_EQ(from_text, t);
  // from_json replays the tree into the same reader.
  EXPECT_EQ(json::parse(text).get<task_state>(), t);
  auto d = test::sample_decision("review", route_transition::resume);
  route_decision back;
  ASSERT_EQ(read_text(dump_json(json(d)), back), "");
  EXPECT_EQ(back, d);
}

TEST(task_reader, absent_members_keep_their_defaults_and_unknown_ones_are_passed_over) {
  task_state t;
  t.counters["stale"] = 3;  // the target is reset before it is read
  ASSERT_EQ(read_text(R"({"work_unit_id":"w","later":{"x":[1.5,{"y":null}],"z":"s"},
                          "route_history":[{"work_unit_id":"w","stage":"worker",
                          "selected_target":"a","transition":"failover","note":[true]}]})",
                      t),
            "");
  task_state want;
  want.work_unit_id = "w";
  route_decision d;
  d.work_unit_id = "w";
  d.stage = "worker";
  d.selected_target = "a";
  d.transition = route_transition::failover;
  want.route_history.push_back(d);
  EXPECT_EQ(t, want);
}

TEST(task_reader, a_member_written_twice_is_read_as_its_last_value) {
  task_state t;
  ASSERT_EQ(read_text(R"({"work_unit_id":"a","counters":{"n":1,"m":2},"work_unit_id":"b",
                          "counters":{"n":3},"blocked":{"reason":"x"},"blocked":null,
                          "failure_budgets":{"worker":1,"worker":4}})",
                      t),
            "");
  EXPECT_EQ(t.work_unit_id, "b");
  EXPECT_EQ(t.counters, (std::map<std::string, int64_t>{{"n", 3}}));
  EXPECT_FALSE(t.blocked);
  EXPECT_EQ(t.failure_budgets.at("worker"), 4);
}

// The shared parts (route history, write-set lists) are read into a value
// of their own: the last one written counts, and a copy made before the
// reading keeps what it shared.
TEST(task_reader, a_shared_member_is_read_into_a_value_of_its_own) {
  task_state t;
  t.route_history = {route_decision{}};
  t.write_sets["a01"].before = std::vector<file_snapshot>{{"/w/old", true, 1, 2, "h"}};
  task_state before = t;
  auto& snap = t.write_sets["a01"];
  ASSERT_EQ(read_text(R"({"before":[{"path":"/w/x","exists":false}],
                          "before":[{"path":"/w/y","exists":false}]})",
                      snap),
            "");
  ASSERT_EQ(snap.before.size(), 1u);
  EXPECT_EQ(snap.before.at(0).path, "/w/y");
  EXPECT_TRUE(snap.after.empty());
  EXPECT_EQ(before.write_sets.at("a01").before.at(0).path, "/w/old");
  EXPECT_EQ(before.route_history.size(), 1u);
}

TEST(task_reader, a_refusal_names_the_member_by_its_path) {
  auto refusal = [](const std::string& text) {
    task_state t;
    return read_text(text, t);
  };
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","worker_done":"yes"})"),
            "worker_done: expected a boolean, found a string");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","counters":{"rounds":1.5}})"),
            "counters.rounds: holds 1.5 where an integer belongs");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","counters":{"rounds":1e300}})"),
            "counters.rounds: holds 1e+300 where an integer belongs");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","route_history":[{"work_unit_id":"w","stage":"s",
                       "selected_target":"a","transition":"initial"},{"work_unit_id":"w",
                       "stage":"s","selected_target":"a","transition":"initial",
                       "candidates":[{"target":"t","eligible":"no"}]}]})"),
            "route_history[1].candidates[0].eligible: expected a boolean, found a string");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","decisions":{"worker":{"work_unit_id":"w",
                       "selected_target":"a","transition":"initial"}}})"),
            "decisions.worker: \"stage\" is missing");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","completing_decision":{"work_unit_id":"w",
                       "stage":"s","selected_target":"a","transition":"sideways"}})"),
            "completing_decision.transition: unknown route transition \"sideways\"");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","write_sets":{"a01":{"before":[{"path":"/p",
                       "exists":true,"size":-1.0}]}}})"),
            "write_sets.a01.before[0].size: holds -1.0 where an integer belongs");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","route_history":{}})"),
            "route_history: expected an array, found an object");
  EXPECT_EQ(refusal(R"({"work_unit_id":"w","active_stage":null})"),
            "active_stage: expected a string, found null");
  EXPECT_EQ(refusal(R"({"worker_done":true})"), "\"work_unit_id\" is missing");
  EXPECT_EQ(refusal(R"([1])"), "expected an object, found an array");
  EXPECT_EQ(refusal("5"), "expected an object, found a number");
}

TEST(task_reader, from_json_throws_the_readers_reason_for_its_callers_to_wrap) {
  auto bad = task_from_json_text(R"({"work_unit_id":"w","handoff_x":1,"retry_handoff":{"id":"h"}})",
                                 "task.json");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().is_corruption());
  EXPECT_EQ(bad.error().message(),
            "task.json: malformed task state: retry_handoff: \"failed_target\" is missing");
}

} // namespace
} // namespace ad::runtime
