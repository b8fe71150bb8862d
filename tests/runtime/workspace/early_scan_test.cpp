#include "runtime/workspace/early_scan.hpp"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/workspace/task_scan.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::temp_dir;

std::vector<std::string> names(const workspace_scanner& s) {
  std::vector<std::string> out;
  for (const auto* t : s.ordered())
    out.push_back(t->name);
  return out;
}

TEST(joined_refresh, is_full_when_either_was_and_names_every_change_once_in_order) {
  scan_refresh earlier{true, {"g/01_a", "g/03_c"}};
  scan_refresh later{false, {"g/02_b", "g/03_c", "h/01_x"}};
  auto j = joined_refresh(earlier, later);
  EXPECT_TRUE(j.full);
  EXPECT_EQ(j.changed, (std::vector<std::string>{"g/01_a", "g/02_b", "g/03_c", "h/01_x"}));
  EXPECT_FALSE(joined_refresh({false, {"a/1"}}, {false, {}}).full);
  EXPECT_TRUE(joined_refresh({false, {}}, {true, {}}).full);
}

TEST(early_scan, the_first_refresh_answers_the_scan_begun_at_construction) {
  temp_dir ws;
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02+01_b", "src/b.cpp");
  early_scan scan(ws.path(), std::nullopt);
  auto r = scan.refresh();
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  EXPECT_TRUE(r->full);
  EXPECT_EQ(r->changed, (std::vector<std::string>{"g/01_a", "g/02+01_b"}));
  auto plain = scan_workspace(ws.path());
  ASSERT_TRUE(plain.is_ok());
  std::vector<std::string> plain_names;
  for (const auto& t : plain->tasks)
    plain_names.push_back(t.name);
  EXPECT_EQ(names(scan.scanner()), plain_names);
  EXPECT_EQ(scan.scanner().full_scans(), 1);
  // Later refreshes are the scanner's own: nothing changed, nothing read.
  r = scan.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->full);
  EXPECT_TRUE(r->changed.empty());
}

// The changes a person makes after the early scan, before the first refresh
// (the state is still being read), are in the first refresh's answer along
// with everything the early scan read.
TEST(early_scan, changes_made_after_the_early_scan_are_in_the_first_refresh) {
  temp_dir ws;
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  early_scan scan(ws.path(), std::nullopt);
  std::this_thread::sleep_for(300ms); // two folders: the early scan is long done
  test::write_minimal_task(ws, "g/03_c", "src/c.cpp");
  ws.write("agent-task/g/01_a/USER_REVIEW.md", "# USER_REVIEW\n");
  fs::remove_all(ws.path() / "agent-task/g/02_b");
  auto r = scan.refresh();
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  EXPECT_TRUE(r->full);
  EXPECT_EQ(r->changed, (std::vector<std::string>{"g/01_a", "g/02_b", "g/03_c"}));
  EXPECT_EQ(names(scan.scanner()), (std::vector<std::string>{"g/01_a", "g/03_c"}));
  ASSERT_NE(scan.scanner().find("g/01_a"), nullptr);
  EXPECT_TRUE(scan.scanner().find("g/01_a")->user_review.has_value());
  EXPECT_EQ(scan.scanner().full_scans(), 1);
}

TEST(early_scan, a_failed_early_scan_is_tried_again_by_the_first_refresh) {
  temp_dir ws;
  {
    early_scan scan(ws.path(), std::nullopt);
    auto r = scan.refresh();
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.error().is_not_found()) << r.error().message();
    EXPECT_NE(r.error().message().find("no agent-task/ folder"), std::string::npos);
  }
  early_scan scan(ws.path(), std::nullopt);
  std::this_thread::sleep_for(100ms);
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  auto r = scan.refresh();
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  EXPECT_TRUE(r->full);
  EXPECT_EQ(r->changed, std::vector<std::string>{"g/01_a"});
}

TEST(early_scan, a_bad_task_group_is_the_first_refresh_error) {
  temp_dir ws;
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  early_scan scan(ws.path(), std::string("archive"));
  auto r = scan.refresh();
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("bad task group 'archive'"), std::string::npos)
    << r.error().message();
}

} // namespace
} // namespace ad::runtime
