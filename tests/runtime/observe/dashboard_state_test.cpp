#include "runtime/observe/dashboard_state.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

constexpr millis t0 = 1'800'000'000'000;  // 2027-01-15T08:00:00.000Z

status_task task(std::string name, std::string status, std::string reason = "") {
  status_task t;
  t.name = std::move(name);
  t.stage = "worker";
  t.status = std::move(status);
  t.reason = std::move(reason);
  return t;
}

// g/01_run live on claude (on `node` when given), and a task waiting for
// codex's quota to reset 10 minutes after t0.
status_task running_on_claude(const std::string& node = "") {
  auto t = task("g/01_run", "running");
  t.target = "claude";
  t.live.push_back({"worker", "live", "pid 4242 alive", "/s/runs/a/locator.json", "running", node});
  return t;
}
status_task waiting_for_codex_reset(std::string name) {
  auto t = task(std::move(name), "waiting", "waiting for the quota of codex to reset");
  t.target = "codex";
  t.reset_wait_until = t0 + 600'000;
  t.wait = "quota-reset";
  t.wait_target = "codex";
  t.wait_until = t.reset_wait_until;
  return t;
}
// A task whose stage waits for agy to cool down, 5 minutes after t0.
status_task waiting_for_agy_to_cool_down(std::string name) {
  auto t = task(std::move(name), "waiting", "waiting for agy to cool down");
  t.wait = "cool-down";
  t.wait_target = "agy";
  t.wait_until = t0 + 300'000;
  return t;
}

TEST(dashboard_state_of, shows_each_task_of_the_status_report_in_the_overview) {
  status_report r;
  r.dispatcher = {true, true, 4242, t0, "0.1.0"};
  auto running = running_on_claude();
  auto stale = task("g/02_stale", "running");
  stale.live.push_back({"worker", "stale", "agent gone", "/s/runs/b/locator.json", "running", ""});
  auto reset = waiting_for_codex_reset("g/03_reset");
  auto dep = task("g/04_dep", "waiting", "waits for 01");
  dep.wait = "dependency";
  auto claim = task("g/08_claim", "waiting", "claim conflict with g/01_run on /w/a.cpp");
  claim.wait = "claim";
  claim.wait_owner = "g/01_run";
  r.tasks = {running,
             stale,
             reset,
             dep,
             claim,
             task("g/05_block", "blocked", "no verdict"),
             task("g/06_stop", "user-review", "approve the milestone"),
             task("g/07_ready", "ready"),
             waiting_for_agy_to_cool_down("g/09_cool")};
  r.summary.message = "1 task blocked";
  r.spent.input_tokens = 7200;
  r.spent.cost_usd = 0.0372;
  r.tasks[0].spent.input_tokens = 2400;
  auto live_reader = [](const std::string& identity, const std::string& locator) {
    token_usage so_far;
    so_far.output_tokens = 80;
    return identity.empty() && locator == "/s/runs/a/locator.json"
             ? attempt_live{"tool: Write a.cpp", so_far}
             : attempt_live{};
  };
  auto j = dashboard_state_of(r, t0, "agent-dispatch run --workspace ws --retry-blocked",
                              live_reader);
  EXPECT_EQ(j["source"], "state");
  EXPECT_EQ(j["dispatcher"]["alive"], true);
  EXPECT_EQ(j["counts"]["running"], 2);
  EXPECT_EQ(j["counts"]["waiting"], 4);
  EXPECT_EQ(j["counts"]["ready"], 1);
  ASSERT_EQ(j["running"].size(), 1u);  // a stale attempt does not run
  EXPECT_EQ(j["running"][0]["task"], "g/01_run");
  EXPECT_EQ(j["running"][0]["output"], "tool: Write a.cpp");
  EXPECT_EQ(j["running"][0]["usage_text"], "80 out");
  EXPECT_EQ(j["usage"], (json{{"input_tokens", 7200}, {"cost_usd", 0.0372}}))
    << "the state's total: every attempt, across restarts";
  EXPECT_EQ(j["usage_text"], "7,200 in · $0.0372");
  ASSERT_EQ(j["waits"].size(), 4u) << j["waits"].dump(2);
  EXPECT_EQ(j["waits"][0]["kind"], "quota-reset");
  EXPECT_EQ(j["waits"][0]["tasks"][0]["until"], "2027-01-15T08:10:00.000Z");
  EXPECT_EQ(j["waits"][0]["tasks"][0]["target"], "codex");
  EXPECT_EQ(j["waits"][1]["kind"], "cool-down");
  EXPECT_EQ(j["waits"][1]["tasks"][0]["task"], "g/09_cool");
  EXPECT_EQ(j["waits"][1]["tasks"][0]["until"], "2027-01-15T08:05:00.000Z");
  EXPECT_EQ(j["waits"][1]["tasks"][0]["target"], "agy");
  EXPECT_EQ(j["waits"][2]["kind"], "claim");
  EXPECT_EQ(j["waits"][2]["tasks"][0]["owner"], "g/01_run");
  EXPECT_EQ(j["waits"][2]["tasks"][0]["until"], nullptr);
  EXPECT_EQ(j["waits"][3]["kind"], "dependency");
  EXPECT_EQ(j["waits"][3]["tasks"][0]["task"], "g/04_dep");
  ASSERT_EQ(j["blocked"].size(), 1u);
  EXPECT_EQ(j["blocked"][0]["retry"],
            "agent-dispatch run --workspace ws --retry-blocked --task-group g");
  ASSERT_EQ(j["user_review"].size(), 1u);
  EXPECT_EQ(j["user_review"][0]["task"], "g/06_stop");
  EXPECT_EQ(j["summary"], "1 task blocked");

  auto t = dashboard_task_of(r, "g/05_block", t0, "agent-dispatch run --workspace ws --retry-blocked");
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)["status"], "blocked");
  EXPECT_EQ((*t)["retry"], "agent-dispatch run --workspace ws --retry-blocked --task-group g");
  EXPECT_FALSE(dashboard_task_of(r, "g/99", t0, ""));
  auto run = dashboard_task_of(r, "g/01_run", t0, "", live_reader);
  ASSERT_TRUE(run);
  EXPECT_EQ((*run)["usage_text"], "2,400 in");
  ASSERT_EQ((*run)["live_attempts"].size(), 1u);
  EXPECT_EQ((*run)["live_attempts"][0]["output"], "tool: Write a.cpp");
  EXPECT_EQ((*run)["live_attempts"][0]["usage_text"], "80 out");
}

TEST(dashboard_targets_of, shows_what_the_state_knows_of_each_target) {
  constexpr millis now = t0;
  status_report r;
  auto running = running_on_claude("gpu-1");
  auto reset = waiting_for_codex_reset("g/02_reset");
  auto blocked = task("g/03_block", "blocked", "no verdict");
  blocked.blocked_evidence =
    R"({"role":"review","failure_class":"review-no-progress","selected_target":"codex","evidence":"no verdict"})";
  r.tasks = {running, reset, blocked};
  r.spent_by_target["claude"].input_tokens = 500;
  // agy cools down after a quota failure of g/04_quota; codex's recorded
  // cool-down ends before its reset wait does.
  r.cooldowns["agy"] = recorded_cooldown{"agy", t0 + 300'000, "g/04_quota"};
  r.cooldowns["codex"] = recorded_cooldown{"codex", t0 + 60'000, "g/02_reset"};
  auto j = dashboard_targets_of(r, now);
  ASSERT_EQ(j["targets"].size(), 3u) << j.dump(2);
  auto agy = j["targets"][0];
  EXPECT_EQ(agy["target"], "agy");
  EXPECT_EQ(agy["quota"], "cool-down");
  EXPECT_EQ(agy["until"], "2027-01-15T08:05:00.000Z");
  EXPECT_EQ(agy["quota_reason"], "a quota failure of g/04_quota");
  auto claude = j["targets"][1];
  EXPECT_EQ(claude["target"], "claude");
  EXPECT_EQ(claude["usage_text"], "500 in");
  ASSERT_EQ(claude["running"].size(), 1u);
  EXPECT_EQ(claude["quota"], "");
  auto codex = j["targets"][2];
  EXPECT_EQ(codex["quota"], "quota-reset");
  EXPECT_EQ(codex["until"], "2027-01-15T08:10:00.000Z");
  EXPECT_EQ(codex["failures"][0]["task"], "g/03_block");
  EXPECT_EQ(codex["failure_counts"]["review-no-progress"], 1);

  auto nodes = dashboard_nodes_of(r, now);
  ASSERT_EQ(nodes["nodes"].size(), 1u);
  EXPECT_EQ(nodes["nodes"][0]["node"], "gpu-1");
  EXPECT_EQ(nodes["nodes"][0]["running"][0]["task"], "g/01_run");
}

} // namespace
} // namespace ad::runtime
