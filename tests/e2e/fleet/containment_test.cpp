// An agent's processes end with its attempt, end to end (docs/keeper.md,
// "Containment"): a `command` worker starts `sleep 300 &`, `setsid sleep
// 301 &` and `setsid sleep 302 >/dev/null 2>&1 </dev/null &`, waits for a
// file the test creates, then does its work (the simulator) and exits. All
// three are gone within a second of the agent's end, the work log names
// each with a KILL row, and the run completes; with the cgroup where this
// machine has a writable cgroup v2 hierarchy and with the fallback
// (AD_KEEPER_CONTAINMENT=subreaper in the dispatcher's environment, which
// its keepers inherit), each without and with a dispatcher SIGKILL while the
// agent runs and the adoption of the attempt by a restarted dispatcher.
// Before containment the three outlived the attempt and the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "runtime/core/files.hpp"
#include "runtime/keeper/containment.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "runtime/worklog/work_log.hpp"
#include "tests/e2e/fleet/fleet_support.hpp"

namespace ad::test {
namespace {

using namespace std::chrono_literals;
using runtime::json;
namespace fs = std::filesystem;
namespace wg = workspace_gen;
using clock_type = std::chrono::steady_clock;

// The worker: the three children, then (once the release file exists) the
// simulator's worker run in its place.
const char* leaky_script =
  "sleep 300 & setsid sleep 301 & setsid sleep 302 >/dev/null 2>&1 </dev/null & "
  "while [ ! -e \"$LEAKY_RELEASE\" ]; do sleep 0.02; done; "
  "exec \"$LEAKY_SIM\" --as command --task \"$1\" --role worker --workspace \"$2\" "
  "--scenario \"$AGENT_SIM_SCENARIO\"";

bool is_child(const std::string& cmdline) {
  return cmdline == "sleep 300" || cmdline == "sleep 301" || cmdline == "sleep 302";
}

// When each marked process of the fleet was seen alive, sampled every few ms.
struct process_watch {
  struct seen_process {
    std::string marker, cmdline;
    clock_type::time_point first, last;
  };
  std::map<pid_t, seen_process> seen;

  void sample(const fleet& f) {
    reap_orphans();
    auto now = clock_type::now();
    for (auto& p : scan_marked_processes(f.registry)) {
      auto [it, fresh] = seen.try_emplace(p.pid, seen_process{p.marker, p.cmdline, now, now});
      it->second.last = now;
      if (!is_child(it->second.cmdline) && !p.cmdline.empty())
        it->second.cmdline = p.cmdline; // the agent's sh becomes the simulator
    }
  }
  int children_alive(const fleet& f) {
    int n = 0;
    for (const auto& p : scan_marked_processes(f.registry))
      n += is_child(p.cmdline);
    return n;
  }
};

class containment : public ::testing::Test {
protected:
  void TearDown() override {
    ::unsetenv("AD_KEEPER_CONTAINMENT");
    stop_runs_and_agents(runs_, f_);
  }

  void create() {
    wg::gen_options o;
    o.tasks = 1;
    o.shape = wg::dag_shape::chain;
    o.group_size = 1;
    f_.create(o, json{{"version", 1}});
    if (::testing::Test::HasFatalFailure())
      return;
    release_ = f_.dir.path() / "release";
    auto policy = wg::fast_policy(1.0);
    policy["targets"].push_back(
      {{"id", "leaky"},
       {"adapter", "command"},
       {"model", "sleeper"},
       {"execution_class", "cloud_model"},
       {"argv", {"/bin/sh", "-c", leaky_script, "leaky", "{task}", "{workspace}"}},
       {"env", {{"LEAKY_RELEASE", release_.string()}, {"LEAKY_SIM", (binary_dir() / "agent-sim").string()}}}});
    policy["rules"] = json::array({{{"id", "leaky-workers"},
                                    {"stage", "worker"},
                                    {"lanes", {"local", "cloud"}},
                                    {"grades", {1, 10}},
                                    {"candidates", {"leaky"}}}});
    ASSERT_TRUE(runtime::write_file_atomic(f_.workspace / "agent-dispatch.json", runtime::dump_json(policy, 2),
                                           runtime::durability::buffered)
                  .is_ok());
  }

  child_run& start(const std::string& log) {
    runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(
      f_, {"run", "--workspace", f_.workspace.string(), "--json"}, log)));
    return *runs_.back();
  }

  // Samples until cond() or the timeout; false at the timeout.
  template <class F>
  bool watch_until(F cond, std::chrono::milliseconds timeout) {
    auto until = clock_type::now() + timeout;
    while (clock_type::now() < until) {
      watch_.sample(f_);
      if (cond())
        return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }

  // The mechanism the worker's keeper uses, as its keeper.json says (read
  // while the attempt runs: a completed task's attempt folders go).
  void check_mechanism() {
    std::string marker;
    for (const auto& p : scan_marked_processes(f_.registry))
      if (is_child(p.cmdline))
        marker = p.marker;
    ASSERT_FALSE(marker.empty()) << "the children are gone";
    const char* forced = std::getenv("AD_KEEPER_CONTAINMENT");
    auto expected = forced != nullptr || !runtime::writable_cgroup2_parent().is_ok()
                      ? runtime::containment_kind::subreaper
                      : runtime::containment_kind::cgroup;
    // The keeper writes keeper.json once the agent runs, which may be after
    // the agent's children started.
    std::optional<runtime::keeper_record> found;
    for (auto until = clock_type::now() + 30s; !found && clock_type::now() < until;
         std::this_thread::sleep_for(5ms)) {
      std::error_code ec;
      for (auto it = fs::recursive_directory_iterator(f_.state_home, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->path().filename() == "keeper.json")
          if (auto rec = runtime::read_keeper_record(it->path().parent_path());
              rec.is_ok() && rec->marker == marker)
            found = *rec;
    }
    ASSERT_TRUE(found.has_value()) << "no keeper.json of the worker";
    EXPECT_EQ(found->containment, expected);
    EXPECT_EQ(found->cgroup.empty(), expected == runtime::containment_kind::subreaper);
  }

  void run_case(const std::string& label, bool kill_dispatcher) {
    SCOPED_TRACE(label);
    create();
    ASSERT_FALSE(HasFatalFailure());
    auto* run = &start("first");
    ASSERT_TRUE(watch_until([&] { return watch_.children_alive(f_) == 3; }, 60s))
      << "the worker's three children never ran\n" << run->tail();
    check_mechanism();
    ASSERT_FALSE(HasFatalFailure());
    if (kill_dispatcher) {
      run->send(SIGKILL);
      ASSERT_TRUE(run->wait(10s).has_value());
      run = &start("adopting");
      // The restarted dispatcher adopts the attempt before the agent ends.
      ASSERT_TRUE(watch_until([&] { return run->out().find("\"adopted\"") != std::string::npos; }, 60s))
        << "no adoption\n" << run->tail();
      ASSERT_EQ(watch_.children_alive(f_), 3) << "the children died with the dispatcher";
    }
    ASSERT_TRUE(runtime::write_file_atomic(release_, "go").is_ok());
    std::optional<int> code;
    ASSERT_TRUE(watch_until([&] { return (code = run->wait(0ms)).has_value(); }, 120s)) << run->tail();
    EXPECT_EQ(*code, 0) << run->tail();
    watch_.sample(f_);

    // The worker's agent: the sh that became the simulator, with the
    // children's marker.
    std::string worker_marker;
    for (const auto& [pid, p] : watch_.seen)
      if (is_child(p.cmdline))
        worker_marker = p.marker;
    ASSERT_FALSE(worker_marker.empty());
    clock_type::time_point agent_end{};
    int children = 0;
    // The sh that becomes the simulator (its pid stays), seen as either;
    // not the children, nor the `sleep 0.02` of its wait.
    for (const auto& [pid, p] : watch_.seen)
      if (p.marker == worker_marker && !is_child(p.cmdline) && !p.cmdline.starts_with("sleep "))
        agent_end = std::max(agent_end, p.last);
    ASSERT_NE(agent_end, clock_type::time_point{}) << "the worker's agent was never seen";
    int64_t slowest = 0;
    for (const auto& [pid, p] : watch_.seen) {
      if (!is_child(p.cmdline))
        continue;
      ++children;
      auto after = std::chrono::duration_cast<std::chrono::milliseconds>(p.last - agent_end).count();
      slowest = std::max<int64_t>(slowest, after);
      EXPECT_LT(after, 1000) << p.cmdline << " (pid " << pid << ") lived " << after
                             << " ms past the agent's end";
    }
    EXPECT_EQ(children, 3);
    EXPECT_TRUE(scan_marked_processes(f_.registry).empty()) << "processes outlived the run";
    std::printf("[ containment ] %s: the agent's three children gone at most %lld ms after its end\n",
                label.c_str(), static_cast<long long>(slowest));

    // The work log names each process the keeper had to end.
    int kills = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(f_.workspace / "agent-task" / "archive", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->path().filename().string().starts_with("work_log_"))
        for (const auto& row : runtime::parse_work_log(runtime::read_file(it->path()).value()).rows)
          if (row.event == "KILL" && row.result.starts_with("sleep (pid ") && row.role == "worker")
            ++kills;
    EXPECT_EQ(kills, 3) << "KILL rows in the archived work log";

  }

  fleet f_;
  fs::path release_;
  process_watch watch_;
  std::vector<std::unique_ptr<child_run>> runs_;
};

// Without a setting the keeper uses a cgroup where this machine has a
// writable cgroup v2 hierarchy (here it has), else the fallback.
TEST_F(containment, the_agents_children_end_with_its_attempt) {
  run_case("automatic", false);
}

TEST_F(containment, the_agents_children_end_with_its_attempt_after_a_dispatcher_sigkill_and_adoption) {
  run_case("automatic, dispatcher SIGKILL and adoption", true);
}

TEST_F(containment, the_agents_children_end_with_its_attempt_with_the_fallback) {
  ::setenv("AD_KEEPER_CONTAINMENT", "subreaper", 1);
  run_case("fallback", false);
}

TEST_F(containment, the_agents_children_end_with_its_attempt_with_the_fallback_after_a_sigkill_and_adoption) {
  ::setenv("AD_KEEPER_CONTAINMENT", "subreaper", 1);
  run_case("fallback, dispatcher SIGKILL and adoption", true);
}

} // namespace
} // namespace ad::test
