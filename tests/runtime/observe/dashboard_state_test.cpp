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

TEST(dashboard_state_of, shows_each_task_of_the_status_report_in_the_overview) {
  status_report r;
  r.dispatcher = {true, true, 4242, t0, "0.1.0"};
  auto running = task("g/01_run", "running");
  running.target = "claude";
  running.live.push_back({"worker", "live", "pid 4242 alive", "/s/runs/a/locator.json", "running", ""});
  auto stale = task("g/02_stale", "running");
  stale.live.push_back({"worker", "stale", "agent gone", "/s/runs/b/locator.json", "running", ""});
  auto reset = task("g/03_reset", "waiting", "waiting for the quota of codex to reset");
  reset.target = "codex";
  reset.reset_wait_until = t0 + 600'000;
  r.tasks = {running,
             stale,
             reset,
             task("g/04_dep", "waiting", "waits for 01"),
             task("g/05_block", "blocked", "no verdict"),
             task("g/06_stop", "user-review", "approve the milestone"),
             task("g/07_ready", "ready")};
  r.summary.message = "1 task blocked";
  auto j = dashboard_state_of(r, t0, "agent-dispatch run --workspace ws --retry-blocked",
                              [](const std::string& identity, const std::string& locator) {
                                return identity.empty() && locator == "/s/runs/a/locator.json"
                                         ? "tool: Write a.cpp"
                                         : "";
                              });
  EXPECT_EQ(j["source"], "state");
  EXPECT_EQ(j["dispatcher"]["alive"], true);
  EXPECT_EQ(j["counts"]["running"], 2);
  EXPECT_EQ(j["counts"]["waiting"], 2);
  EXPECT_EQ(j["counts"]["ready"], 1);
  ASSERT_EQ(j["running"].size(), 1u);  // a stale attempt does not run
  EXPECT_EQ(j["running"][0]["task"], "g/01_run");
  EXPECT_EQ(j["running"][0]["output"], "tool: Write a.cpp");
  ASSERT_EQ(j["waits"].size(), 2u);
  EXPECT_EQ(j["waits"][0]["kind"], "other");
  EXPECT_EQ(j["waits"][0]["tasks"][0]["task"], "g/04_dep");
  EXPECT_EQ(j["waits"][1]["kind"], "quota-reset");
  EXPECT_EQ(j["waits"][1]["tasks"][0]["until"], "2027-01-15T08:10:00.000Z");
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
}

} // namespace
} // namespace ad::runtime
