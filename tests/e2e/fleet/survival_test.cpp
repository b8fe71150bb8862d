// Agents outlive their dispatcher (docs/restart.md, docs/keeper.md), end to
// end with the simulator:
// - six chatty agents run, the dispatcher is SIGKILLed: every agent goes on
//   writing, the restarted dispatcher adopts each from its keeper, none is
//   started again, and the adopted attempts end with the exit codes and
//   failure classes their agents gave;
// - a keeper SIGKILLed mid-attempt takes its agent's process group with it
//   and the attempt is classified (and retried), not left hanging;
// - a restart with another dispatcher binary (the first one's files gone,
//   as after an upgrade) adopts the agents the first one started.
#include <csignal>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <thread>

#include "runtime/core/json.hpp"
#include "tests/e2e/fleet/fleet_support.hpp"
#include "tools/agent-sim/registry.hpp"

namespace ad::test {
namespace {

using namespace std::chrono_literals;
using runtime::json;
namespace fs = std::filesystem;
namespace wg = workspace_gen;

// `seconds` (simulator seconds) of an event line every `every` seconds.
json chatter(double seconds, double every) {
  return {{"kind", "events"},
          {"count", std::max(1, static_cast<int>(seconds / every))},
          {"interval_seconds", every}};
}

bool process_alive(pid_t pid) {
  reap_orphans();
  return ::kill(pid, 0) == 0;
}

// Every locator.json under the fleet's state home, parsed, by identity.
std::map<std::string, json> read_locators(const fleet& f) {
  std::map<std::string, json> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(f.state_home, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() != "locator.json")
      continue;
    auto doc = runtime::parse_json(read_text(it->path()), it->path().string());
    if (doc.is_ok())
      out[doc->value("identity", it->path().string())] = *doc;
  }
  return out;
}

// The JSON events of a `run --json` output, one per line.
std::vector<json> events_of(const std::string& out) {
  std::vector<json> events;
  size_t pos = 0;
  while (pos < out.size()) {
    auto end = out.find('\n', pos);
    if (end == std::string::npos)
      end = out.size();
    auto doc = runtime::parse_json(out.substr(pos, end - pos), "event");
    if (doc.is_ok())
      events.push_back(*doc);
    pos = end + 1;
  }
  return events;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
    ++n;
  return n;
}

class survival : public ::testing::Test {
protected:
  void TearDown() override { stop_runs_and_agents(runs_, f_); }

  child_run& start(const std::vector<std::string>& args, const std::string& log,
                   const fs::path& program = {}) {
    runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(f_, args, log, program)));
    return *runs_.back();
  }

  // Waits until `count` agents of the fleet are alive; returns them.
  std::vector<live_agent> wait_for_agents(size_t count, std::chrono::milliseconds timeout) {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      reap_orphans();
      auto live = scan_live_agents(f_.registry);
      if (live.size() >= count)
        return live;
      std::this_thread::sleep_for(20ms);
    }
    return {};
  }

  // SIGKILLs `run` and checks that every agent in `live` still runs and
  // writes a moment later (its output had a reader: its keeper).
  void kill_dispatcher(child_run& run, const std::vector<live_agent>& live) {
    run.send(SIGKILL);
    auto code = run.wait(10s);
    ASSERT_TRUE(code.has_value());
    ASSERT_EQ(*code, 128 + SIGKILL) << run.tail();
    std::this_thread::sleep_for(300ms);
    for (const auto& a : live)
      EXPECT_TRUE(process_alive(a.pid)) << "agent " << a.marker << " died with its dispatcher";
  }

  fleet f_;
  std::vector<std::unique_ptr<child_run>> runs_;
};

TEST_F(survival, six_chatty_agents_outlive_a_dispatcher_sigkill_and_finish_their_work) {
  wg::gen_options o;
  o.tasks = 6;
  o.shape = wg::dag_shape::chain;
  o.group_size = 1; // six independent tasks
  auto planned = wg::plan_workspace(o);
  ASSERT_TRUE(planned.is_ok()) << planned.error().message();
  // Workers write a line every 20 ms for 3 s (real time), then: four do
  // their work, one fails with a rate limit, one with exit code 3. The
  // next attempts and the reviews are competent.
  json tasks = json::object();
  for (size_t i = 0; i < planned->tasks.size(); ++i) {
    json end = i == 4   ? json{{"kind", "fail"}, {"failure", "rate_limit"}, {"retry_after_seconds", 1}}
               : i == 5 ? json{{"kind", "fail"}, {"failure", "error"}, {"message", "tool crashed"},
                               {"exit_code", 3}}
                        : json{{"kind", "work"}};
    tasks[planned->tasks[i].name]["worker"]["1"] = json::array({chatter(300, 2), end});
  }
  f_.create(o, json{{"version", 1}, {"tasks", tasks}});
  if (HasFatalFailure())
    return;

  auto& first = start(run_args(f_, 6), "first");
  auto live = wait_for_agents(6, 60s);
  ASSERT_EQ(live.size(), 6u) << first.tail();
  kill_dispatcher(first, live);
  if (HasFatalFailure())
    return;

  auto args = run_args(f_, 6);
  args.push_back("--json");
  auto& second = start(args, "second");
  std::optional<int> code;
  for (auto until = std::chrono::steady_clock::now() + 120s;
       !code && std::chrono::steady_clock::now() < until;) {
    for (const auto& d : duplicate_live_agents(scan_live_agents(f_.registry)))
      ADD_FAILURE() << "two live agents of one task: " << d;
    code = second.wait(10ms);
  }
  ASSERT_TRUE(code.has_value()) << second.tail();
  EXPECT_EQ(*code, 0) << second.tail();

  // Every agent alive at the kill ran to its own end, once.
  auto runs = agent_sim::read_registry(f_.registry);
  ASSERT_TRUE(runs.is_ok()) << runs.error().message();
  std::map<pid_t, agent_sim::run_record> by_pid;
  std::map<std::string, int> workers;
  for (const auto& r : *runs) {
    by_pid[r.pid] = r;
    workers[r.task] += r.role == "worker";
  }
  for (const auto& a : live) {
    auto it = by_pid.find(a.pid);
    ASSERT_TRUE(it != by_pid.end()) << a.marker << " did not finish its run";
    EXPECT_TRUE(it->second.exit_signal.empty()) << a.marker << " " << it->second.exit_signal;
  }
  for (size_t i = 0; i < planned->tasks.size(); ++i)
    EXPECT_EQ(workers[planned->tasks[i].name], i < 4 ? 1 : 2)
        << planned->tasks[i].name << ": a worker started again, or a failure not retried";

  // The adopted attempts' ends, as the second dispatcher reported them:
  // exit codes and classes as their agents ended.
  std::map<std::string, json> adopted_ends; // by task
  std::set<std::string> adopted_ids;
  for (const auto& e : events_of(second.out())) {
    if (e.value("event", "") == "attempt_started" && e.contains("adopted"))
      adopted_ids.insert(e.value("identity", ""));
    if (e.value("event", "") == "attempt_finished" && adopted_ids.count(e.value("identity", "")))
      adopted_ends[e.value("task", "")] = e;
  }
  ASSERT_EQ(adopted_ends.size(), 6u) << second.out();
  for (size_t i = 0; i < planned->tasks.size(); ++i) {
    const auto& e = adopted_ends[planned->tasks[i].name];
    SCOPED_TRACE(e.dump());
    EXPECT_EQ(e.value("role", ""), "worker");
    if (i == 4) {
      EXPECT_EQ(e.value("status", ""), "failed");
      EXPECT_EQ(e.value("failure_class", ""), "provider-quota");
    } else if (i == 5) {
      EXPECT_EQ(e.value("status", ""), "failed");
      EXPECT_EQ(e.value("exit_code", -1), 3);
      EXPECT_EQ(e.value("failure_class", ""), "generic-error");
    } else {
      EXPECT_EQ(e.value("status", ""), "succeeded");
      EXPECT_EQ(e.value("exit_code", -1), 0);
    }
  }
  auto archived = f_.archived_tasks();
  EXPECT_EQ(archived.size(), 6u);

  // Every attempt's usage, as the second dispatcher reported it, counts
  // once in the state's total (the summary is the whole state's).
  auto summed = usage_summarized(second.out());
  ASSERT_FALSE(summed.total.empty()) << "the summary names no usage\n" << second.tail();
  expect_same_usage(summed.total, usage_reported({second.out()}).total, "the run's total");
}

TEST_F(survival, a_keeper_killed_mid_attempt_takes_its_agent_with_it_and_the_attempt_is_classified) {
  wg::gen_options o;
  o.tasks = 1;
  o.shape = wg::dag_shape::chain;
  o.group_size = 1;
  auto planned = wg::plan_workspace(o);
  ASSERT_TRUE(planned.is_ok());
  json tasks;
  tasks[planned->tasks[0].name]["worker"]["1"] = json::array({chatter(6000, 5)});
  f_.create(o, json{{"version", 1}, {"tasks", tasks}});
  if (HasFatalFailure())
    return;
  auto args = run_args(f_, 1);
  args.push_back("--json");
  auto& run = start(args, "run");
  auto live = wait_for_agents(1, 60s);
  ASSERT_EQ(live.size(), 1u) << run.tail();
  // The keeper's pid, from the attempt's locator.
  int64_t keeper = 0;
  for (auto until = std::chrono::steady_clock::now() + 10s;
       keeper == 0 && std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(20ms))
    for (const auto& [identity, loc] : read_locators(f_))
      // null until the keeper's pid is known (a moment on a busy machine)
      if (auto pid = loc.find("keeper_pid"); pid != loc.end() && pid->is_number_integer())
        keeper = pid->get<int64_t>();
  ASSERT_GT(keeper, 0) << "no keeper_pid in the locator";
  ASSERT_EQ(::kill(static_cast<pid_t>(keeper), SIGKILL), 0);

  // The agent dies with its group; the run retries and completes.
  for (auto until = std::chrono::steady_clock::now() + 10s;
       process_alive(live[0].pid) && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(process_alive(live[0].pid)) << "the agent outlived its killed keeper";
  auto code = run.wait(120s);
  ASSERT_TRUE(code.has_value()) << "the run hung after its keeper died\n" << run.tail();
  EXPECT_EQ(*code, 0) << run.tail();
  json first_end;
  for (const auto& e : events_of(run.out()))
    if (e.value("event", "") == "attempt_finished" && first_end.is_null())
      first_end = e;
  ASSERT_FALSE(first_end.is_null()) << run.out();
  EXPECT_EQ(first_end.value("status", ""), "failed") << first_end.dump();
  EXPECT_FALSE(first_end.value("failure_class", "").empty()) << first_end.dump();
  EXPECT_NE(first_end.value("evidence", "").find("keeper"), std::string::npos) << first_end.dump();
  EXPECT_EQ(f_.archived_tasks().size(), 1u);
}

TEST_F(survival, a_restart_with_another_binary_adopts_the_agents_the_first_one_started) {
  wg::gen_options o;
  o.tasks = 2;
  o.shape = wg::dag_shape::chain;
  o.group_size = 1;
  auto planned = wg::plan_workspace(o);
  ASSERT_TRUE(planned.is_ok());
  json tasks = json::object();
  for (const auto& t : planned->tasks)
    tasks[t.name]["worker"]["1"] = json::array({chatter(200, 2), {{"kind", "work"}}});
  f_.create(o, json{{"version", 1}, {"tasks", tasks}});
  if (HasFatalFailure())
    return;
  // The old release: a copy of the dispatcher and its keeper, removed after
  // the kill as a package upgrade replaces its files.
  auto old_dir = f_.dir.path() / "old-release";
  fs::create_directories(old_dir);
  for (const char* name : {"agent-dispatch", "ad-keeper"})
    fs::copy_file(binary_dir() / name, old_dir / name);
  auto& first = start(run_args(f_, 2), "old", old_dir / "agent-dispatch");
  auto live = wait_for_agents(2, 60s);
  ASSERT_EQ(live.size(), 2u) << first.tail();
  kill_dispatcher(first, live);
  if (HasFatalFailure())
    return;
  fs::remove_all(old_dir);

  auto& second = start(run_args(f_, 2), "new");
  auto code = second.wait(120s);
  ASSERT_TRUE(code.has_value()) << second.tail();
  EXPECT_EQ(*code, 0) << second.tail();
  EXPECT_EQ(count_of(second.out(), "adopted from its keeper"), 2u) << second.out();
  auto runs = agent_sim::read_registry(f_.registry);
  ASSERT_TRUE(runs.is_ok());
  std::map<std::string, int> workers;
  for (const auto& r : *runs)
    workers[r.task] += r.role == "worker";
  for (const auto& t : planned->tasks)
    EXPECT_EQ(workers[t.name], 1) << t.name;
  EXPECT_EQ(f_.archived_tasks().size(), 2u);
}

} // namespace
} // namespace ad::test
