#include "runtime/claims/claim_scope.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/claims/claims_fixtures.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

TEST(claim_scope, prefixes_match_whole_components) {
  EXPECT_TRUE(path_at_or_below("/w/a", "/w/a"));
  EXPECT_TRUE(path_at_or_below("/w/a/b", "/w/a"));
  EXPECT_FALSE(path_at_or_below("/w/ab", "/w/a"));
  EXPECT_FALSE(path_at_or_below("/w", "/w/a"));
  EXPECT_FALSE(path_at_or_below("/w/a", ""));
}

TEST(claim_scope, classifies_inside_outside_and_each_exclusion) {
  test::scratch_dir dir;
  fs::path ws = dir.path() / "ws";
  fs::create_directories(ws / ".git");
  fs::create_directories(dir.path() / "claude-home");
  fs::create_symlink(dir.path() / "claude-home", ws / ".claude");
  auto scope = claim_scope::make({ws, ws / ".state", {".codex", ws / ".claude", dir.path() / "pi"}});
  ASSERT_TRUE(scope) << scope.error().to_string();
  const std::string w = ws.string();
  EXPECT_EQ(scope->root(), w);
  EXPECT_EQ(scope->classify(w + "/src/a.cpp"), path_scope::watched);
  EXPECT_EQ(scope->classify(w + "/.gitignore"), path_scope::watched);
  EXPECT_EQ(scope->classify(w + "/.git/index"), path_scope::excluded);
  EXPECT_EQ(scope->classify(w + "/agent-task/g/01_x/PLAN-local-G01.md"), path_scope::excluded);
  EXPECT_EQ(scope->classify(w + "/agent-tasks/x"), path_scope::watched);
  EXPECT_EQ(scope->classify(w + "/.state/runs/x"), path_scope::excluded);
  EXPECT_EQ(scope->classify(w + "/.codex/sessions/a.jsonl"), path_scope::excluded);
  EXPECT_EQ(scope->classify(w + "/.claude"), path_scope::excluded);
  EXPECT_EQ(scope->classify(w), path_scope::excluded);
  EXPECT_EQ(scope->classify(dir.path().string() + "/other/file"), path_scope::outside);
  // The symlinked session folder is excluded where it resolves to as well.
  EXPECT_TRUE(scope->is_excluded((dir.path() / "claude-home/projects/x.jsonl").string()));
  EXPECT_TRUE(scope->excludes_below(w));
  EXPECT_FALSE(scope->excludes_below(w + "/src"));
}

TEST(claim_scope, an_exempt_prefix_at_or_above_the_root_excludes_nothing) {
  test::scratch_dir dir;
  fs::path ws = dir.path() / "ws";
  fs::create_directories(ws);
  fs::create_directory_symlink(ws, ws / ".pi");
  auto scope = claim_scope::make({ws, {}, {".", dir.path(), ".pi"}});
  ASSERT_TRUE(scope) << scope.error().to_string();
  EXPECT_EQ(scope->classify((ws / "src/a.cpp").string()), path_scope::watched);
  EXPECT_EQ(scope->classify((ws / ".pi/x").string()), path_scope::excluded); // the link itself
}

TEST(claim_scope, a_git_file_excludes_its_gitdir_and_commondir) {
  test::scratch_dir dir;
  fs::path ws = dir.path() / "ws";
  fs::path repo = ws / "vendored-repo";
  fs::create_directories(repo / "worktrees/wt");
  test::put_file(repo / "worktrees/wt/commondir", "../..\n");
  test::put_file(ws / ".git", "gitdir: vendored-repo/worktrees/wt\n");
  auto scope = claim_scope::make({ws, {}, {}});
  ASSERT_TRUE(scope) << scope.error().to_string();
  EXPECT_EQ(scope->classify((ws / ".git").string()), path_scope::excluded);
  EXPECT_EQ(scope->classify((repo / "worktrees/wt/HEAD").string()), path_scope::excluded);
  EXPECT_EQ(scope->classify((repo / "objects/ab/cdef").string()), path_scope::excluded);
  EXPECT_EQ(scope->classify((ws / "src/x").string()), path_scope::watched);
}

TEST(claim_scope, a_missing_workspace_is_invalid_argument) {
  auto scope = claim_scope::make({"/nonexistent/agent-dispatch-ws", {}, {}});
  ASSERT_FALSE(scope);
  EXPECT_TRUE(scope.error().is_invalid_argument());
  EXPECT_NE(scope.error().message().find("/nonexistent/agent-dispatch-ws"), std::string::npos);
}

} // namespace
} // namespace ad::runtime
