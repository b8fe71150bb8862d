// The claim watcher's bookkeeping: which attempts a window of writes is
// judged against, verdicts reported once, overlapping snapshot windows, and
// which attempts hold admission back.
#include "runtime/claims/claim_monitor.hpp"

#include <gtest/gtest.h>
#include <set>

namespace ad::runtime {
namespace {

const std::string a_cpp = "/w/src/a.cpp";
const std::string b_cpp = "/w/src/b.cpp";
const std::string readme = "/w/README.md";

watched_attempt attempt(std::string task, std::string id, std::vector<std::string> write_set,
                        millis started) {
  return {std::move(task), id, "m-" + id, std::move(write_set), started, ""};
}

claim_monitor_options with_slack(millis slack) {
  claim_monitor_options o;
  o.slack = slack;
  return o;
}

write_event event(std::string path, std::string marker) {
  write_event e;
  e.pid = 42;
  e.path = std::move(path);
  e.what = write_kind::closed_written;
  e.marker = std::move(marker);
  return e;
}

snapshot_diff changed(std::vector<std::pair<std::string, millis>> paths) {
  snapshot_diff d;
  for (auto& [p, at] : paths)
    d.changes.push_back({p, at == 0 ? change_kind::deleted : change_kind::modified, at});
  return d;
}

TEST(claim_monitor, a_marked_write_outside_the_claim_is_reported_once_and_holds_admission) {
  claim_monitor m;
  m.begin(attempt("g/01_a", "a1", {a_cpp}, 1000));
  auto window = m.from_events({event(readme, "m-a1"), event(a_cpp, "m-a1")}, 1500);
  ASSERT_EQ(window.attempts.size(), 1u);
  auto found = m.judge(window, {{"g/02_b", {readme}}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], (claim_violation{"g/01_a", "a1", readme, "g/02_b",
                                       attribution_basis::fanotify, {}}));
  // The same write drained again is no news.
  EXPECT_TRUE(m.judge(m.from_events({event(readme, "m-a1")}, 1700), {}).empty());

  // It still runs: tasks claiming README wait until it ends.
  auto live = m.live_after(found[0]);
  EXPECT_EQ(live, (std::vector<live_violation>{{readme, "a1", "g/01_a"}}));
  auto end = m.end("a1", 2000);
  EXPECT_TRUE(end.known);
  EXPECT_TRUE(end.held_admission);
  EXPECT_FALSE(m.end("nobody", 2000).known);
}

TEST(claim_monitor, an_attempt_stays_in_fanotify_windows_for_the_slack_after_it_ended) {
  claim_monitor m(with_slack(2000));
  m.begin(attempt("g/01_a", "a1", {a_cpp}, 1000));
  m.end("a1", 5000);
  EXPECT_EQ(m.from_events({event(readme, "m-a1")}, 6500).attempts.size(), 1u);
  EXPECT_TRUE(m.from_events({event(readme, "m-a1")}, 7500).attempts.empty());
  // A violation judged after the end holds nothing back.
  auto found = m.judge(m.from_events({event(readme, "m-a1")}, 6500), {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(m.live_after(found[0]).empty());
  // Nothing queued, nothing to judge.
  EXPECT_TRUE(m.from_events({}, 6500).changes.empty());
}

TEST(claim_monitor, writes_queued_before_a_begin_are_the_agents_only_when_they_carry_its_marker) {
  claim_monitor m;
  m.begin(attempt("g/02_b", "b1", {b_cpp}, 500));
  auto judged = m.begin_after(attempt("g/01_a", "a1", {a_cpp}, 1000),
                              {event(readme, "m-a1"), event("/w/other", "")}, 1100);
  ASSERT_EQ(judged.size(), 2u);
  // The unmarked write is judged without a1: b1 ran alone before.
  ASSERT_EQ(judged[0].attempts.size(), 1u);
  EXPECT_EQ(judged[0].attempts[0].attempt, "b1");
  auto before = m.judge(judged[0], {});
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].attempt, "b1");
  EXPECT_EQ(before[0].path, "/w/other");
  // Its own marked write is a1's.
  EXPECT_EQ(judged[1].attempts.size(), 2u);
  auto own = m.judge(judged[1], {});
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].attempt, "a1");
  EXPECT_EQ(own[0].attribution, attribution_basis::fanotify);
  EXPECT_TRUE(m.running("a1"));
}

TEST(claim_monitor, a_write_of_a_marker_not_yet_begun_is_held_for_the_slack) {
  claim_monitor m(with_slack(2000));
  // Drained while no attempt ran: nothing to judge, the marked write is held.
  auto idle = m.from_events({event(readme, "m-a1"), event("/w/x", "")}, 1000);
  EXPECT_TRUE(idle.attempts.empty());
  // a1's begin arrives: its held write is its own.
  auto judged = m.begin_after(attempt("g/01_a", "a1", {a_cpp}, 900), {}, 1500);
  auto own = m.judge(judged[1], {});
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].path, readme);
  EXPECT_EQ(own[0].attribution, attribution_basis::fanotify);
  // A held write older than the slack is gone at the next prune.
  m.from_events({event("/w/y", "m-b1")}, 2000);
  m.prune(4500);
  auto late = m.begin_after(attempt("g/02_b", "b1", {b_cpp}, 4000), {}, 4500);
  EXPECT_TRUE(late[1].changes.empty());
}

TEST(claim_monitor, with_snapshots_one_attempt_alone_is_the_writer) {
  claim_monitor m;
  m.begin(attempt("g/01_a", "a1", {a_cpp}, 1000));
  m.end("a1", 9000);
  auto window = m.from_diff("a1", changed({{a_cpp, 3000}, {readme, 4000}}));
  ASSERT_EQ(window.attempts.size(), 1u);
  EXPECT_EQ(window.attempts[0].ended, 9000);
  auto found = m.judge(window, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].attribution, attribution_basis::elimination);
  EXPECT_EQ(found[0].path, readme);
}

TEST(claim_monitor, overlapping_snapshot_windows_judge_a_change_once_and_name_the_candidates) {
  claim_monitor m;
  m.begin(attempt("g/01_a", "a1", {a_cpp}, 1000));
  m.begin(attempt("g/02_b", "b1", {b_cpp}, 2000));
  // Attempts that started after a1 ended are not in its window.
  m.end("a1", 9000);
  m.begin(attempt("g/03_c", "c1", {}, 20000));
  auto first = m.from_diff("a1", changed({{readme, 5000}, {b_cpp, 5000}, {"/w/gone", 0}}));
  ASSERT_EQ(first.attempts.size(), 2u);
  auto found = m.judge(first, {});
  // b.cpp is inside b1's write set: b1's. README and the delete: either.
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].path, readme);
  EXPECT_EQ(found[0].attribution, attribution_basis::candidates);
  EXPECT_EQ(found[0].candidates, (std::vector<std::string>{"a1", "b1"}));
  EXPECT_EQ(found[1].path, "/w/gone");
  EXPECT_EQ(found[1].candidates, (std::vector<std::string>{"a1", "b1"}));
  // a1 ended: only b1 still holds the path back.
  EXPECT_EQ(m.live_after(found[0]), (std::vector<live_violation>{{readme, "b1", "g/02_b"}}));

  // b1's window sees the same changes again: they were judged.
  EXPECT_TRUE(m.end("b1", 10000).held_admission);
  auto second = m.from_diff("b1", changed({{readme, 5000}, {"/w/gone", 0}, {"/w/late", 9500}}));
  ASSERT_EQ(second.changes.size(), 1u);
  EXPECT_EQ(second.changes[0].path, "/w/late");
}

TEST(claim_monitor, prune_keeps_what_a_running_attempts_window_may_need) {
  claim_monitor m;
  m.begin(attempt("g/01_a", "a1", {a_cpp}, 1000));
  m.begin(attempt("g/02_b", "b1", {b_cpp}, 2000));
  m.end("a1", 3000);
  m.prune(60000);
  // b1 started before a1 ended: a1 stays for b1's window.
  EXPECT_NE(m.find("a1"), nullptr);
  m.end("b1", 4000);
  m.prune(60000);
  EXPECT_EQ(m.find("a1"), nullptr);
  EXPECT_EQ(m.find("b1"), nullptr);
  EXPECT_FALSE(m.any_running());
}

write_event created(std::string path, std::string marker) {
  auto e = event(std::move(path), std::move(marker));
  e.what = write_kind::created;
  return e;
}

TEST(claim_monitor, a_created_file_is_judged_after_the_settle_time_and_only_if_it_is_still_there) {
  const std::string tmp = "/w/src/a.cpp.tmp.77";
  std::set<std::string> existing{readme};
  claim_monitor_options o;
  o.settle = 1000;
  o.path_exists = [&existing](const std::string& p) { return existing.count(p) > 0; };
  claim_monitor m(o);
  m.begin(attempt("g/01_a", "a1", {a_cpp}, 1000));

  // A temporary file renamed onto the claimed file, and a new README.
  auto window = m.from_events({created(tmp, "m-a1"), event(tmp, "m-a1"), created(readme, "m-a1"),
                               event(a_cpp, "m-a1")},
                              1200);
  EXPECT_TRUE(m.judge(window, {}).empty()) << "judged before its settle time";
  EXPECT_TRUE(m.settling());
  EXPECT_TRUE(m.settling_until(1200)) << "drained at 1200, not judged yet";
  EXPECT_FALSE(m.settling_until(1199)) << "nothing drained before 1200 waits";
  window = m.from_events({event(readme, "m-a1")}, 2000); // still settling: written again
  EXPECT_TRUE(m.judge(window, {}).empty());

  window = m.from_events({}, 2200);
  auto found = m.judge(window, {});
  ASSERT_EQ(found.size(), 1u) << "the temporary file was gone, README stays";
  EXPECT_EQ(found[0].path, readme);
  EXPECT_EQ(found[0].attribution, attribution_basis::fanotify);
  EXPECT_FALSE(m.settling());
  EXPECT_FALSE(m.settling_until(2200));

  // The drain reads the data group before the entry group: a temporary
  // file's write can come before its create and still waits.
  m.begin(attempt("g/02_b", "b1", {b_cpp}, 2000));
  const std::string b_tmp = b_cpp + ".tmp.78";
  window = m.from_events({event(b_tmp, "m-b1"), created(b_tmp, "m-b1")}, 2300);
  EXPECT_TRUE(m.judge(window, {}).empty()) << "a write judged before its create was read";
  EXPECT_TRUE(m.judge(m.from_events({}, 3300), {}).empty()) << "gone by then";

  // A file that existed before (no create) is judged at once.
  auto at_once = m.judge(m.from_events({event(b_cpp, "m-a1")}, 3400), {});
  ASSERT_EQ(at_once.size(), 1u);
  EXPECT_EQ(at_once[0].path, b_cpp);
}

} // namespace
} // namespace ad::runtime
