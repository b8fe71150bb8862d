// What attempts spend, end to end with the simulator (which reports usage in
// each CLI's own format): the totals after a failover and after a
// dispatcher SIGKILL and the adoption of its agent, and the policy's
// ceilings (docs/policy.md, "limits"), a task's and the run's, which block
// before the next attempt and let `--retry-blocked` go on once raised.
#include <csignal>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

#include "runtime/core/json.hpp"
#include "tests/e2e/supervision/supervision_support.hpp"

namespace ad::test {
namespace {

using runtime::json;
using namespace std::chrono_literals;

const std::string usage_task = "g/01_a";

size_t runs_after_worker(const supervision_ws& ws) {
  return ws.runs_of("selfcheck").size() + ws.runs_of("review").size();
}

TEST(usage, a_failover_counts_both_attempts_each_on_its_own_target) {
  supervision_ws ws;
  ws.write_task(usage_task, "local", {"src/a.cpp"});
  // pi answers two requests, then its model is gone: a failover to the
  // second local target, which does the work.
  ws.write_scenario(worker_attempts(usage_task,
    {{"1", {{"actions", {{{"kind", "events"}, {"count", 2}},
                         {{"kind", "fail"}, {"failure", "model_unavailable"}}}}}}}));
  auto r = ws.run({"--json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto workers = ws.runs_of("worker");
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_NE(workers[0].exit_code, -1);

  auto reported = usage_reported({r.out});
  const auto& failed = reported.by_target["pi-laguna-s"];
  const auto& succeeded = reported.by_target["pi-laguna-m"];
  ASSERT_TRUE(failed.input_tokens.has_value()) << "the failed attempt's tokens count\n" << r.out;
  EXPECT_GE(*failed.input_tokens, 2 * 1234) << "two requests answered before the failure";
  ASSERT_TRUE(succeeded.input_tokens.has_value()) << r.out;

  // status --json reads the durable totals: the run's is the sum of the
  // attempts', and each target has its own attempts' only.
  auto status = usage_summarized(ws.status_json());
  expect_same_usage(status.total, reported.total, "the run's total");
  EXPECT_EQ(status.by_target.size(), reported.by_target.size());
  for (const auto& [target, u] : reported.by_target)
    expect_same_usage(status.by_target[target], u, "target " + target);
  EXPECT_FALSE(ws.archived(usage_task).empty());
}

TEST(usage, an_attempt_adopted_after_a_sigkill_counts_what_it_spent_before_and_after_once) {
  supervision_ws ws;
  ws.write_task(usage_task, "local", {"src/a.cpp"});
  // pi answers a request a second (time scale 0.01), four times, then works.
  ws.write_scenario(worker_attempts(usage_task,
    {{"1", {{"actions", {{{"kind", "events"}, {"count", 4}, {"interval_seconds", 100}},
                         {{"kind", "work"}}}}}}}));
  auto first = ws.start();
  bool live = false;
  for (auto until = std::chrono::steady_clock::now() + 60s;
       !live && std::chrono::steady_clock::now() < until;) {
    reap_orphans();
    live = !scan_live_agents(ws.env().registry).empty();
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(live) << first.tail();
  std::this_thread::sleep_for(1500ms); // a request or two answered before the kill
  first.send(SIGKILL);
  auto killed = first.wait(10s);
  ASSERT_TRUE(killed.has_value()) << first.tail();
  ASSERT_EQ(*killed, 128 + SIGKILL) << first.tail();

  auto second = ws.run({"--json"});
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  EXPECT_EQ(ws.runs_of("worker").size(), 1u) << "the worker ran again instead of being adopted";
  json adopted_end;
  std::string adopted_id;
  std::istringstream lines(second.out);
  for (std::string line; std::getline(lines, line);) {
    auto e = json::parse(line, nullptr, false);
    if (!e.is_object())
      continue;
    if (e.value("event", "") == "attempt_started" && e.contains("adopted"))
      adopted_id = e.value("identity", "");
    if (e.value("event", "") == "attempt_finished" && e.value("identity", "") == adopted_id)
      adopted_end = e;
  }
  ASSERT_TRUE(adopted_end.is_object()) << "no adopted attempt ended\n" << second.out;
  ASSERT_TRUE(adopted_end.contains("usage")) << adopted_end.dump();
  // Every request of the attempt, before the kill and after: four and the work.
  EXPECT_GE(adopted_end["usage"].value("input_tokens", 0), 5 * 1234) << adopted_end.dump();

  // The state counts it once: its totals are the sums of the attempts' ends.
  auto reported = usage_reported({second.out});
  auto status = usage_summarized(ws.status_json());
  expect_same_usage(status.total, reported.total, "the run's total");
  for (const auto& [target, u] : reported.by_target)
    expect_same_usage(status.by_target[target], u, "target " + target);
  EXPECT_FALSE(ws.archived(usage_task).empty());
}

TEST(usage, a_task_over_its_ceiling_blocks_before_its_next_stage_until_the_ceiling_is_raised) {
  supervision_ws ws;
  ws.write_task(usage_task, "local", {"src/a.cpp"});
  // One pi request is 1,290 tokens: the worker goes over 1,000.
  ws.write_policy({{"limits", {{"task", {{"tokens", 1000}}}}}});
  auto r = ws.run();
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(ws.runs_of("worker").size(), 1u);
  EXPECT_EQ(runs_after_worker(ws), 0u) << "an attempt started over the ceiling";
  auto row = ws.status_of(usage_task);
  ASSERT_TRUE(row.is_object()) << ws.status_json();
  EXPECT_EQ(row.value("status", ""), "blocked") << row.dump();
  auto reason = row.value("reason", "");
  EXPECT_TRUE(contains(reason, "task token ceiling reached: ")) << reason;
  EXPECT_TRUE(contains(reason, "/limits/task/tokens is 1,000; raise /limits/task/tokens")) << reason;
  EXPECT_TRUE(contains(r.out + r.err, "task token ceiling reached")) << r.out << r.err;

  ws.write_policy({{"limits", {{"task", {{"tokens", 1000000}}}}}});
  auto again = ws.run({"--retry-blocked"});
  EXPECT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_EQ(ws.runs_of("worker").size(), 1u) << "the worker's stage was done";
  EXPECT_GT(runs_after_worker(ws), 0u);
  EXPECT_FALSE(ws.archived(usage_task).empty());
}

TEST(usage, a_run_over_its_ceiling_starts_nothing_more_and_goes_on_once_it_is_raised) {
  supervision_ws ws;
  ws.write_task("g/01_a", "local", {"src/a.cpp"});
  ws.write_task("g/02_b", "local", {"src/b.cpp"});
  // Prices make pi's tokens a cost: $1.29 a request, over the run's $1.
  json prices = {{"input", 1000}, {"output", 1000}};
  ws.write_policy({{"prices", {{"pi-laguna-s", prices}, {"pi-laguna-m", prices}}},
                   {"limits", {{"run", {{"cost_usd", 1.0}}}}}});
  auto r = ws.run({"--max-parallel", "2"});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  // The workers that started before the ceiling was reached ran to their
  // end; nothing started after it.
  auto workers = ws.runs_of("worker");
  EXPECT_GE(workers.size(), 1u);
  for (const auto& w : workers)
    EXPECT_EQ(w.exit_code, 0) << w.task << ": a running agent was stopped";
  EXPECT_EQ(runs_after_worker(ws), 0u) << "an attempt started over the run's ceiling";
  for (const char* t : {"g/01_a", "g/02_b"}) {
    auto row = ws.status_of(t);
    ASSERT_TRUE(row.is_object()) << t << "\n" << ws.status_json();
    EXPECT_EQ(row.value("status", ""), "blocked") << row.dump();
    auto reason = row.value("reason", "");
    EXPECT_TRUE(contains(reason, "run cost ceiling reached: ")) << reason;
    EXPECT_TRUE(contains(reason, "/limits/run/cost_usd is $1.00")) << reason;
  }

  ws.write_policy({{"prices", {{"pi-laguna-s", prices}, {"pi-laguna-m", prices}}},
                   {"limits", {{"run", {{"cost_usd", 1000}}}}}});
  auto again = ws.run({"--retry-blocked", "--max-parallel", "2"});
  EXPECT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_FALSE(ws.archived("g/01_a").empty());
  EXPECT_FALSE(ws.archived("g/02_b").empty());
}

} // namespace
} // namespace ad::test
