#include "runtime/workspace/write_set.hpp"

#include <filesystem>
#include <sys/stat.h>
#include <gtest/gtest.h>

#include "tests/runtime/workspace/fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

std::string plan_with_rows(const std::string& rows) {
  return "<!-- task=g/01_x plan=1 tag=t -->\n# PLAN\n\n## Modified Files Summary\n\n"
         "| File | Change |\n|---|---|\n" + rows + "\n## Implementation Checklist\n\n- [ ] x\n";
}

struct write_set_case {
  std::string row;
  write_set_problem problem;
};

class write_set_rules : public ::testing::Test {
protected:
  write_set_rules() {
    ws_.write("src/existing.cpp", "x");
    ws_.write("src/dir/keep.txt", "x");
  }
  write_set_report inspect(const std::string& rows) {
    return inspect_write_set(plan_with_rows(rows), ws_.path(), "PLAN-local-G01.md");
  }
  test::temp_dir ws_;
};

TEST_F(write_set_rules, valid_rows_give_canonical_sorted_paths) {
  auto r = inspect("| `src/existing.cpp:12:3` | edit |\n"
                   "| `src/new.cpp` and `src/new.hpp:7` | add |\n"
                   "| `./src/../src/existing.cpp` | same file again |\n");
  ASSERT_TRUE(r.valid()) << (r.diagnostics.empty() ? "" : r.diagnostics.front().message);
  auto root = ws_.path();
  EXPECT_EQ(r.paths, (std::vector<std::string>{(root / "src/existing.cpp").string(),
                                               (root / "src/new.cpp").string(),
                                               (root / "src/new.hpp").string()}));
}

TEST_F(write_set_rules, each_rejection_has_its_own_diagnostic_naming_the_row) {
  fs::create_symlink("/etc", ws_.path() / "etc_link");
  fs::create_symlink("/nonexistent-dir/file", ws_.path() / "dangling_out");
  ASSERT_EQ(::mkfifo((ws_.path() / "src/pipe").c_str(), 0600), 0);
  const std::vector<write_set_case> cases = {
      {"| no backticks here | x |", write_set_problem::no_path},
      {"| ` ` | x |", write_set_problem::empty_path},
      {"| `:12` | x |", write_set_problem::empty_path},
      {"| `src/<name>.cpp` | x |", write_set_problem::placeholder},
      {"| `src/{name}.cpp` | x |", write_set_problem::placeholder},
      {"| `src/.../x.cpp` | x |", write_set_problem::placeholder},
      {"| `src/tbd.cpp` | x |", write_set_problem::placeholder},
      {"| `src/TODO/x.cpp` | x |", write_set_problem::placeholder},
      {"| `placeholder` | x |", write_set_problem::placeholder},
      {"| `https://example.com/a.cpp` | x |", write_set_problem::url},
      {"| `http://example.com/a.cpp` | x |", write_set_problem::url},
      {"| `src\\win.cpp` | x |", write_set_problem::backslash},
      {"| `src/*.cpp` | x |", write_set_problem::glob},
      {"| `src/a?.cpp` | x |", write_set_problem::glob},
      {"| `src/[ab].cpp` | x |", write_set_problem::glob},
      {"| `src/newdir/` | x |", write_set_problem::directory},
      {"| `src/dir` | x |", write_set_problem::directory},
      {"| `../outside.cpp` | x |", write_set_problem::outside_workspace},
      {"| `/etc/passwd` | x |", write_set_problem::outside_workspace},
      {"| `etc_link/passwd` | x |", write_set_problem::outside_workspace},
      {"| `dangling_out` | x |", write_set_problem::outside_workspace},
      {"| `src/missing/../../..` | x |", write_set_problem::outside_workspace},
      {"| `.` | x |", write_set_problem::workspace_root},
      {"| `src/..` | x |", write_set_problem::workspace_root},
      {"| `.git/config` | x |", write_set_problem::protected_path},
      {"| `.git/hooks/pre-commit` | x |", write_set_problem::protected_path},
      {"| `src/../.git/agent-dispatch/state.json` | x |", write_set_problem::protected_path},
      {"| `agent-task/g/01_x/complete.log` | x |", write_set_problem::protected_path},
      {"| `agent-dispatch.json` | x |", write_set_problem::protected_path},
      {"| `src/pipe` | x |", write_set_problem::not_regular},
  };
  for (const auto& c : cases) {
    auto r = inspect("| `src/existing.cpp` | fine |\n" + c.row + "\n");
    ASSERT_EQ(r.diagnostics.size(), 1u) << c.row;
    const auto& d = r.diagnostics.front();
    EXPECT_EQ(d.problem, c.problem) << c.row << " -> " << d.message;
    // Rows: heading line 4, table header 6, separator 7, first row 8, this row 9.
    EXPECT_EQ(d.line, 9u) << c.row;
    EXPECT_NE(d.message.find("PLAN-local-G01.md:9:"), std::string::npos) << d.message;
    EXPECT_FALSE(r.valid());
    EXPECT_EQ(r.paths.size(), 1u) << "the valid row is still reported";
  }
}

TEST_F(write_set_rules, todo_inside_a_word_is_not_a_placeholder) {
  EXPECT_FALSE(is_placeholder_path("src/todolist.cpp"));
  EXPECT_FALSE(is_placeholder_path("src/mastodon.cpp"));
  EXPECT_TRUE(is_placeholder_path("src/todo_list.cpp"));
  EXPECT_TRUE(is_placeholder_path("TBD"));
}

TEST_F(write_set_rules, section_problems) {
  auto none = inspect_write_set("# PLAN\n\nno table\n", ws_.path(), "P.md");
  ASSERT_EQ(none.diagnostics.size(), 1u);
  EXPECT_EQ(none.diagnostics.front().problem, write_set_problem::no_section);

  auto two = inspect_write_set(plan_with_rows("| `a.cpp` | x |\n") +
                                   "\n## 수정 파일 요약\n\n| `b.cpp` | x |\n",
                               ws_.path(), "P.md");
  ASSERT_EQ(two.diagnostics.size(), 1u);
  EXPECT_EQ(two.diagnostics.front().problem, write_set_problem::several_sections);

  auto empty = inspect("");
  ASSERT_EQ(empty.diagnostics.size(), 1u);
  EXPECT_EQ(empty.diagnostics.front().problem, write_set_problem::no_valid_path);

  // A Korean heading alone is the section.
  auto korean = inspect_write_set("## 수정 파일 요약\n\n| 파일 | 변경 |\n|:-|-:|\n| `k.cpp` | x |\n",
                                  ws_.path(), "P.md");
  EXPECT_TRUE(korean.valid());
  // Rows after the next ## heading are not part of the section; ### is.
  auto bounded = inspect_write_set("## Modified Files Summary\n### Sources\n| `in.cpp` | x |\n"
                                   "## Other\n| `out.cpp` | x |\n",
                                   ws_.path(), "P.md");
  ASSERT_TRUE(bounded.valid());
  EXPECT_EQ(bounded.paths, (std::vector<std::string>{(ws_.path() / "in.cpp").string()}));
}

TEST_F(write_set_rules, symlink_loop_in_a_claim_is_a_diagnostic_not_a_hang) {
  fs::create_symlink("loop_b", ws_.path() / "loop_a");
  fs::create_symlink("loop_a", ws_.path() / "loop_b");
  auto r = inspect("| `loop_a/file.cpp` | x |\n");
  ASSERT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(r.diagnostics.front().problem, write_set_problem::unresolvable);
  EXPECT_NE(r.diagnostics.front().message.find("symlink loop"), std::string::npos);
}

TEST_F(write_set_rules, file_reads_are_capped_and_failures_are_diagnostics) {
  auto big = ws_.path() / "PLAN-local-G01.md";
  {
    std::string text = plan_with_rows("| `a.cpp` | x |\n");
    text.resize(max_plan_bytes + 1, 'x');
    ws_.write("PLAN-local-G01.md", text);
  }
  auto r = inspect_write_set_file(big, ws_.path());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics.front().problem, write_set_problem::unreadable);
  EXPECT_NE(r.diagnostics.front().message.find("limit"), std::string::npos);

  auto missing = inspect_write_set_file(ws_.path() / "nope.md", ws_.path());
  EXPECT_EQ(missing.diagnostics.front().problem, write_set_problem::unreadable);
  // /proc/self/mem is a regular file that read() refuses, even for root.
  fs::create_symlink("/proc/self/mem", ws_.path() / "unreadable.md");
  auto unreadable = inspect_write_set_file(ws_.path() / "unreadable.md", ws_.path());
  EXPECT_EQ(unreadable.diagnostics.front().problem, write_set_problem::unreadable);
}

TEST_F(write_set_rules, non_utf8_bytes_never_crash) {
  auto r = inspect("| `src/\xff\xfe.cpp` | \xc3\x28 |\n| `\x80` | x |\n");
  EXPECT_TRUE(r.valid());
  EXPECT_EQ(r.paths.size(), 2u);
}

// Plans read at one moment (a scan's) share the walks of their paths: what
// the first plan's walk found at a path stands for the second plan, which
// does not look again; alone, the second plan sees the folder made since.
TEST(write_set, plans_given_one_memo_share_their_walks) {
  test::temp_dir dir;
  dir.write("ws/src/keep.txt", "x");
  auto ws = fs::canonical(dir.path() / "ws");
  auto plan = plan_with_rows("| `src/new` | add |");
  path_walk_memo walks;
  auto first = inspect_write_set_in(plan, ws, "PLAN-a.md", &walks);
  ASSERT_TRUE(first.valid());
  fs::create_directory(ws / "src/new");
  auto second = inspect_write_set_in(plan, ws, "PLAN-b.md", &walks);
  EXPECT_TRUE(second.valid());
  EXPECT_EQ(second.paths, first.paths);
  auto alone = inspect_write_set_in(plan, ws, "PLAN-b.md");
  ASSERT_FALSE(alone.valid());
  EXPECT_EQ(alone.diagnostics.front().problem, write_set_problem::directory);
}

TEST(write_set, fixture_plan_claims_paths_inside_the_fixture_workspace) {
  auto ws = fixture("basic");
  auto r = inspect_write_set_file(ws / "agent-task/alpha/02+01_ready/PLAN-local-G05.md", ws);
  ASSERT_TRUE(r.valid());
  auto root = fs::canonical(ws);
  EXPECT_EQ(r.paths, (std::vector<std::string>{(root / "src/app/main.cpp").string(),
                                               (root / "src/app/new_file.cpp").string()}));
  auto bad = inspect_write_set_file(ws / "agent-task/errors/06_bad_write_set/PLAN-local-G05.md", ws);
  ASSERT_FALSE(bad.valid());
  EXPECT_EQ(bad.diagnostics.front().problem, write_set_problem::placeholder);
}

} // namespace
} // namespace ad::runtime
