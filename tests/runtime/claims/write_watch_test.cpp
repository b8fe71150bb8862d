// The fanotify watcher against real child processes. These tests need
// fanotify (root or CAP_SYS_ADMIN on a kernel built with it): where it is
// refused they fail with the kernel's reason, never pass without looking.
#include "runtime/claims/write_watch.hpp"

#include <chrono>
#include <fstream>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>

#include "runtime/claims/observed_changes.hpp"
#include "tests/runtime/claims/claims_fixtures.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using test::child_env;
using test::held_shell;

// Writes "$1" with printf, says "done", then waits on stdin.
constexpr const char* write_then_wait = R"(printf data > "$1" && echo done && read _)";

class write_watch_case : public ::testing::Test {
protected:
  explicit write_watch_case(const fs::path& parent = {})
      : dir_(parent.empty() ? test::scratch_dir() : test::scratch_dir(parent)) {}

  void SetUp() override {
    ws_ = dir_.path() / "ws";
    outside_ = dir_.path() / "outside";
    fs::create_directories(ws_ / "src");
    fs::create_directories(outside_);
    auto scope = claim_scope::make({ws_, ws_ / ".state", {".claude"}});
    ASSERT_TRUE(scope) << scope.error().to_string();
    auto w = write_watch::open(*scope);
    ASSERT_TRUE(w) << "fanotify refused here, so these tests cannot run: "
                   << w.error().to_string();
    watch_.emplace(std::move(*w));
  }

  // Drains until an event for `path` arrives (or 5 s pass), returning every
  // event drained.
  std::vector<write_event> drain_until(const fs::path& path) {
    std::vector<write_event> all;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      struct pollfd p {watch_->fd(), POLLIN, 0};
      ::poll(&p, 1, 100);
      auto got = watch_->drain();
      all.insert(all.end(), got.begin(), got.end());
      for (const auto& e : got)
        if (e.path == path.string())
          return all;
    }
    ADD_FAILURE() << "no event for " << path << " within 5 s";
    return all;
  }

  static std::vector<write_event> for_path(const std::vector<write_event>& events,
                                           const fs::path& path) {
    std::vector<write_event> out;
    for (const auto& e : events)
      if (e.path == path.string())
        out.push_back(e);
    return out;
  }

  // A lost record that names its process, and names one other than `pid`.
  static bool names_another_process(const write_event& e, int pid) {
    return e.detail.find("(pid ") != std::string::npos &&
           e.detail.find("(pid " + std::to_string(pid) + ")") == std::string::npos;
  }

  static bool has_kind(const std::vector<write_event>& events, write_kind kind) {
    for (const auto& e : events)
      if (e.what == kind)
        return true;
    return false;
  }

  test::scratch_dir dir_;
  fs::path ws_, outside_;
  std::optional<write_watch> watch_;
};

TEST_F(write_watch_case, the_kernel_grants_a_filesystem_mark_entry_events_and_lineage) {
  EXPECT_EQ(watch_->coverage().reach, mark_reach::filesystem) << watch_->coverage().entry_events_note;
  EXPECT_TRUE(watch_->coverage().entry_events) << watch_->coverage().entry_events_note;
  EXPECT_TRUE(watch_->coverage().exited_writers) << watch_->coverage().exited_writers_note;
  EXPECT_GE(watch_->fd(), 0);
}

TEST_F(write_watch_case, a_write_by_a_child_carrying_a_marker_is_attributed) {
  fs::path target = ws_ / "src/a.cpp";
  held_shell child(write_then_wait, {target.string()}, child_env("m-child"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = for_path(drain_until(target), target);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events) {
    EXPECT_EQ(e.pid, child.pid());
    EXPECT_EQ(e.marker, "m-child") << to_string(e.what);
  }
  // The close after writing is usually queued with the write; wait for it.
  if (!has_kind(events, write_kind::closed_written)) {
    auto more = for_path(watch_->drain(), target);
    events.insert(events.end(), more.begin(), more.end());
  }
  EXPECT_TRUE(has_kind(events, write_kind::modified));
  EXPECT_TRUE(has_kind(events, write_kind::closed_written));
  EXPECT_TRUE(has_kind(events, write_kind::created));
  child.release();
}

TEST_F(write_watch_case, a_write_by_a_grandchild_without_the_marker_is_traced_up_its_parents) {
  fs::path target = ws_ / "src/deep.cpp";
  // The outer shell carries the marker; the inner one is started without it
  // (and the trailing ':' keeps the outer shell from exec'ing it).
  std::string script = std::string("env -u AGENT_DISPATCH_EXECUTION_ID /bin/sh -c '")
                       + write_then_wait + "' inner \"$1\"; :";
  held_shell child(script, {target.string()}, child_env("m-outer"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = for_path(drain_until(target), target);
  ASSERT_FALSE(events.empty());
  const int writer = events.front().pid;
  EXPECT_NE(writer, child.pid());
  std::ifstream environ("/proc/" + std::to_string(writer) + "/environ");
  std::string env((std::istreambuf_iterator<char>(environ)), std::istreambuf_iterator<char>());
  EXPECT_EQ(env.find("AGENT_DISPATCH_EXECUTION_ID"), std::string::npos)
      << "the writer itself must not carry the marker";
  for (const auto& e : events)
    EXPECT_EQ(e.marker, "m-outer") << to_string(e.what);
  child.release();
}

TEST_F(write_watch_case, a_write_by_a_process_without_a_marker_is_unknown) {
  fs::path target = ws_ / "notes.txt";
  held_shell child(write_then_wait, {target.string()}, child_env(""));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = for_path(drain_until(target), target);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events) {
    EXPECT_EQ(e.pid, child.pid());
    EXPECT_EQ(e.marker, "");
  }
  child.release();
}

// Its only recorded parent is the watcher's own process, where the walk stops.
TEST_F(write_watch_case, a_writer_that_exited_before_the_drain_is_unknown) {
  fs::path target = ws_ / "quick.txt";
  held_shell child(R"(printf data > "$1" && echo done)", {target.string()}, child_env("m-quick"));
  ASSERT_EQ(child.wait_line(), "done");
  child.release(); // exited and reaped: nothing left in /proc
  auto events = for_path(drain_until(target), target);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events)
    EXPECT_EQ(e.marker, "");
}

TEST_F(write_watch_case, writes_outside_the_workspace_and_in_excluded_folders_are_ignored) {
  fs::path out = outside_ / "x.txt";
  fs::path task_file = ws_ / "agent-task/g/01_x/CODE_REVIEW-local-G01.md";
  fs::path session = ws_ / ".claude/projects/s.jsonl";
  fs::path state = ws_ / ".state/journal";
  fs::path git = ws_ / ".git/index";
  for (const auto& p : {task_file, session, state, git})
    fs::create_directories(p.parent_path());
  fs::path inside = ws_ / "src/after.cpp";
  held_shell child(R"(for f in "$@"; do printf data > "$f" || exit 1; done; echo done; read _)",
                   {out.string(), task_file.string(), session.string(), state.string(),
                    git.string(), inside.string()},
                   child_env("m-child"));
  ASSERT_EQ(child.wait_line(), "done");
  // The write inside comes last: once it is seen, the others were drained.
  auto events = drain_until(inside);
  for (const auto& e : events) {
    // The mark covers the whole file system: another process (a test run
    // beside this one) whose folder went before the drain is not ours.
    bool foreign = e.what == write_kind::lost && names_another_process(e, child.pid());
    if (foreign)
      continue;
    EXPECT_NE(e.what, write_kind::lost) << e.detail;
    if (e.what != write_kind::lost) {
      EXPECT_EQ(e.path, inside.string()) << "reported: " << e.path;
    }
  }
  child.release();
}

// The dispatcher names the agent it started; the agent's writes stay its own
// after it exits.
TEST_F(write_watch_case, a_remembered_agent_that_exited_before_the_drain_is_attributed) {
  fs::path target = ws_ / "quick-agent.txt";
  held_shell child(R"(read _; printf data > "$1" && echo done)", {target.string()},
                   child_env("m-agent"));
  ASSERT_TRUE(watch_->remember_attempt(child.pid(), "m-agent"));
  child.release(); // lets it write, then reaps it
  auto events = for_path(drain_until(target), target);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events)
    EXPECT_EQ(e.marker, "m-agent") << to_string(e.what);
}

// mv and rm exit (and are reaped by the shell) before the drain: they are
// traced through the fork records to the shell that carries the marker.
TEST_F(write_watch_case, deletes_and_renames_by_exited_tools_are_reported_and_traced) {
  fs::path old_name = ws_ / "src/old.txt";
  fs::path new_name = ws_ / "src/new.txt";
  fs::path doomed = ws_ / "src/doomed.txt";
  test::put_file(old_name, "o"); // written by this process: not reported
  test::put_file(doomed, "d");
  held_shell child(R"(mv "$1" "$2" && rm "$3" && echo done && read _)",
                   {old_name.string(), new_name.string(), doomed.string()},
                   child_env("m-mover"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = drain_until(doomed);
  auto moved_from = for_path(events, old_name);
  auto moved_to = for_path(events, new_name);
  auto removed = for_path(events, doomed);
  ASSERT_EQ(moved_from.size(), 1u);
  EXPECT_EQ(moved_from[0].what, write_kind::moved_from);
  EXPECT_EQ(moved_from[0].marker, "m-mover");
  ASSERT_EQ(moved_to.size(), 1u);
  EXPECT_EQ(moved_to[0].what, write_kind::moved_to);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].what, write_kind::deleted);
  EXPECT_EQ(removed[0].marker, "m-mover");
  child.release();
}

TEST_F(write_watch_case, drained_events_feed_the_verdict) {
  fs::path own = ws_ / "src/own.cpp";
  fs::path foreign = ws_ / "src/foreign.cpp";
  held_shell child(R"(printf a > "$1" && printf b > "$2" && echo done && read _)",
                   {own.string(), foreign.string()}, child_env("m-a1"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = drain_until(foreign);
  child.release();
  ASSERT_FALSE(events_lost(events));
  std::vector<attempt_window> attempts = {{"g/01_a", "a1", "m-a1", {own.string()}, 1, 0},
                                          {"g/02_b", "b1", "m-b1", {foreign.string()}, 1, 0}};
  claim_map claims = {{"g/01_a", {own.string()}}, {"g/02_b", {foreign.string()}}};
  auto report = judge_claim_writes(observed_from_events(events, 1000), attempts, claims);
  EXPECT_EQ(report.violations, (std::vector<claim_violation>{
                                   {"g/01_a", "a1", foreign.string(), "g/02_b",
                                    attribution_basis::fanotify, {}},
                               }));
}

// The mark covers the whole file system: a folder made, filled and removed
// elsewhere before the drain leaves events whose folder cannot be found.
// They were not in the workspace, so nothing is lost.
TEST_F(write_watch_case, a_folder_removed_outside_the_workspace_loses_nothing) {
  fs::path gone = outside_ / "scratch";
  fs::path own = ws_ / "src/own.cpp";
  held_shell child(R"(mkdir "$1" && printf x > "$1/f" && mv "$1/f" "$1/g" && rm -r "$1" )"
                   R"(&& printf a > "$2" && echo done && read _)",
                   {gone.string(), own.string()}, child_env("m-a1"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = drain_until(own);
  child.release();
  for (const auto& e : events)
    EXPECT_NE(e.what, write_kind::lost) << e.detail;
  auto written = for_path(events, own);
  ASSERT_FALSE(written.empty());
  EXPECT_EQ(written[0].marker, "m-a1");
}

// The same inside the workspace hides which files were written there: the
// window is judged from snapshots. Unless the kernel still holds the removed
// folder when its event is read (its handle then opens, with " (deleted)"
// after its path): the write is then known where it was, and nothing is
// lost. Which of the two happens is the kernel's timing; both are right.
TEST_F(write_watch_case, a_folder_removed_inside_the_workspace_loses_its_events) {
  fs::path gone = ws_ / "src/scratch";
  fs::path own = ws_ / "src/own.cpp";
  held_shell child(R"(mkdir "$1" && printf x > "$1/f" && rm -r "$1" )"
                   R"(&& printf a > "$2" && echo done && read _)",
                   {gone.string(), own.string()}, child_env("m-a1"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = drain_until(own);
  child.release();
  if (events_lost(events)) {
    bool named = false;
    for (const auto& e : events)
      if (e.what == write_kind::lost)
        named = named || e.detail.find("the folder of f ") != std::string::npos;
    EXPECT_TRUE(named);
  } else {
    auto written = for_path(events, gone / "f");
    ASSERT_FALSE(written.empty()) << "neither lost nor placed where it was";
    EXPECT_EQ(written[0].marker, "m-a1");
  }
  EXPECT_TRUE(for_path(events, gone).empty()) << "folders themselves are not reported";
}

// The removed folder held open by the writer until its event is read: the
// kernel still has it, so its handle opens and the write is placed where it
// was instead of lost.
TEST_F(write_watch_case, a_removed_folder_still_held_places_its_writes_where_they_were) {
  fs::path gone = ws_ / "src/scratch";
  fs::path own = ws_ / "src/own.cpp";
  held_shell child(R"(mkdir "$1" && exec 3<"$1" && printf x > "$1/f" && rm -r "$1" )"
                   R"(&& printf a > "$2" && echo done && read _)",
                   {gone.string(), own.string()}, child_env("m-a1"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = drain_until(own);
  child.release();
  // Nothing of this writer is lost. The mark covers the whole file system:
  // a lost record naming another process (a test run beside this one whose
  // folder went before the drain) is not this folder's.
  for (const auto& e : events)
    if (e.what == write_kind::lost)
      EXPECT_TRUE(names_another_process(e, child.pid())) << e.detail;
  auto written = for_path(events, gone / "f");
  ASSERT_FALSE(written.empty());
  EXPECT_EQ(written[0].marker, "m-a1");
}

TEST(write_watch_without_lineage, an_exited_tool_is_unknown) {
  test::scratch_dir dir;
  fs::path ws = dir.path() / "ws";
  fs::create_directories(ws);
  auto scope = claim_scope::make({ws, {}, {}});
  ASSERT_TRUE(scope) << scope.error().to_string();
  write_watch_options options;
  options.lineage = lineage_mode::off;
  auto w = write_watch::open(*scope, options);
  ASSERT_TRUE(w) << w.error().to_string();
  EXPECT_FALSE(w->coverage().exited_writers);
  fs::path target = ws / "made-by-touch";
  held_shell child(R"(touch "$1" && echo done && read _)", {target.string()}, child_env("m-a1"));
  ASSERT_EQ(child.wait_line(), "done");
  struct pollfd p {w->fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  auto events = w->drain();
  child.release();
  bool seen = false;
  for (const auto& e : events)
    if (e.path == target.string()) {
      seen = true;
      EXPECT_EQ(e.marker, "") << to_string(e.what);
    }
  EXPECT_TRUE(seen);
}

// The same attribution on the file system that holds the temp directory
// (ext4 on a typical machine), where other programs write too.
class write_watch_on_temp_fs : public write_watch_case {
protected:
  write_watch_on_temp_fs() : write_watch_case(fs::temp_directory_path()) {}
};

TEST_F(write_watch_on_temp_fs, a_write_by_a_child_carrying_a_marker_is_attributed) {
  fs::path target = ws_ / "src/b.cpp";
  held_shell child(write_then_wait, {target.string()}, child_env("m-temp"));
  ASSERT_EQ(child.wait_line(), "done");
  auto events = for_path(drain_until(target), target);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events)
    EXPECT_EQ(e.marker, "m-temp");
  child.release();
}

TEST(write_watch_fallback, the_option_forces_snapshots_and_they_still_judge) {
  test::scratch_dir dir;
  fs::path ws = dir.path() / "ws";
  fs::create_directories(ws / "src");
  auto scope = claim_scope::make({ws, {}, {}});
  ASSERT_TRUE(scope) << scope.error().to_string();
  write_watch_options options;
  options.mode = watch_mode::snapshots_only;
  auto w = write_watch::open(*scope, options);
  ASSERT_FALSE(w);
  EXPECT_TRUE(w.error().is_unsupported()) << w.error().to_string();

  auto before = take_snapshot(*scope);
  ASSERT_TRUE(before) << before.error().to_string();
  fs::path stray = ws / "src/stray.cpp";
  held_shell child(R"(printf x > "$1" && echo done)", {stray.string()}, child_env("m-a1"));
  ASSERT_EQ(child.wait_line(), "done");
  child.release();
  auto after = take_snapshot(*scope);
  ASSERT_TRUE(after) << after.error().to_string();
  std::vector<attempt_window> attempts = {
      {"g/01_a", "a1", "m-a1", {(ws / "src/mine.cpp").string()}, 1, 0}};
  auto report = judge_claim_writes(observed_from_diff(diff(*before, *after)), attempts, {});
  EXPECT_EQ(report.violations, (std::vector<claim_violation>{
                                   {"g/01_a", "a1", stray.string(), "",
                                    attribution_basis::elimination, {}},
                               }));
}

} // namespace
} // namespace ad::runtime
