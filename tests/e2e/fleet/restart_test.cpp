// End-to-end restart safety and shutdown (SPEC sections 8 and 10):
// - SIGKILL the dispatcher at random moments of a long run and restart it each
//   time: never two live agents of one task and never more than
//   --max-parallel (marker scan of /proc every few milliseconds while any
//   dispatcher runs, and the registry afterwards), no lost or repeated
//   completion, and the run completes with exit 0. Agents write a line every
//   20-50 ms and many runs end with a long tail after their work is done, so
//   a kill leaves live agents (running elsewhere, writing all the while) that the
//   restarted dispatcher adopts from their keepers and follows to their end:
//   every agent seen alive finishes its run and none is started twice.
//   10 kills by default; AD_RESTART_SOAK=<n>
//   runs n (e.g. 200); AD_RESTART_SEED=<s> replays the random choices of a
//   failed run (the seed is printed at the start and in every failure).
// - SIGINT terminates every agent and exits 130.
// - A second dispatcher on the same workspace exits 3 naming the owner, and
//   `status` reads the state while the first one runs.
#include <csignal>
#include <cstdlib>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>
#include <random>
#include <set>

#include "tests/e2e/fleet/fleet_support.hpp"
#include "tools/agent-sim/registry.hpp"

namespace ad::test {
namespace {

using namespace std::chrono_literals;
using runtime::json;
namespace wg = workspace_gen;

// Workers that never finish on their own.
json hanging_workers() {
  return {{"version", 1},
          {"defaults", {{"worker", {{{"kind", "events"}, {"count", 1}}, {{"kind", "hang"}, {"in", "idle"}}}}}}};
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  int n = v ? std::atoi(v) : 0;
  return n > 0 ? n : fallback;
}

// Kills of the SIGKILL test: 10, or AD_RESTART_SOAK.
int soak_iterations() { return env_int("AD_RESTART_SOAK", 10); }

// AD_RESTART_SEED, else a fresh one.
uint32_t restart_seed() {
  const char* v = std::getenv("AD_RESTART_SEED");
  if (v && *v)
    return static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
  return std::random_device{}();
}

// Per task and role: chatty agents that write an event line every 20-50 ms
// (real time) all through their run: a lead of events, the stage's effect
// (work, or a PASS review that archives the task), a tail of events and an
// exit 0. About 40% of the runs get a long tail (3-6 s at the fleet's time
// scale of 0.01): a kill then leaves an agent alive, writing, whose work is
// already visible, and it is still alive when the next dispatcher has started
// (a sanitized dispatcher under a loaded ctest -j2 takes over a second to
// probe its CLIs and read its state). An agent whose output had no reader
// would die at its next line: under a keeper none does. Seconds are
// simulator seconds (scaled by 0.01).
json restart_scenario(const wg::gen_plan& plan, std::mt19937& rng) {
  std::uniform_int_distribution<int> lead(5, 30);
  std::uniform_int_distribution<int> long_tail(300, 600);
  std::uniform_int_distribution<int> short_tail(2, 10);
  std::bernoulli_distribution quiet(0.4);
  auto chatter = [](int seconds, double every) {
    return json{{"kind", "events"},
                {"count", std::max(1, static_cast<int>(seconds / every))},
                {"interval_seconds", every}};
  };
  auto actions = [&](json effect) {
    return json::array({chatter(lead(rng), 2), std::move(effect),
                        chatter(quiet(rng) ? long_tail(rng) : short_tail(rng), 5),
                        {{"kind", "exit"}, {"code", 0}}});
  };
  json tasks = json::object();
  for (const auto& t : plan.tasks) {
    tasks[t.name]["worker"]["default"] = actions({{"kind", "work"}});
    tasks[t.name]["review"]["default"] = actions({{"kind", "review"}, {"verdict", "PASS"}});
  }
  return {{"version", 1}, {"tasks", tasks}};
}

// Waits until at least `count` agents of the fleet are alive.
bool wait_for_agents(const fleet& f, size_t count, std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    reap_orphans();
    if (scan_live_agents(f.registry).size() >= count)
      return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

class restart : public ::testing::Test {
protected:
  void TearDown() override {
    for (auto* r : running_)
      if (r->pid() > 0 && !r->wait(0ms)) {
        r->send(SIGKILL);
        r->wait(10s);
      }
    if (!f_.registry.empty()) {
      EXPECT_EQ(kill_live_agents(f_.registry), 0) << "agents left behind by the test";
    }
  }

  child_run& start(const std::vector<std::string>& args, const std::string& log) {
    runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(f_, args, log)));
    running_.push_back(runs_.back().get());
    return *runs_.back();
  }

  fleet f_;
  std::vector<std::unique_ptr<child_run>> runs_;
  std::vector<child_run*> running_;
};

TEST_F(restart, sigkill_at_random_moments_never_duplicates_an_agent_or_loses_a_completion) {
  const int iterations = soak_iterations();
  const uint32_t seed = restart_seed();
  const std::string replay = "AD_RESTART_SEED=" + std::to_string(seed) +
                             " AD_RESTART_SOAK=" + std::to_string(iterations);
  SCOPED_TRACE("replay with " + replay);
  std::cout << "[ restart  ] " << replay << std::endl;
  constexpr int parallel = 4;
  std::mt19937 rng(seed);
  wg::gen_options o;
  o.tasks = 2 * iterations + 10; // enough work that no run completes before the last kill
  o.shape = wg::dag_shape::random;
  o.seed = seed;
  o.group_size = 12;
  o.overlap = 0.2;
  auto planned = wg::plan_workspace(o);
  ASSERT_TRUE(planned.is_ok()) << planned.error().message();
  f_.time_scale = 0.01;
  f_.create(o, restart_scenario(*planned, rng));
  if (HasFatalFailure())
    return;

  std::vector<std::string> problems;
  std::map<pid_t, std::string> seen; // every agent seen alive: pid -> marker
  auto sample = [&] {
    auto live = scan_live_agents(f_.registry);
    for (const auto& a : live)
      seen.emplace(a.pid, a.marker);
    for (const auto& d : duplicate_live_agents(live))
      problems.push_back("two live agents of one task: " + d);
    if (static_cast<int>(live.size()) > parallel)
      problems.push_back(std::to_string(live.size()) + " live agents with --max-parallel " +
                         std::to_string(parallel));
  };
  // Follows `run` until it exits or `limit` passes, sampling all the while.
  auto follow = [&](child_run& run, std::chrono::milliseconds limit) {
    auto until = std::chrono::steady_clock::now() + limit;
    std::optional<int> code;
    while (!code && std::chrono::steady_clock::now() < until) {
      sample();
      code = run.wait(5ms);
    }
    return code;
  };
  // Follows `run` until an agent that was not alive in `before` runs, or the
  // run exits, or `limit` passes.
  auto follow_to_new_agent = [&](child_run& run, const std::set<pid_t>& before,
                                 std::chrono::milliseconds limit) {
    auto until = std::chrono::steady_clock::now() + limit;
    std::optional<int> code;
    while (!code && std::chrono::steady_clock::now() < until) {
      sample();
      for (const auto& a : scan_live_agents(f_.registry))
        if (!before.count(a.pid))
          return code;
      code = run.wait(5ms);
    }
    return code;
  };

  // Kill moments: mostly inside the busy part of a run, some during start-up,
  // timed from the start. Every other kill is timed from the first agent the
  // run starts instead (past its lead silence and effect: 0.4 s), so a slow
  // start (a sanitized build on a loaded machine) still leaves agents running elsewhere.
  std::uniform_int_distribution<int> delay_ms(30, 1200);
  int kills = 0;
  int adopted = 0; // restarts that adopted a live agent of a killed dispatcher
  bool finished = false;
  for (int i = 0; kills < iterations && !finished && i < 3 * iterations; ++i) {
    std::set<pid_t> before;
    for (const auto& a : scan_live_agents(f_.registry))
      before.insert(a.pid);
    auto& run = start(run_args(f_, parallel), "kill" + std::to_string(i));
    auto delay = std::chrono::milliseconds(delay_ms(rng));
    std::optional<int> code;
    if (i % 2 == 1) {
      code = follow_to_new_agent(run, before, 30s);
      delay = 400ms;
    }
    if (!code)
      code = follow(run, delay);
    if (!code) {
      run.send(SIGKILL);
      code = run.wait(10s);
      ASSERT_TRUE(code.has_value()) << "no exit after SIGKILL";
    }
    adopted += run.out().find("adopted from its keeper") != std::string::npos;
    if (*code == 128 + SIGKILL) {
      ++kills;
      continue;
    }
    // It ended on its own: only a complete run may.
    ASSERT_EQ(*code, 0) << "run " << i << "\n" << run.tail();
    finished = true;
  }
  EXPECT_EQ(kills, iterations) << "the run completed before every planned kill; make it longer";

  // One more start must finish the run: agents running elsewhere are watched until they end.
  // At most about a second per agent run is left, four at a time; the limit
  // is far above that, so only a hang reaches it.
  const auto limit = std::chrono::seconds(120 + 2 * o.tasks);
  auto& last = start(run_args(f_, parallel), "final");
  auto code = follow(last, limit);
  ASSERT_TRUE(code.has_value()) << "the restarted run did not finish in " << limit.count()
                                << " s\n" << last.tail();
  adopted += last.out().find("adopted from its keeper") != std::string::npos;
  ASSERT_EQ(*code, 0) << last.tail();
  for (const auto& p : problems)
    ADD_FAILURE() << p;
  // The quiet tails make agents running elsewhere likely at almost every restart; none at
  // all means the adoption path was not exercised.
  EXPECT_GT(adopted, 0) << "no restart found a live agent of a killed dispatcher";
  EXPECT_TRUE(scan_live_agents(f_.registry).empty()) << "agents outlived the completed run";

  // A second run finds everything complete.
  auto& again = start(run_args(f_, parallel), "again");
  auto again_code = again.wait(120s);
  ASSERT_TRUE(again_code.has_value()) << again.tail();
  EXPECT_EQ(*again_code, 0) << again.tail();

  // No lost and no repeated completion.
  auto archived = f_.archived_tasks();
  for (const auto& t : f_.plan.tasks) {
    auto it = archived.find(t.name);
    EXPECT_TRUE(it != archived.end() && it->second == 1)
        << t.name << " archived " << (it == archived.end() ? 0 : it->second) << " times";
  }
  EXPECT_EQ(archived.size(), f_.plan.tasks.size());

  // From the registry: a run killed by SIGPIPE or SIGKILL leaves no line,
  // every other run does. A PASS review archives its task, so a second one
  // would be a review started again after its effect was visible.
  auto runs = agent_sim::read_registry(f_.registry);
  ASSERT_TRUE(runs.is_ok()) << runs.error().message();
  std::map<std::string, int> passed_reviews;
  for (const auto& r : *runs)
    if (r.exit_code == 0 && r.exit_signal.empty() && r.role == "review")
      ++passed_reviews[r.task];
  for (const auto& t : f_.plan.tasks) {
    std::string history;
    for (const auto& r : *runs)
      if (r.task == t.name)
        history += "\n  " + r.role + " attempt " + std::to_string(r.attempt) + " exit " +
                   std::to_string(r.exit_code) + " " + r.exit_signal + " marker " + r.marker;
    EXPECT_LE(passed_reviews[t.name], 1) << t.name << history;
  }
  for (const auto& v : agent_sim::check_registry(*runs, parallel))
    ADD_FAILURE() << "registry violation: " << v.message;

  // No work lost or redone: every agent seen alive (many of them across a
  // kill) ended by itself with exit 0 and wrote its registry line, and each
  // task ran one worker and one review.
  std::map<pid_t, const agent_sim::run_record*> by_pid;
  std::map<std::string, int> runs_of;
  for (const auto& r : *runs) {
    by_pid[r.pid] = &r;
    ++runs_of[r.task + " " + r.role];
  }
  for (const auto& [pid, marker] : seen) {
    auto it = by_pid.find(pid);
    if (it == by_pid.end())
      ADD_FAILURE() << "agent " << pid << " (" << marker << ") died without finishing its run";
    else
      EXPECT_TRUE(it->second->exit_code == 0 && it->second->exit_signal.empty())
          << "agent " << pid << " (" << marker << ") ended with exit " << it->second->exit_code
          << " " << it->second->exit_signal;
  }
  for (const auto& t : f_.plan.tasks)
    for (const char* role : {"worker", "review"})
      EXPECT_EQ(runs_of[t.name + " " + role], 1) << t.name << " " << role << " runs";
  std::cout << "[ restart  ] " << kills << " kills, " << adopted
            << " restarts adopted a live agent, " << runs->size() << " agent runs recorded, "
            << seen.size() << " agents seen alive" << std::endl;
}

// The dispatcher saw the worker end (its locator says succeeded) but died
// before recording the stage as done: the restart finishes the stage from
// the locator instead of running the worker again.
TEST_F(restart, a_worker_whose_end_was_seen_before_a_crash_is_not_run_again) {
  wg::gen_options o;
  o.tasks = 1;
  o.shape = wg::dag_shape::chain;
  o.group_size = 1;
  f_.create(o, json{{"version", 1}}); // competent agents
  if (HasFatalFailure())
    return;
  ::setenv("AD_TEST_CRASH_AT", "after-attempt-end", 1);
  auto& crashed = start(run_args(f_, 1), "crashed");
  ::unsetenv("AD_TEST_CRASH_AT");
  auto code = crashed.wait(120s);
  ASSERT_TRUE(code.has_value()) << crashed.tail();
  ASSERT_EQ(*code, 86) << "no crash at after-attempt-end\n" << crashed.tail();

  auto& resumed = start(run_args(f_, 1), "resumed");
  code = resumed.wait(120s);
  ASSERT_TRUE(code.has_value()) << resumed.tail();
  EXPECT_EQ(*code, 0) << resumed.tail();
  auto runs = agent_sim::read_registry(f_.registry);
  ASSERT_TRUE(runs.is_ok()) << runs.error().message();
  std::map<std::string, int> by_role;
  for (const auto& r : *runs)
    ++by_role[r.role];
  EXPECT_EQ(by_role["worker"], 1) << "the worker ran again after the restart";
  EXPECT_EQ(by_role["review"], 1);
  auto archived = f_.archived_tasks();
  EXPECT_EQ(archived[f_.plan.tasks.front().name], 1);
}

TEST_F(restart, sigint_terminates_every_agent_and_exits_130) {
  wg::gen_options o;
  o.tasks = 6;
  o.shape = wg::dag_shape::chain;
  o.group_size = 1;  // six independent tasks
  f_.create(o, hanging_workers());
  if (HasFatalFailure())
    return;
  auto& run = start(run_args(f_, 4), "sigint");
  // The marker is visible from exec on, but the simulator records a signal
  // only once it has blocked the termination signals, a moment later: the
  // SIGINT waits for four agents that have, as their first line of output
  // shows (it comes after the block), in their keepers' spools (a fixed
  // 300 ms was too short for a sanitized simulator on a busy machine).
  auto ready = [&] {
    reap_orphans();
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(f_.state_home, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      n += it->path().filename() == "stream.log" && std::filesystem::file_size(it->path(), ec) > 0;
    return n >= 4 && scan_live_agents(f_.registry).size() >= 4;
  };
  bool four = false;
  for (auto until = std::chrono::steady_clock::now() + 60s;
       !(four = ready()) && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(four) << "no four live agents ready for a signal\n" << run.tail();
  run.send(SIGINT);
  auto code = run.wait(60s);
  ASSERT_TRUE(code.has_value()) << "no exit 60 s after SIGINT\n" << run.tail();
  EXPECT_EQ(*code, 130) << run.tail();
  auto left = scan_live_agents(f_.registry);
  EXPECT_TRUE(left.empty()) << left.size() << " agents outlived the dispatcher, e.g. "
                            << (left.empty() ? "" : left.front().marker);
  // The simulator records a terminated run with its signal.
  auto runs = agent_sim::read_registry(f_.registry);
  ASSERT_TRUE(runs.is_ok()) << runs.error().message();
  EXPECT_GE(runs->size(), 4u);
  for (const auto& r : *runs)
    EXPECT_FALSE(r.exit_signal.empty()) << r.task << " ended with exit " << r.exit_code;
}

TEST_F(restart, second_dispatcher_exits_3_naming_the_owner_and_status_still_reads) {
  wg::gen_options o;
  o.tasks = 3;
  o.shape = wg::dag_shape::chain;
  o.group_size = 1;
  f_.create(o, hanging_workers());
  if (HasFatalFailure())
    return;
  auto& first = start(run_args(f_, 2), "first");
  ASSERT_TRUE(wait_for_agents(f_, 1, 60s)) << "no live agent\n" << first.tail();

  auto& second = start(run_args(f_, 2), "second");
  auto code = second.wait(60s);
  ASSERT_TRUE(code.has_value()) << second.tail();
  EXPECT_EQ(*code, 3) << second.tail();
  EXPECT_NE((second.out() + second.err()).find(std::to_string(first.pid())), std::string::npos)
      << "the refusal does not name the owner pid " << first.pid() << "\n" << second.tail();
  EXPECT_FALSE(first.wait(0ms).has_value()) << "the first dispatcher stopped\n" << first.tail();

  auto& status = start({"status", "--workspace", f_.workspace.string()}, "status");
  auto status_code = status.wait(60s);
  ASSERT_TRUE(status_code.has_value()) << status.tail();
  EXPECT_EQ(*status_code, 0) << status.tail();
  EXPECT_NE(status.out().find(f_.plan.tasks.front().slug), std::string::npos) << status.tail();

  first.send(SIGINT);
  auto first_code = first.wait(60s);
  ASSERT_TRUE(first_code.has_value()) << first.tail();
  EXPECT_EQ(*first_code, 130) << first.tail();
}

} // namespace
} // namespace ad::test
