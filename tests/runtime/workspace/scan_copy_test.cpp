#include "runtime/workspace/scan_copy.hpp"

#include <gtest/gtest.h>

#include "runtime/workspace/dependencies.hpp"
#include "runtime/workspace/workspace_scanner.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

// A copy kept from the scanner's readings answers as the scanner (and the
// folders on disk) do, refresh after refresh.
void expect_same(const workspace_scanner& scanner, const scan_copy& copy, const fs::path& root) {
  ASSERT_EQ(copy.tasks().size(), scanner.tasks().size());
  for (const auto& [name, t] : scanner.tasks()) {
    const auto* c = copy.find(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->directory, t->directory) << name;
    EXPECT_EQ(c->has_complete_log, t->has_complete_log) << name;
  }
  for (const auto* pred : {"01", "02", "03"}) {
    EXPECT_EQ(copy.completed_folders("g", pred), scanner.completed_folders("g", pred)) << pred;
    EXPECT_EQ(copy.completed_folders("g", pred), dependency_candidates(root, "g", pred)) << pred;
  }
}

TEST(scan_copy, follows_the_scanner_through_completions_archives_and_removals) {
  temp_dir ws;
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02+01_b", "src/b.cpp");
  test::write_minimal_task(ws, "h/01_x", "src/x.cpp");
  auto root = ws.path() / "agent-task";
  workspace_scanner scanner(ws.path(), std::nullopt);
  scan_copy copy(root);
  auto step = [&] {
    auto r = scanner.refresh();
    ASSERT_TRUE(r.is_ok());
    copy.apply(scanner.reading(*r));
    expect_same(scanner, copy, root);
  };
  step();
  EXPECT_TRUE(copy.completed_folders("g", "01").empty());

  ws.write("agent-task/g/01_a/complete.log", "done\n"); // completes in place
  step();
  EXPECT_EQ(copy.completed_folders("g", "01").size(), 1u);

  fs::create_directories(root / "archive/2026/11/g");
  fs::rename(root / "g/01_a", root / "archive/2026/11/g/01_a"); // archived
  step();
  EXPECT_EQ(copy.find("g/01_a"), nullptr);
  EXPECT_EQ(copy.completed_folders("g", "01").size(), 1u);

  ws.write("agent-task/archive/2026/12/g/01_again/complete.log", "done\n"); // ambiguous
  step();
  EXPECT_EQ(copy.completed_folders("g", "01").size(), 2u);

  fs::remove_all(root / "h"); // a whole group goes
  step();
  EXPECT_EQ(copy.find("h/01_x"), nullptr);
}

// A copy holds the tasks the scanner read, not copies of them: a run of
// 10,000 tasks keeps each task once (docs/bench.md).
TEST(scan_copy, shares_the_tasks_the_scanner_read) {
  temp_dir ws;
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02+01_b", "src/b.cpp");
  workspace_scanner scanner(ws.path(), std::nullopt);
  scan_copy copy(ws.path() / "agent-task");
  auto first = scanner.refresh();
  ASSERT_TRUE(first.is_ok());
  copy.apply(scanner.reading(*first));
  ASSERT_EQ(copy.tasks().size(), 2u);
  for (const auto& [name, t] : scanner.tasks())
    EXPECT_TRUE(copy.tasks().at(name).shares_with(t)) << name;

  // A task read again is a new value; the copy takes it, and the task that
  // did not change stays shared.
  ws.write("agent-task/g/01_a/complete.log", "done\n");
  auto before = copy.tasks().at("g/02+01_b");
  auto again = scanner.refresh();
  ASSERT_TRUE(again.is_ok());
  copy.apply(scanner.reading(*again));
  EXPECT_TRUE(copy.find("g/01_a")->has_complete_log);
  EXPECT_TRUE(copy.tasks().at("g/01_a").shares_with(scanner.tasks().at("g/01_a")));
  EXPECT_TRUE(copy.tasks().at("g/02+01_b").shares_with(scanner.tasks().at("g/02+01_b")));
  EXPECT_TRUE(before.shares_with(copy.tasks().at("g/02+01_b")));
}

TEST(scan_copy, a_full_reading_replaces_everything) {
  scan_copy copy("/w/agent-task");
  scan_reading first;
  first.full = true;
  scanned_task a;
  a.name = "g/01_a";
  first.tasks = {a};
  first.completed["g"] = {{"00_z", "/w/agent-task/archive/2026/11/g/00_z/complete.log"}};
  copy.apply(first);
  EXPECT_NE(copy.find("g/01_a"), nullptr);
  EXPECT_EQ(copy.completed_folders("g", "00").size(), 1u);
  scan_reading again;
  again.full = true;
  copy.apply(again);
  EXPECT_TRUE(copy.tasks().empty());
  EXPECT_TRUE(copy.completed_folders("g", "00").empty());
}

} // namespace
} // namespace ad::runtime
