#include "tools/workspace-gen/workspace_gen.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <gtest/gtest.h>
#include <set>

#include "runtime/core/files.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/workspace/task_scan.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/agent-sim/scenario.hpp"

namespace ad::workspace_gen {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

gen_plan planned(int tasks, dag_shape shape, uint64_t seed = 1, int group_size = 99) {
  gen_options o;
  o.tasks = tasks;
  o.shape = shape;
  o.seed = seed;
  o.group_size = group_size;
  auto p = plan_workspace(o);
  EXPECT_TRUE(p.is_ok());
  return p.is_ok() ? *p : gen_plan{};
}

TEST(workspace_gen, chain_uses_few_balanced_groups_of_at_most_99) {
  auto p = planned(1000, dag_shape::chain);
  ASSERT_EQ(p.tasks.size(), 1000u);
  std::map<std::string, int> sizes;
  for (const auto& t : p.tasks) {
    ++sizes[t.group];
    if (t.index == 1)
      EXPECT_TRUE(t.deps.empty()) << t.name;
    else
      EXPECT_EQ(t.deps, std::vector<int>{t.index - 1}) << t.name;
  }
  EXPECT_EQ(sizes.size(), 11u);
  for (const auto& [g, n] : sizes) {
    EXPECT_LE(n, 99) << g;
    EXPECT_GE(n, 90) << g;
  }
  EXPECT_EQ(p.tasks[2].name, "grp01/03+02_t0003");
}

TEST(workspace_gen, fanout_hangs_every_subtask_on_the_first) {
  auto p = planned(150, dag_shape::fanout);
  for (const auto& t : p.tasks)
    EXPECT_EQ(t.deps, t.index == 1 ? std::vector<int>{} : std::vector<int>{1}) << t.name;
}

TEST(workspace_gen, random_dag_is_repeatable_and_points_backwards) {
  auto a = planned(300, dag_shape::random, 42);
  auto b = planned(300, dag_shape::random, 42);
  auto c = planned(300, dag_shape::random, 43);
  std::vector<std::string> na, nb, nc;
  int edges = 0;
  for (size_t i = 0; i < a.tasks.size(); ++i) {
    na.push_back(a.tasks[i].name);
    nb.push_back(b.tasks[i].name);
    nc.push_back(c.tasks[i].name);
    for (int d : a.tasks[i].deps) {
      EXPECT_LT(d, a.tasks[i].index);
      EXPECT_GE(d, 1);
      ++edges;
    }
    EXPECT_LE(a.tasks[i].deps.size(), 3u);
  }
  EXPECT_EQ(na, nb);
  EXPECT_NE(na, nc);
  EXPECT_GT(edges, 200);
}

TEST(workspace_gen, bad_options_are_refused) {
  gen_options o;
  o.tasks = 0;
  EXPECT_TRUE(plan_workspace(o).error().is_invalid_argument());
  o.tasks = 5;
  o.group_size = 100;
  EXPECT_TRUE(plan_workspace(o).error().is_invalid_argument());
  EXPECT_FALSE(dag_shape_from("tree").is_ok());
}

TEST(workspace_gen, written_workspace_scans_clean_with_the_planned_dependencies_and_write_sets) {
  test::temp_dir dir;
  gen_options o;
  o.tasks = 60;
  o.shape = dag_shape::random;
  o.seed = 5;
  o.group_size = 25;
  o.overlap = 0.5;
  auto p = plan_workspace(o);
  ASSERT_TRUE(p.is_ok());
  auto ws = dir.path() / "ws";
  ASSERT_TRUE(write_workspace(*p, ws).is_ok());
  EXPECT_TRUE(write_workspace(*p, ws).is_conflict()) << "a second write must be refused";

  auto scan = runtime::scan_workspace(ws);
  ASSERT_TRUE(scan.is_ok()) << scan.error().message();
  EXPECT_EQ(scan->groups.size(), 3u);
  ASSERT_EQ(scan->tasks.size(), 60u);
  std::map<std::string, const runtime::scanned_task*> by_name;
  for (const auto& t : scan->tasks)
    by_name[t.name] = &t;
  int shared = 0;
  for (const auto& t : p->tasks) {
    auto it = by_name.find(t.name);
    ASSERT_NE(it, by_name.end()) << t.name;
    const auto& s = *it->second;
    EXPECT_TRUE(s.errors.empty()) << t.name << ": " << s.errors.front().message;
    std::vector<int> deps;
    for (const auto& d : s.deps)
      deps.push_back(std::stoi(d));
    EXPECT_EQ(deps, t.deps) << t.name;
    EXPECT_TRUE(s.write_set_known) << t.name;
    EXPECT_EQ(s.write_set.paths.size(), t.files.size()) << t.name;
    ASSERT_TRUE(s.header.has_value()) << t.name;
    EXPECT_FALSE(s.work_unit_id().empty());
    shared += t.files.size() > 2 ? 1 : 0;
  }
  EXPECT_GT(shared, 15);
}

TEST(workspace_gen, ninja_runs_the_same_work_through_the_simulator) {
  test::temp_dir dir;
  auto p = planned(14, dag_shape::random, 3, 7);
  auto ws = dir.path() / "ws";
  ASSERT_TRUE(write_workspace(p, ws).is_ok());
  ninja_options n{ws, test::binary_dir() / "agent-sim", dir.path() / "stamps"};
  auto text = render_ninja(p, n);
  EXPECT_NE(text.find("--as command --role $role --task $task --workspace $ws"), std::string::npos);
  ASSERT_TRUE(runtime::write_file_atomic(dir.path() / "build.ninja", text).is_ok());
  std::string cmd = "cd '" + dir.path().string() + "' && ninja -j4 > ninja.log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir.path() / "ninja.log");
  // Every task was worked on and archived by its PASS review.
  auto scan = runtime::scan_workspace(ws);
  ASSERT_TRUE(scan.is_ok());
  for (const auto& t : scan->tasks)
    EXPECT_TRUE(t.has_complete_log) << t.name << " still active";
  int archived = 0;
  for (const auto& e : fs::recursive_directory_iterator(ws / "agent-task" / "archive"))
    archived += e.path().filename() == "complete.log" ? 1 : 0;
  EXPECT_EQ(archived, 14);
  for (const auto& t : p.tasks)
    EXPECT_TRUE(fs::exists(ws / t.files.front())) << t.files.front();
}

TEST(workspace_gen, failure_scenario_scripts_every_class_on_distinct_tasks) {
  auto p = planned(40, dag_shape::random, 9, 10);
  auto doc = failure_scenario(p);
  auto parsed = agent_sim::parse_scenario(doc);
  ASSERT_TRUE(parsed.is_ok()) << parsed.error().message();
  EXPECT_EQ(parsed->tasks.size(), scripted_failure_names().size());
  std::set<std::string> failures;
  for (const auto& [task, roles] : parsed->tasks)
    for (const auto& [role, script] : roles)
      for (const auto& a : script.by_attempt.at(1))
        if (a.kind == agent_sim::action_kind::fail)
          failures.insert(std::string(agent_sim::to_string(a.failure)) + (a.signal ? "+signal" : ""));
  for (auto want : {"rate_limit", "quota_exceeded", "resource_exhausted", "context_length",
                    "model_unavailable", "connection_refused", "stream_disconnected",
                    "file_exists", "file_not_found", "error", "error+signal", "model_overloaded"})
    EXPECT_TRUE(failures.count(want)) << want;
  // Later attempts fall back to the competent agent.
  const auto& first = *parsed->tasks.begin();
  EXPECT_EQ(agent_sim::select_actions(*parsed, first.first, first.second.begin()->first, 2).size(), 2u);
}

TEST(workspace_gen, fast_policy_is_a_valid_overlay_without_quota_probes) {
  auto merged = runtime::parse_policy_text(runtime::dump_json(fast_policy(1.0)), "fast");
  ASSERT_TRUE(merged.is_ok()) << merged.error().message();
  for (const auto& t : merged->value.targets)
    EXPECT_TRUE(t.quota_probe.empty()) << t.id;
  EXPECT_LT(merged->value.backoff.max_s, 2);
  EXPECT_LT(merged->value.timeouts.quota_cooldown_s, 5);
}

} // namespace
} // namespace ad::workspace_gen
