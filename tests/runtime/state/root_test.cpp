#include "runtime/state/root.hpp"

#include <gtest/gtest.h>

#include "runtime/core/hash.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

TEST(state_root, identity_is_canonical_path_and_sha_prefix) {
  ad::test::temp_dir dir;
  fs::create_directories(dir.path() / "ws");
  auto id = identify_workspace(dir.path() / "ws" / ".." / "ws");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->path, (dir.path() / "ws").string());
  EXPECT_EQ(id->id, sha256_hex(id->path).substr(0, 16));
  EXPECT_FALSE(identify_workspace(dir.path() / "missing"));
}

TEST(state_root, git_directory_holds_the_state) {
  ad::test::temp_dir dir;
  fs::create_directories(dir.path() / "ws" / ".git");
  auto id = identify_workspace(dir.path() / "ws");
  auto root = resolve_state_root(*id, {"/xdg", "/home/u"});
  ASSERT_TRUE(root);
  EXPECT_EQ(*root, dir.path() / "ws" / ".git" / "agent-dispatch");
}

TEST(state_root, git_file_is_followed_relative_and_absolute) {
  ad::test::temp_dir dir;
  fs::create_directories(dir.path() / "repo" / ".git" / "worktrees" / "ws");
  dir.write("ws/.git", "gitdir: ../repo/.git/worktrees/ws\n");
  auto id = identify_workspace(dir.path() / "ws");
  auto root = resolve_state_root(*id, {});
  ASSERT_TRUE(root) << root.error().to_string();
  EXPECT_EQ(*root, dir.path() / "repo" / ".git" / "worktrees" / "ws" / "agent-dispatch");

  dir.write("ws/.git", "gitdir: " + (dir.path() / "repo" / ".git").string() + "\n");
  auto abs = resolve_state_root(*id, {});
  ASSERT_TRUE(abs);
  EXPECT_EQ(*abs, dir.path() / "repo" / ".git" / "agent-dispatch");
}

TEST(state_root, malformed_git_file_is_an_error_naming_it) {
  ad::test::temp_dir dir;
  dir.write("ws/.git", "something else\n");
  auto id = identify_workspace(dir.path() / "ws");
  auto root = resolve_state_root(*id, {"/xdg", "/home/u"});
  ASSERT_FALSE(root);
  EXPECT_NE(root.error().message().find(".git"), std::string::npos);
  dir.write("ws/.git", "gitdir: /does/not/exist\n");
  EXPECT_FALSE(resolve_state_root(*id, {"/xdg", "/home/u"}));
}

TEST(state_root, xdg_state_home_then_home_default) {
  ad::test::temp_dir dir;
  fs::create_directories(dir.path() / "ws");
  auto id = identify_workspace(dir.path() / "ws");
  EXPECT_EQ(*resolve_state_root(*id, {"/xdg", "/home/u"}), fs::path("/xdg/agent-dispatch") / id->id);
  EXPECT_EQ(*resolve_state_root(*id, {"", "/home/u"}),
            fs::path("/home/u/.local/state/agent-dispatch") / id->id);
  // A relative XDG_STATE_HOME is ignored, as the XDG spec asks.
  EXPECT_EQ(*resolve_state_root(*id, {"rel", "/home/u"}),
            fs::path("/home/u/.local/state/agent-dispatch") / id->id);
  EXPECT_FALSE(resolve_state_root(*id, {"", ""}));
}

TEST(state_root, identity_mismatch_names_both) {
  workspace_identity a{"/w/a", "1111"}, b{"/w/b", "2222"};
  EXPECT_TRUE(check_workspace_identity(a, a, "/s/state.json"));
  auto st = check_workspace_identity(a, b, "/s/state.json");
  ASSERT_FALSE(st);
  for (const char* part : {"/w/a", "1111", "/w/b", "2222", "/s/state.json"})
    EXPECT_NE(st.message().find(part), std::string::npos) << part;
}

} // namespace
} // namespace ad::runtime
