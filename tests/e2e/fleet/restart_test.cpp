// End-to-end restart safety and shutdown (SPEC sections 8 and 10):
// - SIGKILL the dispatcher at random moments of a long run and restart it each
//   time: never two live agents of one task (marker scan of /proc while it
//   runs, and the registry afterwards), no lost or repeated completion, and the
//   run completes. 10 kills by default; AD_RESTART_SOAK=<n> runs n (e.g. 200).
// - SIGINT terminates every agent and exits 130.
// - A second dispatcher on the same workspace exits 3 naming the owner, and
//   `status` reads the state while the first one runs.
#include <csignal>
#include <cstdlib>
#include <gtest/gtest.h>
#include <memory>
#include <random>

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

std::vector<std::string> run_args(const fleet& f, int max_parallel) {
  return {"run", "--workspace", f.workspace.string(), "--max-parallel", std::to_string(max_parallel)};
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

TEST_F(restart, sigint_terminates_every_agent_and_exits_130) {
  wg::gen_options o;
  o.tasks = 6;
  o.shape = wg::dag_shape::chain;
  o.group_size = 1;  // six independent tasks
  f_.create(o, hanging_workers());
  if (HasFatalFailure())
    return;
  auto& run = start(run_args(f_, 4), "sigint");
  ASSERT_TRUE(wait_for_agents(f_, 4, 60s)) << "no four live agents\n" << run.tail();
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
