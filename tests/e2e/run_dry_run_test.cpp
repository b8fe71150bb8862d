// End-to-end: `agent-dispatch run --dry-run` on fixture, demo and broken workspaces.
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

#include "runtime/core/json.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_lines.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;
using runtime::json;

fs::path basic_fixture() { return source_dir() / "tests/fixtures/workspace/basic"; }

// Every file under dir with its size and mtime, to prove nothing was written.
std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> snapshot(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    out[e.path().string()] = {e.is_regular_file() ? e.file_size() : 0, e.last_write_time()};
  return out;
}

TEST(run_dry_run, text_report_on_the_fixture_workspace) {
  auto before = snapshot(basic_fixture());
  auto r = run_binary(agent_dispatch(), {"run", "--dry-run", "--workspace", basic_fixture().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "ready       alpha/02+01_ready")) << r.out;
  EXPECT_TRUE(contains(r.out, "stage=review route=recovery")) << r.out;
  EXPECT_TRUE(contains(r.out, "user-review stages/05_user_review")) << r.out;
  EXPECT_TRUE(contains(r.out, "summary: 25 tasks: 5 ready")) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(snapshot(basic_fixture()), before) << "the dry run wrote something";
}

TEST(run_dry_run, json_lines_parse_and_end_with_a_summary) {
  auto r = run_binary(agent_dispatch(),
                      {"run", "--dry-run", "--json", "--workspace", basic_fixture().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 26u);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["event"], "task");
    for (const char* key : {"task", "stage", "route", "status", "reason", "dependency"})
      EXPECT_TRUE(lines[i].contains(key)) << key << " in " << lines[i].dump();
  }
  const auto& summary = lines.back();
  EXPECT_EQ(summary["event"], "summary");
  EXPECT_EQ(summary["exit_code"], 0);
  EXPECT_EQ(summary["tasks"], 25);
  EXPECT_EQ(summary["ready"], 5);
  EXPECT_EQ(summary["complete"], 2);
}

TEST(run_dry_run, task_group_filter) {
  auto r = run_binary(agent_dispatch(), {"run", "--dry-run", "--json", "--task-group", "stages",
                                         "--workspace", basic_fixture().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 6u);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i)
    EXPECT_EQ(lines[i]["task"].get<std::string>().rfind("stages/", 0), 0u);

  auto unknown = run_binary(agent_dispatch(), {"run", "--dry-run", "--task-group", "nope",
                                               "--workspace", basic_fixture().string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.out, "task group 'nope' has no active task")) << unknown.out;

  auto archive = run_binary(agent_dispatch(), {"run", "--dry-run", "--task-group", "archive",
                                               "--workspace", basic_fixture().string()});
  EXPECT_EQ(archive.exit_code, 2);
  EXPECT_TRUE(contains(archive.err, "bad task group")) << archive.err;
}

TEST(run_dry_run, empty_and_missing_workspaces) {
  temp_dir dir;
  auto no_agent_task = run_binary(agent_dispatch(), {"run", "--dry-run", "--workspace", dir.path().string()});
  EXPECT_EQ(no_agent_task.exit_code, 2);
  EXPECT_TRUE(contains(no_agent_task.err, "no agent-task/ folder")) << no_agent_task.err;

  auto missing = run_binary(agent_dispatch(),
                            {"run", "--dry-run", "--workspace", (dir.path() / "gone").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "not a folder")) << missing.err;

  fs::create_directories(dir.path() / "agent-task");
  auto empty = run_binary(agent_dispatch(), {"run", "--dry-run", "--json"}, dir.path().string());
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  auto lines = json_lines(empty.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["tasks"], 0);
  EXPECT_TRUE(contains(lines[0]["message"].get<std::string>(), "no tasks"));
}

TEST(run_dry_run, nothing_runnable_exits_2_and_symlink_loops_are_reported) {
  temp_dir dir;
  dir.write("agent-task/g/01_x/PLAN-local-G01.md", "no identity header\n");
  dir.write("agent-task/g/01_x/CODE_REVIEW-local-G01.md", "review\n");
  fs::create_symlink("loop", dir.path() / "agent-task/g/loop");
  fs::create_symlink("agent-task", dir.path() / "agent-task/g/up");  // dangling: ignored
  auto r = run_binary(agent_dispatch(), {"run", "--dry-run", "--workspace", dir.path().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.out, "blocked     g/01_x")) << r.out;
  EXPECT_TRUE(contains(r.out, "no identity header")) << r.out;
  EXPECT_TRUE(contains(r.err, "warning: skipped")) << r.err;
  EXPECT_TRUE(contains(r.err, "symlink loop")) << r.err;
}

TEST(run_dry_run, demo_workspace_has_ready_tasks) {
  temp_dir dir;
  auto ws = dir.path() / "demo";
  auto gen = run_binary((binary_dir() / "ad-demo-gen").string(), {ws.string()});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  auto again = run_binary((binary_dir() / "ad-demo-gen").string(), {ws.string()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(contains(again.err, "--fresh")) << again.err;
  auto fresh = run_binary((binary_dir() / "ad-demo-gen").string(), {ws.string(), "--fresh"});
  EXPECT_EQ(fresh.exit_code, 0) << fresh.err;

  auto r = run_binary(agent_dispatch(), {"run", "--dry-run", "--json", "--workspace", ws.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_FALSE(lines.empty());
  const auto& summary = lines.back();
  EXPECT_EQ(summary["ready"], 5);
  EXPECT_EQ(summary["user_review"], 1);
  EXPECT_EQ(summary["blocked"], 1);
  EXPECT_EQ(summary["complete"], 1);
  EXPECT_EQ(summary["tasks"], 14);
}

} // namespace
} // namespace ad::test
