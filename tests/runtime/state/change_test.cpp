#include "runtime/state/change.hpp"
#include "runtime/state/change_reader.hpp"

#include <gtest/gtest.h>

#include "runtime/state/model_json.hpp"
#include "runtime/state/spend.hpp"
#include "tests/runtime/state/state_fixtures.hpp"

namespace ad::runtime {
namespace {

const std::string task = "auth/02+01_api";
const std::string wu1 = "auth/02+01_api::plan-1::tag-a";
const std::string wu2 = "auth/02+01_api::plan-2::tag-b";

token_usage usage(int64_t in, int64_t out, std::optional<double> cost = std::nullopt) {
  token_usage u;
  u.input_tokens = in;
  u.output_tokens = out;
  u.cost_usd = cost;
  return u;
}

state_model with_task() {
  state_model s;
  EXPECT_TRUE(apply_change(s, begin_work_unit{task, wu1}));
  return s;
}

TEST(state_change, new_work_unit_resets_task_state_same_one_keeps_it) {
  auto s = with_task();
  ASSERT_TRUE(apply_change(s, set_task_flag{task, task_flag::worker_done, true}));
  ASSERT_TRUE(apply_change(s, record_failure{task, "worker"}));
  ASSERT_TRUE(apply_change(s, begin_work_unit{task, wu1}));
  EXPECT_TRUE(s.tasks[task].worker_done);
  EXPECT_EQ(s.tasks[task].failure_budgets["worker"], 1);
  ASSERT_TRUE(apply_change(s, begin_work_unit{task, wu2}));
  task_state fresh;
  fresh.work_unit_id = wu2;
  EXPECT_EQ(s.tasks[task], fresh);
}

TEST(state_change, task_changes_need_the_task_and_leave_state_alone_otherwise) {
  state_model s;
  auto st = apply_change(s, set_counter{"nope", "x", 1});
  EXPECT_TRUE(st.is_not_found());
  EXPECT_NE(st.message().find("nope"), std::string::npos);
  EXPECT_EQ(s, state_model{});
  EXPECT_TRUE(apply_change(s, begin_work_unit{"", "x"}).is_invalid_argument());
}

TEST(state_change, attempt_start_consumes_handoff_in_the_same_change) {
  auto s = with_task();
  ASSERT_TRUE(apply_change(s, set_retry_handoff{task, {"h-7", "codex:gpt", "/old/locator.json"}}));
  auto before = s;
  auto wrong = apply_change(s, record_attempt_started{task, "worker", 1, "worker", 2, "/new/l.json", "h-6"});
  EXPECT_TRUE(wrong.is_conflict());
  EXPECT_EQ(s, before);

  ASSERT_TRUE(apply_change(s, record_attempt_started{task, "worker", 1, "worker", 2, "/new/l.json", "h-7"}));
  const auto& t = s.tasks[task];
  EXPECT_FALSE(t.handoff.has_value());
  EXPECT_EQ(t.active_stage, "worker");
  EXPECT_EQ(t.active_locator, "/new/l.json");
  EXPECT_EQ((s.attempt_counters[{task, 1, "worker"}]), 2);
  // A second consumption of the same handoff is refused: it cannot run twice.
  EXPECT_TRUE(apply_change(s, record_attempt_started{task, "worker", 1, "worker", 3, "/x", "h-7"})
                .is_conflict());
}

TEST(state_change, attempt_counter_never_goes_back) {
  auto s = with_task();
  ASSERT_TRUE(apply_change(s, record_attempt_started{task, "worker", 1, "worker", 5, "/a", ""}));
  ASSERT_TRUE(apply_change(s, record_attempt_started{task, "worker", 1, "worker", 3, "/b", ""}));
  EXPECT_EQ((s.attempt_counters[{task, 1, "worker"}]), 5);
  EXPECT_EQ(s.tasks[task].active_locator, "/b");
  ASSERT_TRUE(apply_change(s, clear_active_stage{task}));
  EXPECT_TRUE(s.tasks[task].active_stage.empty());
  ASSERT_TRUE(apply_change(s, remove_task{task}));
  EXPECT_TRUE(s.attempt_counters.empty());
}

TEST(state_change, a_tasks_attempt_counters_are_its_own_whatever_the_names_around_it) {
  state_model s;
  s.attempt_counters[{"a", 1, "worker"}] = 2;
  s.attempt_counters[{"a", -3, "review"}] = 1;
  s.attempt_counters[{"a", 2, "review"}] = 4;
  s.attempt_counters[{"a/b", 1, "worker"}] = 7;
  s.attempt_counters[{"ab", 1, "worker"}] = 8;
  s.attempt_counters[{"", 1, "worker"}] = 9;
  std::vector<std::pair<attempt_key, int64_t>> got;
  for (const auto& kv : task_attempt_counters(s, "a"))
    got.emplace_back(kv);
  std::vector<std::pair<attempt_key, int64_t>> want{{{"a", -3, "review"}, 1},
                                                    {{"a", 1, "worker"}, 2},
                                                    {{"a", 2, "review"}, 4}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(std::distance(task_attempt_counters(s, "a/b").begin(),
                          task_attempt_counters(s, "a/b").end()),
            1);
  auto none = task_attempt_counters(s, "b");
  EXPECT_EQ(none.begin(), none.end());
}

TEST(state_change, claims_are_replaced_whole_and_released) {
  state_model s;
  ASSERT_TRUE(apply_change(s, replace_claim{task, {claim_kind::paths, {"/a", "/b"}}}));
  ASSERT_TRUE(apply_change(s, replace_claim{task, {claim_kind::paths, {"/c"}}}));
  EXPECT_EQ(s.claims[task].paths, (std::set<std::string>{"/c"}));
  ASSERT_TRUE(apply_change(s, replace_claim{task, {claim_kind::exclusive, {}}}));
  EXPECT_EQ(s.claims[task].kind, claim_kind::exclusive);
  ASSERT_TRUE(apply_change(s, release_claim{task}));
  EXPECT_TRUE(s.claims.empty());
}

TEST(state_change, decisions_keep_history_and_per_stage_current) {
  auto s = with_task();
  ASSERT_TRUE(apply_change(s, record_decision{task, test::sample_decision("worker", route_transition::initial)}));
  ASSERT_TRUE(apply_change(s, record_decision{task, test::sample_decision("worker", route_transition::failover)}));
  ASSERT_TRUE(apply_change(s, record_decision{task, test::sample_decision("review", route_transition::initial)}));
  const auto& t = s.tasks[task];
  EXPECT_EQ(t.route_history.size(), 3u);
  EXPECT_EQ(t.decisions.at("worker")->transition, route_transition::failover);
  EXPECT_EQ(t.decisions.size(), 2u);
  ASSERT_TRUE(apply_change(s, reset_failures{task, ""}));
}

TEST(state_change, a_completed_task_drops_its_current_decisions_and_keeps_the_rest) {
  auto s = with_task();
  auto worker = test::sample_decision("worker", route_transition::initial);
  auto review = test::sample_decision("review", route_transition::initial);
  file_snapshot f{"/w/a", true, 3, 4, "h"};
  ASSERT_TRUE(apply_change(s, record_decision{task, worker}));
  ASSERT_TRUE(apply_change(s, set_completing_decision{task, worker}));
  ASSERT_TRUE(apply_change(s, record_decision{task, review}));
  ASSERT_TRUE(apply_change(s, record_write_set{task, "a01", snapshot_phase::after, {f}}));
  ASSERT_TRUE(apply_change(s, observe_orchestration{"grp", {{task, {}}, {"other", {}}}}));
  ASSERT_TRUE(apply_change(s, complete_orchestration_task{"grp", task, "/arch/1"}));
  const auto& t = s.tasks[task];
  EXPECT_TRUE(t.decisions.empty());
  EXPECT_EQ(t.route_history, (std::vector<shared_decision>{worker, review}));
  ASSERT_TRUE(t.completing_decision.has_value());
  EXPECT_EQ(t.completing_decision->get(), worker);
  EXPECT_EQ(t.write_sets.at("a01").after.at(0), f);
  EXPECT_EQ(s.orchestrations["grp"].tasks[task].archive, "/arch/1");
  // A task of the scope with no state of its own completes all the same.
  EXPECT_TRUE(apply_change(s, complete_orchestration_task{"grp", "other", "/arch/2"}));
}

TEST(state_change, write_set_snapshots_are_kept_per_attempt_and_phase) {
  auto s = with_task();
  file_snapshot f{"/w/a", true, 3, 4, "h"};
  ASSERT_TRUE(apply_change(s, record_write_set{task, "a01", snapshot_phase::before, {}}));
  ASSERT_TRUE(apply_change(s, record_write_set{task, "a01", snapshot_phase::after, {f}}));
  EXPECT_TRUE(s.tasks[task].write_sets["a01"].before.empty());
  EXPECT_EQ(s.tasks[task].write_sets["a01"].after.at(0), f);
}

// A run's three models (the store's, the state store actor's, the
// scheduler's mirror) each apply the same changes: the decision and the
// write-set list a change carries are then one value in all of them, and
// one in a task's current decision, route history and completing decision.
// A copy of a model shares them too; a change applied to one model leaves
// the others as they were.
TEST(state_change, models_that_apply_one_change_share_what_it_carries_and_change_apart) {
  auto mine = with_task();
  auto theirs = with_task();
  file_snapshot f{"/w/a", true, 3, 4, "h"};
  record_decision decided{task, test::sample_decision("worker", route_transition::initial)};
  set_completing_decision completing{task, decided.decision};
  record_write_set after{task, "a01", snapshot_phase::after, {f}};
  for (auto* model : {&mine, &theirs}) {
    ASSERT_TRUE(apply_change(*model, decided));
    ASSERT_TRUE(apply_change(*model, completing));
    ASSERT_TRUE(apply_change(*model, after));
  }
  const auto& a = mine.tasks.at(task);
  const auto& b = theirs.tasks.at(task);
  ASSERT_EQ(a.route_history.size(), 1u);
  EXPECT_TRUE(a.route_history[0].shares_with(b.route_history[0]));
  EXPECT_TRUE(a.decisions.at("worker").shares_with(a.route_history[0]));
  ASSERT_TRUE(a.completing_decision.has_value());
  EXPECT_TRUE(a.completing_decision->shares_with(a.route_history[0]));
  EXPECT_TRUE(a.write_sets.at("a01").after.shares_with(b.write_sets.at("a01").after));
  state_model copy = mine;
  EXPECT_TRUE(copy.tasks.at(task).route_history[0].shares_with(a.route_history[0]));
  EXPECT_TRUE(copy.tasks.at(task).write_sets.at("a01").after.shares_with(a.write_sets.at("a01").after));

  ASSERT_TRUE(apply_change(theirs, record_decision{task, test::sample_decision("worker", route_transition::failover)}));
  file_snapshot g{"/w/a", true, 5, 6, "i"};
  ASSERT_TRUE(apply_change(theirs, record_write_set{task, "a01", snapshot_phase::after, {g}}));
  EXPECT_EQ(a.route_history.size(), 1u);
  EXPECT_EQ(b.route_history.size(), 2u);
  EXPECT_EQ(a.decisions.at("worker")->transition, route_transition::initial);
  EXPECT_EQ(b.decisions.at("worker")->transition, route_transition::failover);
  EXPECT_EQ(a.write_sets.at("a01").after.at(0), f);
  EXPECT_EQ(b.write_sets.at("a01").after.at(0), g);
  EXPECT_EQ(copy.tasks.at(task), a);
}

TEST(state_change, orchestration_keeps_first_sight_baseline) {
  state_model s;
  ASSERT_TRUE(apply_change(s, observe_orchestration{"auth", {{"a", {"/arch/1"}}}}));
  ASSERT_TRUE(apply_change(s, observe_orchestration{"auth", {{"a", {"/arch/1", "/arch/2"}}, {"b", {}}}}));
  EXPECT_EQ(s.orchestrations["auth"].tasks["a"].archive_baseline, (std::vector<std::string>{"/arch/1"}));
  EXPECT_EQ(s.orchestrations["auth"].tasks.size(), 2u);
  ASSERT_TRUE(apply_change(s, complete_orchestration_task{"auth", "a", "/arch/3"}));
  ASSERT_TRUE(apply_change(s, set_orchestration_status{"auth", orchestration_status::complete}));
  // A complete scope observed again starts over.
  ASSERT_TRUE(apply_change(s, observe_orchestration{"auth", {{"c", {}}}}));
  EXPECT_EQ(s.orchestrations["auth"].status, orchestration_status::running);
  EXPECT_EQ(s.orchestrations["auth"].tasks.size(), 1u);
  EXPECT_TRUE(apply_change(s, set_orchestration_status{"zzz", orchestration_status::blocked}).is_not_found());
}

TEST(state_change, a_claim_violation_is_kept_once_and_the_oldest_go_past_the_cap) {
  state_model s;
  record_claim_violation v{task, "a01", "/ws/x", "", "elimination", {}, "warn", 5};
  ASSERT_TRUE(apply_change(s, v));
  ASSERT_TRUE(apply_change(s, v)); // the same verdict again: kept once
  ASSERT_EQ(s.claim_violations.size(), 1u);
  EXPECT_EQ(s.claim_violations[0],
            (claim_violation_record{task, "a01", "/ws/x", "", "elimination", {}, "warn", 5}));
  // Without a known writer the record names the candidates.
  ASSERT_TRUE(apply_change(s, record_claim_violation{"", "", "/ws/x", "g/02_b", "candidates",
                                                      {"a01", "b01"}, "warn", 6}));
  EXPECT_EQ(s.claim_violations.size(), 2u);
  auto before = s;
  EXPECT_TRUE(apply_change(s, record_claim_violation{task, "a01", "", "", "fanotify", {}, "warn", 7})
                .is_invalid_argument());
  EXPECT_TRUE(apply_change(s, record_claim_violation{task, "a01", "/ws/y", "", "guess", {}, "warn", 7})
                .is_invalid_argument());
  EXPECT_EQ(s, before);
  for (std::size_t i = 0; i < max_claim_violations + 10; ++i)
    ASSERT_TRUE(apply_change(s, record_claim_violation{task, "a01", "/ws/f" + std::to_string(i), "",
                                                        "fanotify", {}, "block", 10}));
  ASSERT_EQ(s.claim_violations.size(), max_claim_violations);
  EXPECT_EQ(s.claim_violations.back().path, "/ws/f" + std::to_string(max_claim_violations + 9));
  EXPECT_EQ(s.claim_violations.front().path, "/ws/f10");
  // They survive the snapshot's JSON, and a state without any keeps its old form.
  auto back = state_from_json(state_to_json(s), "test");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(*back, s);
  EXPECT_EQ(state_to_json_text(s), dump_json(state_to_json(s)));
  EXPECT_FALSE(state_to_json(state_model{}).contains("claim_violations"));
}

TEST(state_change, an_attempts_usage_is_kept_once_by_its_identity_and_summed) {
  auto s = with_task();
  ASSERT_TRUE(apply_change(s, record_attempt_usage{"a__p1__worker__a01", task, "sim-a", usage(100, 10, 0.5)}));
  ASSERT_TRUE(apply_change(s, record_attempt_usage{"a__p1__worker__a02", task, "sim-b", usage(200, 20)}));
  ASSERT_TRUE(apply_change(s, record_attempt_usage{"b__p1__worker__a01", "b", "sim-a", usage(1, 1, 0.25)}));
  // The same attempt recorded again (a replay, an adopted attempt's end)
  // replaces its record: one attempt, one record.
  ASSERT_TRUE(apply_change(s, record_attempt_usage{"a__p1__worker__a01", task, "sim-a", usage(100, 10, 0.5)}));
  auto totals = spend_totals_of(s);
  EXPECT_EQ(totals.run, usage(301, 31, 0.75));
  EXPECT_EQ(totals.by_task[task], usage(300, 30, 0.5));
  EXPECT_EQ(totals.by_task["b"], usage(1, 1, 0.25));
  EXPECT_EQ(totals.by_target["sim-a"], usage(101, 11, 0.75));
  EXPECT_EQ(totals.by_target["sim-b"], usage(200, 20));
  EXPECT_EQ(task_spend(s, task), usage(300, 30, 0.5));
  EXPECT_TRUE(task_spend(s, "nobody").empty());

  // What was spent stays spent: a new work unit and a removed task keep it.
  ASSERT_TRUE(apply_change(s, begin_work_unit{task, wu2}));
  EXPECT_EQ(spend_totals_of(s).run, usage(301, 31, 0.75));
  ASSERT_TRUE(apply_change(s, remove_task{task}));
  EXPECT_EQ(spend_totals_of(s).run, usage(301, 31, 0.75));
  EXPECT_TRUE(apply_change(s, record_attempt_usage{"", task, "sim-a", usage(1, 1)}).is_invalid_argument());
}

TEST(state_change, a_usage_record_in_the_journal_keeps_its_cost_and_refuses_a_bad_count) {
  auto c = change_from_json(
    json::parse(R"({"op":"record_attempt_usage","attempt_id":"a__p1__worker__a01","task":"a",)"
                R"("target":"sim-a","usage":{"input_tokens":5,"cost_usd":0.0125}})"),
    "journal.log at byte offset 7");
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(std::get<record_attempt_usage>(*c).usage.cost_usd, 0.0125);
  auto bad = change_from_json(
    json::parse(R"({"op":"record_attempt_usage","attempt_id":"x","task":"a",)"
                R"("usage":{"input_tokens":1e300}})"),
    "journal.log at byte offset 9");
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().is_corruption());
  EXPECT_NE(bad.error().message().find("input_tokens"), std::string::npos) << bad.error().message();
  // Outside a usage record a fraction is still refused.
  EXPECT_FALSE(change_from_json(
    json::parse(R"({"op":"set_counter","task":"a","name":"usage","value":2.5})"), "x"));
}

std::vector<state_change> one_of_each() {
  return {begin_work_unit{task, wu1},
          set_task_flag{task, task_flag::selfcheck_done, true},
          set_blocked{task, {"r", "e"}},
          clear_blocked{task},
          set_active_stage{task, "worker", "/l"},
          clear_active_stage{task},
          set_counter{task, "n", -4},
          record_failure{task, "worker"},
          reset_failures{task, "worker"},
          record_decision{task, test::sample_decision("worker", route_transition::initial)},
          set_completing_decision{task, test::sample_decision("worker", route_transition::resume)},
          set_quota_snapshot{task, {1, {{"a", "available"}}}},
          set_retry_handoff{task, {"h", "t", "/l"}},
          clear_retry_handoff{task},
          record_attempt_started{task, "worker", 2, "worker", 1, "/l2", "h"},
          set_intervention{task, {{"p"}, "i", {"/a"}, {"/b"}, 3, {}}},
          clear_intervention{task},
          record_write_set{task, "a1", snapshot_phase::after,
                           std::vector<file_snapshot>{{"/a", true, 1, 2, "h"}}},
          remove_task{task},
          set_attempt_counter{{task, 2, "review"}, 4},
          replace_claim{task, {claim_kind::paths, {"/a"}}},
          release_claim{task},
          observe_orchestration{"s", {{"a", {"/x"}}}},
          set_orchestration_status{"s", orchestration_status::blocked},
          complete_orchestration_task{"s", "a", "/y"},
          record_claim_violation{task, "a_x__p1__worker__a01", "/ws/README.md", "auth/03_ui",
                                 "fanotify", {}, "warn", 1700000000000},
          record_attempt_usage{"a_x__p1__worker__a01", task, "sim-a", usage(1200, 40, 0.0125)}};
}

TEST(state_change, every_change_round_trips_through_json) {
  auto all = one_of_each();
  ASSERT_EQ(all.size(), std::variant_size_v<state_change>);
  for (const auto& c : all) {
    json j = change_to_json(c);
    auto back = change_from_json(j, "test");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->index(), c.index());
    EXPECT_EQ(change_to_json(*back), j) << j.dump();
    EXPECT_EQ(j["op"], change_name(c));
  }
  auto text = changes_to_json_text(all);
  auto list = changes_from_json_text(text, "test");
  ASSERT_TRUE(list);
  EXPECT_EQ(changes_to_json_text(*list), text);
}

std::string entry_text(uint64_t seq, const json& changes) {
  return json{{"seq", seq}, {"changes", changes}}.dump();
}

// The journal's entries are read without a tree (change_reader.hpp): every
// change comes back as the tree conversion gives it.
TEST(state_change, a_journal_entry_reads_every_change_as_written) {
  auto all = one_of_each();
  json changes = json::array();
  for (const auto& c : all)
    changes.push_back(change_to_json(c));
  auto text = entry_text(5, changes);
  auto entry = read_journal_entry(text, "j", 4);
  ASSERT_TRUE(entry) << entry.error().to_string();
  EXPECT_EQ(entry->seq, 5u);
  ASSERT_EQ(entry->changes.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(entry->changes[i].index(), all[i].index());
    EXPECT_EQ(change_to_json(entry->changes[i]), changes[i]) << changes[i].dump();
  }
  // An entry the state holds, or one further on, comes back without changes.
  for (uint64_t held : {5u, 9u, 2u}) {
    auto other = read_journal_entry(text, "j", held);
    ASSERT_TRUE(other) << held;
    EXPECT_EQ(other->seq, 5u);
    EXPECT_TRUE(other->changes.empty()) << held;
  }
}

TEST(state_change, a_damaged_change_counts_only_in_the_entry_the_replay_needs) {
  json decision = change_to_json(
    record_decision{task, test::sample_decision("worker", route_transition::initial)});
  decision["decision"]["grade"] = 2.5;
  json changes = json::array({change_to_json(set_counter{task, "n", 1}), decision});
  auto text = entry_text(7, changes);
  auto needed = read_journal_entry(text, "journal.log at byte offset 40", 6);
  ASSERT_FALSE(needed);
  EXPECT_TRUE(needed.error().is_corruption());
  EXPECT_NE(needed.error().message().find(
              "journal.log at byte offset 40: malformed state change: changes[1].decision.grade: "
              "holds 2.5 where an integer belongs"),
            std::string::npos)
    << needed.error().message();
  for (uint64_t held : {7u, 3u}) {
    auto skipped = read_journal_entry(text, "j", held);
    ASSERT_TRUE(skipped) << held << ": " << skipped.error().to_string();
    EXPECT_EQ(skipped->seq, 7u);
    EXPECT_TRUE(skipped->changes.empty());
  }

  auto refused = [](const json& change) {
    auto e = read_journal_entry(entry_text(2, json::array({change})), "j", 1);
    return e ? std::string("read") : e.error().message();
  };
  EXPECT_NE(refused(json{{"op", "no_such_change"}, {"task", "a"}})
              .find("j: unknown state change \"no_such_change\""),
            std::string::npos);
  EXPECT_NE(refused(json{{"op", "set_counter"}, {"name", "n"}, {"value", 1}})
              .find("j: malformed state change: changes[0]: \"task\" is missing"),
            std::string::npos);
  EXPECT_NE(refused(json{{"op", "set_task_flag"}, {"task", "a"}, {"flag", "worker_done"},
                         {"value", 1}})
              .find("changes[0].value: expected a boolean, found a number"),
            std::string::npos);
  EXPECT_NE(refused(json{{"op", "set_counter"}, {"task", "a"}, {"name", "n"}, {"value", 2.5}})
              .find("changes[0].value: holds 2.5 where an integer belongs"),
            std::string::npos);
  EXPECT_NE(refused(json{{"op", "record_write_set"}, {"task", "a"}, {"attempt_id", "x"},
                         {"phase", "during"}, {"files", json::array()}})
              .find("changes[0].phase: unknown snapshot phase \"during\""),
            std::string::npos);
  EXPECT_NE(refused(json{{"op", "replace_claim"}, {"owner", "a"}, {"claim", 3}})
              .find("changes[0].claim: expected an object, found a number"),
            std::string::npos);
}

TEST(state_change, an_entry_that_is_not_one_is_corruption) {
  auto message = [](std::string_view text) {
    auto e = read_journal_entry(text, "j", 0);
    EXPECT_FALSE(e) << text;
    if (e)
      return std::string();
    EXPECT_TRUE(e.error().is_corruption());
    return e.error().message();
  };
  EXPECT_NE(message("not json").find("j: invalid JSON at byte"), std::string::npos);
  for (const char* text : {R"({"seq":1})", R"({"changes":[]})", R"({"seq":-1,"changes":[]})",
                           R"({"seq":"1","changes":[]})", R"({"seq":1,"changes":{}})", "[1]"})
    EXPECT_NE(message(text).find("j: entry lacks seq or changes"), std::string::npos) << text;
  // Nesting past the limit in a member read as a tree is refused, not
  // followed down.
  std::string deep = R"({"seq":1,"changes":[{"op":"set_counter","task":"a","name":"n","value":)"
                     + std::string(300, '[') + std::string(300, ']') + "}]}";
  EXPECT_NE(message(deep).find("nested deeper than"), std::string::npos);
}

TEST(state_change, unknown_or_malformed_change_is_corruption) {
  auto unknown = change_from_json(json{{"op", "launch_missiles"}}, "journal.log@12");
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(unknown.error().is_corruption());
  EXPECT_NE(unknown.error().message().find("journal.log@12"), std::string::npos);
  EXPECT_FALSE(change_from_json(json{{"op", "set_counter"}, {"task", "a"}}, "x"));
  EXPECT_FALSE(change_from_json(json{{"op", "set_task_flag"}, {"task", "a"}, {"flag", "zz"}, {"value", true}}, "x"));
  EXPECT_FALSE(changes_from_json_text("{}", "x"));
}

// Found by the journal fuzz target: nlohmann cast 1e300 to int64_t, which is
// undefined behaviour (UBSan: float-cast-overflow).
TEST(state_change, a_number_with_a_fraction_or_an_exponent_is_corruption_naming_it) {
  for (const char* text :
       {R"({"op":"set_counter","task":"a","name":"n","value":1e300})",
        R"({"op":"set_counter","task":"a","name":"n","value":2.5})",
        R"({"op":"start_attempt","task":"a","stage":"worker","plan":-1e30,"role":"worker",)"
        R"("attempt":1,"locator":"/l"})"}) {
    auto c = change_from_json(json::parse(text), "journal.log at byte offset 7");
    ASSERT_FALSE(c) << text;
    EXPECT_TRUE(c.error().is_corruption());
    EXPECT_NE(c.error().message().find("journal.log at byte offset 7: malformed state change: "),
              std::string::npos)
      << c.error().message();
    // The member is named.
    EXPECT_NE(c.error().message().find(": holds "), std::string::npos) << c.error().message();
    EXPECT_TRUE(c.error().message().find("value: holds") != std::string::npos
                || c.error().message().find("plan: holds") != std::string::npos)
      << c.error().message();
    EXPECT_NE(c.error().message().find(" where an integer belongs"), std::string::npos)
      << c.error().message();
  }
}

TEST(state_change, replaying_the_same_changes_gives_the_same_state) {
  state_model a, b;
  for (int i = 0; i < 20; ++i)
    for (const auto& c : test::scripted_batch(i)) {
      auto sa = apply_change(a, c);
      auto sb = apply_change(b, c);
      EXPECT_EQ(sa.get_code(), sb.get_code());
    }
  EXPECT_EQ(a, b);
  EXPECT_EQ(test::markers_present(a, 7), 3);
}

} // namespace
} // namespace ad::runtime
