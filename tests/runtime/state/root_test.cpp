#include "runtime/state/root.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/core/hash.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/journal.hpp"
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

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

// check_state_root: fresh only where no durable state ever was.
class state_root_check : public ::testing::Test {
protected:
  void SetUp() override { root_ = dir_.path() / "root"; }

  // An existing state: a journal with one entry and its mark.
  void make_state() {
    fs::create_directories(dir_.path() / "ws");
    auto id = identify_workspace(dir_.path() / "ws");
    ASSERT_TRUE(id);
    auto store = durable_store::open(root_, *id, posix_file_layer());
    ASSERT_TRUE(store) << store.error().to_string();
    ASSERT_TRUE((*store)->commit({{begin_work_unit{"g/01_a", "wu"}}}));
  }

  ::testing::AssertionResult damaged(const std::string& needle) {
    auto kind = check_state_root(root_);
    if (kind)
      return ::testing::AssertionFailure() << "accepted as "
                                           << (*kind == state_root_kind::fresh ? "fresh" : "existing");
    const auto msg = kind.error().message();
    if (msg.find(needle) == std::string::npos || msg.find(std::string(state_root_fix)) == std::string::npos)
      return ::testing::AssertionFailure() << msg;
    return ::testing::AssertionSuccess();
  }

  ad::test::temp_dir dir_;
  fs::path root_;
};

TEST_F(state_root_check, a_new_workspace_is_fresh_and_a_written_one_exists) {
  EXPECT_EQ(*check_state_root(root_), state_root_kind::fresh);
  // What a run leaves before its first entry: a lock, logs, an empty runs/.
  fs::create_directories(root_ / "logs");
  fs::create_directories(root_ / "runs");
  dir_.write("root/lock", "");
  dir_.write("root/journal.mark", encode_mark(0));
  EXPECT_EQ(*check_state_root(root_), state_root_kind::fresh);
  fs::remove_all(root_);
  make_state();
  EXPECT_EQ(*check_state_root(root_), state_root_kind::existing);
}

TEST_F(state_root_check, a_lost_journal_is_damage_not_a_new_state) {
  make_state();
  fs::remove(root_ / journal_file_name);
  EXPECT_TRUE(damaged("records that entry 1 was durable"));
  dir_.write("root/journal.mark", "garbage");
  EXPECT_TRUE(damaged("journal mark " + (root_ / mark_file_name).string() + " beside it is damaged"));
  fs::remove(root_ / mark_file_name);
  dir_.write("root/runs/20270101T000000Z__g_01_a__worker__a01/locator.json", "{}");
  EXPECT_TRUE(damaged("holds attempts of earlier runs"));
  fs::remove_all(root_ / "runs");
  dir_.write("root/state.json", "{}");
  EXPECT_TRUE(damaged("is missing but the snapshot"));
  fs::remove(root_ / snapshot_file_name);
  fs::create_symlink(root_ / "elsewhere.log", root_ / journal_file_name);
  EXPECT_TRUE(damaged((root_ / journal_file_name).string() + " is a symlink to a file that does not exist"));
}

TEST_F(state_root_check, state_files_must_be_regular_files) {
  make_state();
  fs::remove(root_ / journal_file_name);
  fs::create_directories(root_ / journal_file_name);
  EXPECT_TRUE(damaged("journal.log is a directory, expected a regular file"));
  fs::remove(root_ / journal_file_name);
  ASSERT_EQ(::mkfifo((root_ / journal_file_name).c_str(), 0644), 0);
  EXPECT_TRUE(damaged("journal.log is a FIFO, expected a regular file"));
  fs::remove(root_ / journal_file_name);
  fs::create_symlink("/nowhere/state.json", root_ / snapshot_file_name);
  EXPECT_TRUE(damaged("state snapshot " + (root_ / snapshot_file_name).string() + " is a symlink"));
}

TEST_F(state_root_check, a_root_that_is_no_folder_or_lies_in_proc_is_damaged) {
  dir_.write("root", "a file");
  EXPECT_TRUE(damaged("the state root " + root_.string() + " is a regular file, not a folder"));
  fs::remove(root_);
  fs::create_symlink(dir_.path() / "gone", root_);
  EXPECT_TRUE(damaged("is a symlink to " + (dir_.path() / "gone").string() + ", which does not exist"));
  fs::remove(root_);
  fs::create_symlink("/proc", root_);
  EXPECT_TRUE(damaged("resolves to /proc, inside the kernel's /proc file system"));
  fs::remove(root_);
  fs::create_symlink("/sys/kernel", root_);
  EXPECT_TRUE(damaged("inside the kernel's /sys file system"));
  fs::remove(root_);
  ASSERT_EQ(::mkfifo(root_.c_str(), 0644), 0);
  EXPECT_TRUE(damaged("is a FIFO, not a folder"));
}

TEST_F(state_root_check, open_state_root_resolves_then_checks) {
  fs::create_directories(dir_.path() / "ws" / ".git");
  auto id = identify_workspace(dir_.path() / "ws");
  ASSERT_TRUE(id);
  auto fresh = open_state_root(*id, {});
  ASSERT_TRUE(fresh) << fresh.error().to_string();
  EXPECT_EQ(fresh->path, dir_.path() / "ws" / ".git" / "agent-dispatch");
  EXPECT_EQ(fresh->kind, state_root_kind::fresh);
  dir_.write("ws/.git/agent-dispatch", "");
  EXPECT_FALSE(open_state_root(*id, {}));
}

} // namespace
} // namespace ad::runtime
