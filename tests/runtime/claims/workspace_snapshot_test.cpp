#include "runtime/claims/workspace_snapshot.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/runtime/claims/claims_fixtures.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

class snapshot_case : public ::testing::Test {
protected:
  snapshot_case() : ws_(dir_.path() / "ws") { fs::create_directories(ws_); }

  claim_scope scope(std::vector<fs::path> exempt = {}) {
    auto s = claim_scope::make({ws_, ws_ / ".state", std::move(exempt)});
    EXPECT_TRUE(s) << s.error().to_string();
    return s ? *s : claim_scope{};
  }
  workspace_snapshot snap(const claim_scope& s, snapshot_limits limits = {}) {
    auto r = take_snapshot(s, limits);
    EXPECT_TRUE(r) << r.error().to_string();
    return r ? *r : workspace_snapshot{};
  }
  std::string at(const std::string& rel) const { return (ws_ / rel).string(); }
  // Moves a file's mtime one second forward: a rewrite within one
  // timestamp tick would otherwise keep it.
  void bump_mtime(const std::string& rel) {
    struct stat st {};
    ASSERT_EQ(::stat(at(rel).c_str(), &st), 0);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    times[1].tv_sec += 1;
    ASSERT_EQ(::utimensat(AT_FDCWD, at(rel).c_str(), times, 0), 0);
  }

  test::scratch_dir dir_;
  fs::path ws_;
};

std::vector<std::pair<std::string, change_kind>> kinds(const snapshot_diff& d) {
  std::vector<std::pair<std::string, change_kind>> out;
  for (const auto& c : d.changes)
    out.emplace_back(c.path, c.kind);
  return out;
}

TEST_F(snapshot_case, records_files_and_symlinks_with_their_stamps) {
  test::put_file(ws_ / "src/a.cpp", "abc");
  fs::create_symlink("a.cpp", ws_ / "src/link");
  ASSERT_EQ(::mkfifo(at("src/pipe").c_str(), 0600), 0);
  auto s = snap(scope());
  ASSERT_EQ(s.entries.size(), 2u);
  EXPECT_EQ(s.root, ws_.string());
  EXPECT_EQ(s.entries[0].path, at("src/a.cpp"));
  EXPECT_EQ(s.entries[0].stamp.kind, entry_kind::regular);
  EXPECT_EQ(s.entries[0].stamp.size, 3);
  struct stat st {};
  ASSERT_EQ(::stat(at("src/a.cpp").c_str(), &st), 0);
  EXPECT_EQ(s.entries[0].stamp.inode, st.st_ino);
  EXPECT_EQ(s.entries[0].stamp.mtime_ns, st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec);
  EXPECT_EQ(s.entries[1].path, at("src/link"));
  EXPECT_EQ(s.entries[1].stamp.kind, entry_kind::symlink);
  EXPECT_TRUE(s.unreadable.empty());
}

TEST_F(snapshot_case, diff_reports_created_modified_deleted_renamed_and_type_changed) {
  test::put_file(ws_ / "keep.txt", "same");
  test::put_file(ws_ / "edit.txt", "1234");
  test::put_file(ws_ / "gone.txt", "x");
  test::put_file(ws_ / "old/name.txt", "r");
  test::put_file(ws_ / "flip", "f");
  auto s = scope();
  auto before = snap(s);

  test::put_file(ws_ / "new/file.txt", "n");
  test::put_file(ws_ / "edit.txt", "5678"); // same size
  bump_mtime("edit.txt");
  fs::remove(ws_ / "gone.txt");
  fs::create_directories(ws_ / "renamed");
  fs::rename(ws_ / "old/name.txt", ws_ / "renamed/name.txt");
  fs::remove(ws_ / "flip");
  fs::create_symlink("keep.txt", ws_ / "flip");
  auto after = snap(s);

  auto d = diff(before, after);
  EXPECT_EQ(kinds(d), (std::vector<std::pair<std::string, change_kind>>{
                          {at("edit.txt"), change_kind::modified},
                          {at("flip"), change_kind::type_changed},
                          {at("gone.txt"), change_kind::deleted},
                          {at("new/file.txt"), change_kind::created},
                          {at("old/name.txt"), change_kind::deleted},
                          {at("renamed/name.txt"), change_kind::created},
                      }));
  for (const auto& c : d.changes) {
    if (c.kind == change_kind::deleted)
      EXPECT_EQ(c.at, 0) << c.path;
    else
      EXPECT_GT(c.at, 0) << c.path; // the new ctime
  }
  EXPECT_TRUE(diff(after, after).changes.empty());
}

TEST_F(snapshot_case, same_size_rewrite_is_seen_through_mtime_alone) {
  test::put_file(ws_ / "f.txt", "aaaa");
  auto s = scope();
  auto before = snap(s);
  auto after = before;
  after.entries[0].stamp.mtime_ns += 1;
  EXPECT_EQ(kinds(diff(before, after)),
            (std::vector<std::pair<std::string, change_kind>>{{at("f.txt"), change_kind::modified}}));
}

TEST_F(snapshot_case, excluded_prefixes_are_not_walked) {
  test::put_file(ws_ / ".git/HEAD", "ref");
  test::put_file(ws_ / ".state/runs/r/locator.json", "{}");
  test::put_file(ws_ / "agent-task/g/01_x/PLAN-local-G01.md", "p");
  test::put_file(ws_ / ".claude/projects/s.jsonl", "{}");
  test::put_file(ws_ / ".codex/sessions/s.jsonl", "{}");
  test::put_file(ws_ / "src/kept.cpp", "k");
  auto s = scope({".claude", ws_ / ".codex"});
  auto before = snap(s);
  ASSERT_EQ(before.entries.size(), 1u);
  EXPECT_EQ(before.entries[0].path, at("src/kept.cpp"));

  test::put_file(ws_ / ".git/index", "i");
  test::put_file(ws_ / "agent-task/g/01_x/CODE_REVIEW-local-G01.md", "r");
  test::put_file(ws_ / ".claude/projects/s.jsonl", "{\"more\":1}");
  test::put_file(ws_ / ".state/journal", "j");
  EXPECT_TRUE(diff(before, snap(s)).changes.empty());
}

TEST_F(snapshot_case, a_git_file_and_its_target_inside_the_workspace_are_excluded) {
  test::put_file(ws_ / ".git", "gitdir: nested-git\n");
  test::put_file(ws_ / "nested-git/HEAD", "ref");
  test::put_file(ws_ / "a.txt", "a");
  auto s = snap(scope());
  ASSERT_EQ(s.entries.size(), 1u);
  EXPECT_EQ(s.entries[0].path, at("a.txt"));
}

TEST_F(snapshot_case, symlinks_are_recorded_not_followed) {
  test::put_file(dir_.path() / "outside/big/file.txt", "o");
  fs::create_directory_symlink(dir_.path() / "outside", ws_ / "to-outside");
  fs::create_directory_symlink(ws_, ws_ / "loop");
  auto s = snap(scope());
  ASSERT_EQ(s.entries.size(), 2u);
  EXPECT_EQ(s.entries[0].path, at("loop"));
  EXPECT_EQ(s.entries[1].path, at("to-outside"));
  EXPECT_EQ(s.entries[1].stamp.kind, entry_kind::symlink);
}

TEST_F(snapshot_case, the_file_cap_is_a_clear_error) {
  for (int i = 0; i < 5; ++i)
    test::put_file(ws_ / ("d/f" + std::to_string(i)), "x");
  snapshot_limits limits;
  limits.max_files = 4;
  auto r = take_snapshot(scope(), limits);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is_invalid_argument());
  EXPECT_NE(r.error().message().find("more than 4 files"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find(ws_.string()), std::string::npos);
  limits.max_files = 5;
  EXPECT_TRUE(take_snapshot(scope(), limits));
}

TEST_F(snapshot_case, the_depth_cap_is_a_clear_error) {
  test::put_file(ws_ / "a/b/c/d/file", "x");
  snapshot_limits limits;
  limits.max_depth = 3;
  auto r = take_snapshot(scope(), limits);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is_invalid_argument());
  EXPECT_NE(r.error().message().find(at("a/b/c/d")), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("deeper than 3"), std::string::npos);
  limits.max_depth = 4;
  EXPECT_TRUE(take_snapshot(scope(), limits));
}

TEST_F(snapshot_case, a_missing_root_is_an_io_error) {
  auto s = scope();
  fs::remove_all(ws_);
  auto r = take_snapshot(s);
  ASSERT_FALSE(r);
  EXPECT_FALSE(r.error().is_invalid_argument());
}

// Root reads every folder, so the walk runs in a child that dropped to an
// unprivileged user; it reports through its exit status and a pipe.
TEST_F(snapshot_case, an_unreadable_folder_is_reported_and_the_walk_goes_on) {
  test::put_file(ws_ / "open/a.txt", "a");
  test::put_file(ws_ / "closed/secret.txt", "s");
  fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  fs::permissions(ws_, fs::perms::owner_all | fs::perms::group_exec | fs::perms::group_read |
                           fs::perms::others_exec | fs::perms::others_read);
  fs::permissions(ws_ / "open", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(ws_ / "closed", fs::perms::owner_all);
  auto s = scope();
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipefd[0]);
    if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)
      ::_exit(10);
    auto r = take_snapshot(s);
    if (!r)
      ::_exit(11);
    std::string report = std::to_string(r->entries.size()) + "\n";
    for (const auto& e : r->entries)
      report += e.path + "\n";
    for (const auto& u : r->unreadable)
      report += u.path + "|" + u.reason + "\n";
    if (::write(pipefd[1], report.data(), report.size()) < 0)
      ::_exit(12);
    ::_exit(0);
  }
  ::close(pipefd[1]);
  std::string report;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0)
    report.append(buf, static_cast<std::size_t>(n));
  ::close(pipefd[0]);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 0) << "10: cannot drop privileges, 11: snapshot failed";
  EXPECT_EQ(report, "1\n" + at("open/a.txt") + "\n" + at("closed") + "|open: Permission denied\n");
}

TEST(snapshot_diff, changes_below_an_unreadable_folder_are_not_reported) {
  workspace_snapshot before, after;
  before.entries = {{"/w/blind/x", {}}, {"/w/blinder/y", {}}, {"/w/seen", {}}};
  after.unreadable = {{"/w/blind", "open: Permission denied"}};
  auto d = diff(before, after);
  EXPECT_EQ(d.unreadable, std::vector<std::string>{"/w/blind"});
  ASSERT_EQ(d.changes.size(), 2u);
  EXPECT_EQ(d.changes[0].path, "/w/blinder/y");
  EXPECT_EQ(d.changes[1].path, "/w/seen");
}

} // namespace
} // namespace ad::runtime
