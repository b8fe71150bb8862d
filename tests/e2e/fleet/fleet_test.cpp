// End-to-end: a 40-task workspace with dependencies, overlapping write sets and
// one scripted failure of every class runs to completion under
// `agent-dispatch run --max-parallel 4`, and the simulator registry shows the
// scheduling invariants held the whole time.
#include <csignal>
#include <gtest/gtest.h>

#include "tests/e2e/fleet/fleet_support.hpp"
#include "tools/agent-sim/registry.hpp"

namespace ad::test {
namespace {

using namespace std::chrono_literals;
namespace wg = workspace_gen;

constexpr int fleet_parallel = 4;

TEST(fleet, forty_tasks_with_every_failure_class_complete_within_the_invariants) {
  fleet f;
  wg::gen_options o;
  o.tasks = 40;
  o.shape = wg::dag_shape::random;
  o.seed = 7;
  o.group_size = 10;  // four groups: dependencies inside each, parallelism across them
  o.overlap = 0.35;
  o.shared_files = 3;
  auto planned = wg::plan_workspace(o);
  ASSERT_TRUE(planned.is_ok());
  f.create(o, wg::failure_scenario(*planned));
  if (HasFatalFailure())
    return;

  // The generated DAG really has dependencies and shared write-set files.
  int with_deps = 0, sharing = 0;
  for (const auto& t : f.plan.tasks) {
    with_deps += t.deps.empty() ? 0 : 1;
    sharing += t.files.size() > 2 ? 1 : 0;
  }
  EXPECT_GE(with_deps, 20);
  EXPECT_GE(sharing, 6);

  auto run = child_run::start_dispatcher(
      f, {"run", "--workspace", f.workspace.string(), "--max-parallel", std::to_string(fleet_parallel)},
      "run1");
  auto code = run.wait(300s);
  if (!code) {
    run.send(SIGKILL);
    run.wait(10s);
  }
  ASSERT_TRUE(code.has_value()) << "the run did not finish in 300 s\n" << run.tail();
  EXPECT_EQ(*code, 0) << run.tail();

  // Every task is archived exactly once with complete.log.
  auto archived = f.archived_tasks();
  for (const auto& t : f.plan.tasks) {
    auto it = archived.find(t.name);
    EXPECT_TRUE(it != archived.end() && it->second == 1)
        << t.name << " archived " << (it == archived.end() ? 0 : it->second) << " times";
  }

  // The registry: the scripted failures happened, and the invariants held.
  auto runs = agent_sim::read_registry(f.registry);
  ASSERT_TRUE(runs.is_ok()) << runs.error().message();
  int failed = 0;
  for (const auto& r : *runs)
    failed += (r.exit_code != 0 || !r.exit_signal.empty()) ? 1 : 0;
  // Every class except the FAIL verdict ends its run unsuccessfully.
  EXPECT_GE(failed, static_cast<int>(wg::scripted_failure_names().size()) - 1);
  EXPECT_GE(runs->size(), 2 * f.plan.tasks.size());
  for (const auto& v : agent_sim::check_registry(*runs, fleet_parallel))
    ADD_FAILURE() << "registry violation: " << v.message;

  // No agent outlives the run.
  EXPECT_EQ(kill_live_agents(f.registry), 0);

  // A second run finds everything complete.
  auto again = child_run::start_dispatcher(
      f, {"run", "--workspace", f.workspace.string(), "--max-parallel", std::to_string(fleet_parallel)},
      "run2");
  auto code2 = again.wait(60s);
  if (!code2) {
    again.send(SIGKILL);
    again.wait(10s);
  }
  ASSERT_TRUE(code2.has_value()) << again.tail();
  EXPECT_EQ(*code2, 0) << again.tail();
  auto runs_after = agent_sim::read_registry(f.registry);
  ASSERT_TRUE(runs_after.is_ok());
  EXPECT_EQ(runs_after->size(), runs->size()) << "the second run started agents";
}

} // namespace
} // namespace ad::test
