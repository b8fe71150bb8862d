// Which run events fire which notify rule, and the JSON each sends.
#include "runtime/notify/notify_decision.hpp"

#include <gtest/gtest.h>

#include "runtime/policy/policy.hpp"

namespace ad::runtime {
namespace {

constexpr millis t0 = 1'800'000'000'000;

policy_notify rules() {
  auto loaded = parse_policy_text(R"({"notify": {"rules": [
    {"id": "ops", "events": ["task_blocked", "run_finished"], "command": ["page", "ops"]},
    {"id": "review", "events": ["user_review"], "url": "http://127.0.0.1:9/review"},
    {"id": "long-waits", "events": ["quota_wait"], "quota_wait_minutes": 30, "url": "http://h/q"},
    {"id": "any-wait", "events": ["quota_wait", "claim_violation"], "command": ["log"]}
  ]}})",
                                  "p.json");
  EXPECT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  return loaded->value.notify;
}

run_event event(run_event_kind kind, std::string task = "g/01_a", std::string stage = "worker") {
  run_event e;
  e.kind = kind;
  e.time = t0;
  e.task = std::move(task);
  e.stage = std::move(stage);
  return e;
}

std::vector<std::string> fired(const run_event& e) {
  std::vector<std::string> out;
  for (const auto& n : notifications_for(e, rules(), "/ws"))
    out.push_back(n.rule);
  return out;
}

using names = std::vector<std::string>;

TEST(notify_decision, a_blocked_task_fires_the_blocked_rules_with_the_event_json) {
  auto e = event(run_event_kind::task_blocked, "g/02_bad", "worker");
  e.reason = "no header,\nno table";
  auto sent = notifications_for(e, rules(), "/ws");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].rule, "ops");
  EXPECT_EQ(sent[0].event, notify_event::task_blocked);
  EXPECT_EQ(sent[0].command, (std::vector<std::string>{"page", "ops"}));
  EXPECT_EQ(sent[0].url, "");
  EXPECT_EQ(sent[0].body, json::parse(R"({"event": "task_blocked", "time": "2027-01-15T08:00:00.000Z",
    "task": "g/02_bad", "stage": "worker", "reason": "no header, no table",
    "notification": "task_blocked", "rule": "ops", "workspace": "/ws"})"));
}

TEST(notify_decision, a_user_review_stop_is_its_own_event) {
  auto sent = notifications_for(event(run_event_kind::task_blocked, "g/01_a", "user-review"),
                                rules(), "/ws");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].rule, "review");
  EXPECT_EQ(sent[0].url, "http://127.0.0.1:9/review");
  EXPECT_EQ(sent[0].body["notification"], "user_review");
  EXPECT_EQ(sent[0].body["stage"], "user-review");
}

TEST(notify_decision, a_quota_wait_fires_rules_whose_minutes_it_exceeds) {
  auto e = event(run_event_kind::supervisor_wait);
  e.role = "worker";
  e.target = "codex";
  e.wait = std::string(wait_quota_reset);
  e.until = t0 + 30 * 60'000;  // exactly 30 minutes: not longer than 30
  EXPECT_EQ(fired(e), (names{"any-wait"}));
  e.until = t0 + 30 * 60'000 + 1;
  EXPECT_EQ(fired(e), (names{"long-waits", "any-wait"}));
  auto sent = notifications_for(e, rules(), "/ws");
  EXPECT_EQ(sent[0].body["until"], "2027-01-15T08:30:00.001Z");
  EXPECT_EQ(sent[0].body["notification"], "quota_wait");
  // A cool-down is a quota wait too; a wait already over is none.
  e.wait = std::string(wait_cool_down);
  e.until = t0 + 31 * 60'000;
  EXPECT_EQ(fired(e), (names{"long-waits", "any-wait"}));
  e.until = t0;
  EXPECT_EQ(fired(e), names{});
}

TEST(notify_decision, claim_violations_and_the_run_end_fire_their_rules) {
  auto v = event(run_event_kind::claim_violation);
  v.path = "/ws/README.md";
  v.action = "warn";
  auto sent = notifications_for(v, rules(), "/ws");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].rule, "any-wait");
  EXPECT_EQ(sent[0].body["path"], "/ws/README.md");
  EXPECT_EQ(sent[0].body["notification"], "claim_violation");

  auto s = event(run_event_kind::summary, "", "");
  s.exit_code = 2;
  s.reason = "1 task blocked";
  s.counts = {{"blocked", 1}, {"complete", 1}};
  sent = notifications_for(s, rules(), "/ws");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].rule, "ops");
  EXPECT_EQ(sent[0].body["event"], "summary");
  EXPECT_EQ(sent[0].body["exit_code"], 2);
  EXPECT_EQ(sent[0].body["notification"], "run_finished");
}

TEST(notify_decision, other_events_and_an_empty_policy_fire_nothing) {
  for (auto kind : {run_event_kind::tasks_scanned, run_event_kind::task_started,
                    run_event_kind::task_finished, run_event_kind::task_failed,
                    run_event_kind::task_waiting, run_event_kind::attempt_started,
                    run_event_kind::attempt_finished, run_event_kind::failover,
                    run_event_kind::promotion, run_event_kind::tactical_match})
    EXPECT_EQ(fired(event(kind)), names{}) << to_string(kind);
  EXPECT_TRUE(notifications_for(event(run_event_kind::task_blocked), policy_notify{}, "/ws").empty());
}

} // namespace
} // namespace ad::runtime
