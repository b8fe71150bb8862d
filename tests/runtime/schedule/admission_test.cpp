#include "runtime/schedule/admission.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {
namespace {

task_view worker(std::string name, std::vector<std::string> paths) {
  task_view t;
  t.name = std::move(name);
  t.group = task_group(t.name);
  t.index = subtask_index_of(t.name).value_or(0);
  t.stage = view_stage::worker;
  t.write_set = write_set_kind::valid;
  t.write_paths = std::move(paths);
  return t;
}

task_view review(std::string name, std::vector<std::string> paths) {
  auto t = worker(std::move(name), std::move(paths));
  t.stage = view_stage::review;
  return t;
}

task_view with_pred(task_view t, int index, std::vector<std::string> matches) {
  t.predecessors.push_back({index, std::move(matches)});
  return t;
}

task_view live(task_view t, live_where where, std::string detail = {}) {
  t.live = where;
  t.live_detail = std::move(detail);
  return t;
}

using owned_claim = std::pair<const std::string, write_claim>;

owned_claim claim(std::string owner, std::set<std::string> paths) {
  return {std::move(owner), write_claim{claim_kind::paths, std::move(paths)}};
}

owned_claim exclusive(std::string owner) {
  return {std::move(owner), write_claim{claim_kind::exclusive, {}}};
}

struct expected_entry {
  admission_kind kind;
  wait_cause cause;
  std::string reason;
};

struct admission_case {
  std::string label;
  admission_input input;
  std::map<std::string, expected_entry> entries;
  std::vector<std::string> admitted;
  std::map<std::string, write_claim> claims_taken;
  std::vector<std::string> capacity_waiters;
};

std::vector<admission_case> cases() {
  std::vector<admission_case> out;
  {
    admission_case c;
    c.label = "independent tasks all start, index then name";
    c.input.tasks = {worker("g/02_b", {"/w/b"}), worker("g/01_z", {"/w/z"}),
                     worker("g/01_a", {"/w/a"})};
    c.entries = {{"g/01_a", {admission_kind::admit, wait_cause::none, ""}},
                 {"g/01_z", {admission_kind::admit, wait_cause::none, ""}},
                 {"g/02_b", {admission_kind::admit, wait_cause::none, ""}}};
    c.admitted = {"g/01_a", "g/01_z", "g/02_b"};
    c.claims_taken = {claim("g/01_a", {"/w/a"}), claim("g/01_z", {"/w/z"}),
                      claim("g/02_b", {"/w/b"})};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "reviews go before workers regardless of index";
    c.input.tasks = {worker("g/01_a", {"/w/a"}), review("g/03_c", {"/w/c"}),
                     worker("g/02_b", {"/w/b"})};
    c.input.max_parallel = 2;
    c.entries = {{"g/01_a", {admission_kind::admit, wait_cause::none, ""}},
                 {"g/02_b", {admission_kind::wait, wait_cause::capacity, "capacity: 2 of 2 running"}},
                 {"g/03_c", {admission_kind::admit, wait_cause::none, ""}}};
    c.admitted = {"g/03_c", "g/01_a"};
    c.claims_taken = {claim("g/03_c", {"/w/c"}), claim("g/01_a", {"/w/a"})};
    c.capacity_waiters = {"g/02_b"};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "overlapping write sets: the first in order takes the claim";
    c.input.tasks = {worker("g/01_a", {"/w/x", "/w/a"}), worker("g/02_b", {"/w/b", "/w/x"})};
    c.entries = {{"g/01_a", {admission_kind::admit, wait_cause::none, ""}},
                 {"g/02_b",
                  {admission_kind::wait, wait_cause::claim_conflict,
                   "claim conflict with g/01_a on /w/x"}}};
    c.admitted = {"g/01_a"};
    c.claims_taken = {claim("g/01_a", {"/w/a", "/w/x"})};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "persisted claims of other owners conflict; smallest owner and path named";
    c.input.tasks = {worker("g/03_c", {"/w/p", "/w/q"})};
    c.input.claims = {claim("h/02_z", {"/w/p"}), claim("h/01_y", {"/w/q"}),
                      claim("g/03_c", {"/w/old"})};
    c.entries = {{"g/03_c",
                  {admission_kind::wait, wait_cause::claim_conflict,
                   "claim conflict with h/01_y on /w/q"}}};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "a task's own persisted claim is replaced, not a conflict";
    c.input.tasks = {worker("g/01_a", {"/w/new"})};
    c.input.claims = {claim("g/01_a", {"/w/old"})};
    c.entries = {{"g/01_a", {admission_kind::admit, wait_cause::none, ""}}};
    c.admitted = {"g/01_a"};
    c.claims_taken = {claim("g/01_a", {"/w/new"})};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "an unchanged own claim is not taken again";
    c.input.tasks = {worker("g/01_a", {"/w/a"})};
    c.input.claims = {claim("g/01_a", {"/w/a"})};
    c.entries = {{"g/01_a", {admission_kind::admit, wait_cause::none, ""}}};
    c.admitted = {"g/01_a"};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "an exclusive claim blocks every other admission";
    c.input.tasks = {worker("g/01_a", {"/w/a"}), review("k/01_b", {"/w/b"})};
    c.input.claims = {exclusive("z/01_live")};
    c.entries = {{"g/01_a",
                  {admission_kind::wait, wait_cause::exclusive_claim,
                   "exclusive claim held by z/01_live (its write set is unknown)"}},
                 {"k/01_b",
                  {admission_kind::wait, wait_cause::exclusive_claim,
                   "exclusive claim held by z/01_live (its write set is unknown)"}}};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "a live task elsewhere with unknown write set adopts an exclusive claim";
    auto running = live(worker("g/01_a", {}), live_where::elsewhere, "pid 42 alive");
    running.write_set = write_set_kind::unknown;
    c.input.tasks = {running, worker("g/02_b", {"/w/b"})};
    c.entries = {{"g/01_a",
                  {admission_kind::running_elsewhere, wait_cause::none,
                   "running elsewhere: pid 42 alive"}},
                 {"g/02_b",
                  {admission_kind::wait, wait_cause::exclusive_claim,
                   "exclusive claim held by g/01_a (its write set is unknown)"}}};
    c.claims_taken = {exclusive("g/01_a")};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "running tasks keep an existing claim and are never admitted";
    c.input.tasks = {live(worker("g/01_a", {"/w/a"}), live_where::here),
                     live(worker("g/02_b", {"/w/b"}), live_where::elsewhere)};
    c.input.claims = {claim("g/01_a", {"/w/a"})};
    c.entries = {{"g/01_a", {admission_kind::running_here, wait_cause::none, "running here"}},
                 {"g/02_b",
                  {admission_kind::running_elsewhere, wait_cause::none, "running elsewhere"}}};
    c.claims_taken = {claim("g/02_b", {"/w/b"})};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "no valid write set is never admitted";
    auto t = worker("g/01_a", {});
    t.write_set = write_set_kind::unknown;
    t.write_set_error = "Modified Files Summary: placeholder path `<x>`";
    auto empty = worker("g/02_b", {});
    c.input.tasks = {t, empty};
    c.entries = {{"g/01_a",
                  {admission_kind::blocked, wait_cause::no_write_set,
                   "no valid write set: Modified Files Summary: placeholder path `<x>`"}},
                 {"g/02_b",
                  {admission_kind::blocked, wait_cause::no_write_set,
                   "no valid write set: no claimed path"}}};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "dependencies: missing, running here, running elsewhere, ambiguous, met";
    c.input.tasks = {
        with_pred(worker("g/03+01,02_c", {"/w/c"}), 1, {}),
        with_pred(worker("h/02+01_b", {"/w/hb"}), 1, {}),
        with_pred(worker("k/02+01_b", {"/w/kb"}), 1, {"/ws/agent-task/k/01_a"}),
        with_pred(worker("m/02+01_b", {"/w/mb"}), 1, {"/ws/a/m/01_x", "/ws/a/m/01_a"}),
        with_pred(worker("n/02+01_b", {"/w/nb"}), 1, {"/ws/agent-task/n/01_a"}),
        live(worker("h/01_a", {"/w/ha"}), live_where::here),
    };
    c.input.tasks[0].predecessors.push_back({2, {}});
    c.input.live = {{"k/01_a", live_where::elsewhere}};
    c.entries = {
        {"g/03+01,02_c",
         {admission_kind::wait, wait_cause::predecessor_missing,
          "waiting for 01_*, 02_* to complete"}},
        {"h/01_a", {admission_kind::running_here, wait_cause::none, "running here"}},
        {"h/02+01_b",
         {admission_kind::wait, wait_cause::predecessor_live,
          "waiting for h/01_a to finish (running here)"}},
        {"k/02+01_b",
         {admission_kind::wait, wait_cause::predecessor_live,
          "waiting for k/01_a to finish (running elsewhere)"}},
        {"m/02+01_b",
         {admission_kind::blocked, wait_cause::dependency_ambiguity,
          "dependency ambiguity: 01_* matches 2 completed folders: /ws/a/m/01_a, /ws/a/m/01_x"}},
        {"n/02+01_b", {admission_kind::admit, wait_cause::none, ""}},
    };
    c.admitted = {"n/02+01_b"};
    c.claims_taken = {claim("h/01_a", {"/w/ha"}), claim("n/02+01_b", {"/w/nb"})};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "blocked tasks keep their reason and take nothing";
    auto errors = worker("g/01_a", {"/w/a"});
    errors.stage = view_stage::blocked;
    errors.blocked_reason = "two PLAN files";
    auto ur = worker("g/02_b", {"/w/b"});
    ur.stage = view_stage::user_review;
    auto persisted = worker("g/03_c", {"/w/c"});
    persisted.blocked_reason = "failure budget exhausted";
    auto done = worker("g/04_d", {"/w/d"});
    done.stage = view_stage::complete;
    c.input.tasks = {errors, ur, persisted, done};
    c.entries = {
        {"g/01_a", {admission_kind::blocked, wait_cause::task_blocked, "two PLAN files"}},
        {"g/02_b", {admission_kind::blocked, wait_cause::task_blocked, "user-review"}},
        {"g/03_c", {admission_kind::blocked, wait_cause::task_blocked, "failure budget exhausted"}},
        {"g/04_d", {admission_kind::complete, wait_cause::none, ""}},
    };
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "capacity counts live attempts of other dispatchers, also outside scope";
    c.input.tasks = {worker("g/01_a", {"/w/a"}), worker("g/02_b", {"/w/b"}),
                     worker("g/03_c", {"/w/c"})};
    c.input.live = {{"other/01_x", live_where::elsewhere}, {"other/02_y", live_where::elsewhere}};
    c.input.max_parallel = 3;
    c.entries = {{"g/01_a", {admission_kind::admit, wait_cause::none, ""}},
                 {"g/02_b", {admission_kind::wait, wait_cause::capacity, "capacity: 3 of 3 running"}},
                 {"g/03_c", {admission_kind::wait, wait_cause::capacity, "capacity: 3 of 3 running"}}};
    c.admitted = {"g/01_a"};
    c.claims_taken = {claim("g/01_a", {"/w/a"})};
    c.capacity_waiters = {"g/02_b", "g/03_c"};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "capacity already exceeded outside: nothing starts, no claim";
    c.input.tasks = {worker("g/01_a", {"/w/a"})};
    c.input.live = {{"o/01", live_where::elsewhere},
                    {"o/02", live_where::elsewhere},
                    {"o/03", live_where::here}};
    c.input.max_parallel = 2;
    c.entries = {{"g/01_a", {admission_kind::wait, wait_cause::capacity, "capacity: 3 of 2 running"}}};
    c.capacity_waiters = {"g/01_a"};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "claim conflict wins over capacity; capacity waiters get no claim";
    c.input.tasks = {worker("g/01_a", {"/w/a"}), worker("g/02_b", {"/w/a"}),
                     worker("g/03_c", {"/w/c"})};
    c.input.max_parallel = 1;
    c.entries = {{"g/01_a", {admission_kind::admit, wait_cause::none, ""}},
                 {"g/02_b",
                  {admission_kind::wait, wait_cause::claim_conflict,
                   "claim conflict with g/01_a on /w/a"}},
                 {"g/03_c", {admission_kind::wait, wait_cause::capacity, "capacity: 1 of 1 running"}}};
    c.admitted = {"g/01_a"};
    c.claims_taken = {claim("g/01_a", {"/w/a"})};
    c.capacity_waiters = {"g/03_c"};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "a path written outside its claim by a running attempt keeps its claimers waiting";
    c.input.tasks = {worker("g/02_b", {"/w/b", "/w/x"}), worker("g/03_c", {"/w/c"}),
                     live(worker("g/01_a", {"/w/a"}), live_where::here)};
    c.input.claims = {claim("g/01_a", {"/w/a"})};
    // g/01_a's attempt wrote /w/x (not its claim) and still runs; its own
    // entry never holds back g/01_a itself.
    c.input.violations = {{"/w/x", "g_01_a__p1__worker__a01", "g/01_a"},
                          {"/w/a", "g_09_z__p1__worker__a02", "g/01_a"}};
    c.entries = {{"g/01_a", {admission_kind::running_here, wait_cause::none, "running here"}},
                 {"g/02_b",
                  {admission_kind::wait, wait_cause::violation_pending,
                   "/w/x was written outside its claim by running attempt "
                   "g_01_a__p1__worker__a01 of g/01_a"}},
                 {"g/03_c", {admission_kind::admit, wait_cause::none, ""}}};
    c.admitted = {"g/03_c"};
    c.claims_taken = {claim("g/03_c", {"/w/c"})};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "once the violating attempt ended the claimer starts";
    c.input.tasks = {worker("g/02_b", {"/w/b", "/w/x"})};
    c.entries = {{"g/02_b", {admission_kind::admit, wait_cause::none, ""}}};
    c.admitted = {"g/02_b"};
    c.claims_taken = {claim("g/02_b", {"/w/b", "/w/x"})};
    out.push_back(c);
  }
  {
    admission_case c;
    c.label = "several candidate writers: the first path then attempt is named";
    c.input.tasks = {worker("h/01_q", {"/w/y", "/w/x"})};
    c.input.violations = {{"/w/y", "b01", "g/02_b"}, {"/w/x", "c01", "g/03_c"},
                          {"/w/x", "a01", "g/01_a"}};
    c.entries = {{"h/01_q",
                  {admission_kind::wait, wait_cause::violation_pending,
                   "/w/x was written outside its claim by running attempt a01 of g/01_a"}}};
    out.push_back(c);
  }
  return out;
}

class admission_table : public ::testing::TestWithParam<admission_case> {};

TEST_P(admission_table, decides_each_task) {
  const auto& c = GetParam();
  auto plan = plan_admission(c.input);
  ASSERT_EQ(plan.entries.size(), c.entries.size());
  for (const auto& e : plan.entries) {
    auto it = c.entries.find(e.task);
    ASSERT_NE(it, c.entries.end()) << e.task;
    EXPECT_EQ(to_string(e.kind), to_string(it->second.kind)) << e.task;
    EXPECT_EQ(static_cast<int>(e.cause), static_cast<int>(it->second.cause)) << e.task;
    EXPECT_EQ(e.reason, it->second.reason) << e.task;
  }
  EXPECT_EQ(plan.admitted, c.admitted);
  EXPECT_TRUE(plan.claims_taken == c.claims_taken);
  EXPECT_EQ(plan.capacity_waiters, c.capacity_waiters);
}

// The form the pass planner calls: the views are read where they are kept
// (here in reverse order), and input.tasks is not read at all.
TEST_P(admission_table, decides_the_same_over_views_kept_elsewhere) {
  const auto& c = GetParam();
  auto copied = plan_admission(c.input);
  std::vector<task_view> kept(c.input.tasks.rbegin(), c.input.tasks.rend());
  std::vector<const task_view*> views;
  for (const auto& v : kept)
    views.push_back(&v);
  auto input = c.input;
  input.tasks = {worker("zz/99_unread", {"/w/unread"})};
  auto plan = plan_admission(input, views);
  ASSERT_EQ(plan.entries.size(), copied.entries.size());
  for (std::size_t i = 0; i < plan.entries.size(); ++i) {
    const auto& a = plan.entries[i];
    const auto& b = copied.entries[i];
    EXPECT_EQ(a.task, b.task);
    EXPECT_EQ(to_string(a.kind), to_string(b.kind)) << a.task;
    EXPECT_EQ(static_cast<int>(a.cause), static_cast<int>(b.cause)) << a.task;
    EXPECT_EQ(a.reason, b.reason) << a.task;
    EXPECT_TRUE(a.claim == b.claim) << a.task;
  }
  EXPECT_EQ(plan.admitted, copied.admitted);
  EXPECT_TRUE(plan.claims_taken == copied.claims_taken);
  EXPECT_EQ(plan.capacity_waiters, copied.capacity_waiters);
  EXPECT_EQ(plan.occupied, copied.occupied);
}

INSTANTIATE_TEST_SUITE_P(schedule, admission_table, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           std::string name;
                           for (char ch : info.param.label)
                             name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

TEST(admission, entries_come_sorted_by_index_then_name) {
  admission_input in;
  in.tasks = {worker("b/02_x", {"/1"}), worker("a/02_x", {"/2"}), worker("c/01_x", {"/3"})};
  auto plan = plan_admission(in);
  ASSERT_EQ(plan.entries.size(), 3u);
  EXPECT_EQ(plan.entries[0].task, "c/01_x");
  EXPECT_EQ(plan.entries[1].task, "a/02_x");
  EXPECT_EQ(plan.entries[2].task, "b/02_x");
}

TEST(admission, admitted_claims_are_sorted_unique_and_reported_on_the_entry) {
  admission_input in;
  in.tasks = {worker("g/01_a", {"/w/b", "/w/a", "/w/b"})};
  auto plan = plan_admission(in);
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].claim, claim("g/01_a", {"/w/a", "/w/b"}).second);
}

TEST(admission, a_live_entry_here_wins_over_stale_elsewhere_evidence) {
  admission_input in;
  in.tasks = {worker("g/01_a", {"/w/a"})};
  in.live = {{"g/01_a", live_where::elsewhere}, {"g/01_a", live_where::here}};
  in.max_parallel = 2;
  auto plan = plan_admission(in);
  EXPECT_EQ(plan.occupied, 1);
  EXPECT_EQ(plan.entries[0].kind, admission_kind::running_here);
}

TEST(admission, unlimited_parallelism_admits_a_large_disjoint_set) {
  admission_input in;
  for (int i = 0; i < 2000; ++i)
    in.tasks.push_back(worker("g" + std::to_string(i) + "/01_t", {"/w/" + std::to_string(i)}));
  auto plan = plan_admission(in);
  EXPECT_EQ(plan.admitted.size(), 2000u);
  EXPECT_TRUE(plan.capacity_waiters.empty());
}

} // namespace
} // namespace ad::runtime
