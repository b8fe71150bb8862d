#include "runtime/run/exit_code.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

struct exit_case {
  std::string label;
  run_observation obs;
  int code;
  std::string summary_contains;
};

run_observation all_done(int n) {
  run_observation o;
  o.observed = n;
  o.complete = n;
  return o;
}

std::vector<exit_case> cases() {
  std::vector<exit_case> out;
  out.push_back({"every observed task complete", all_done(4), 0, "all 4 observed task(s) complete"});
  {
    auto o = all_done(2);
    o.interrupted = true;
    o.terminal_error = "state bound to another workspace";
    out.push_back({"interrupted wins over everything", o, 130, "interrupted"});
  }
  {
    auto o = all_done(2);
    o.terminal_error = "state bound to workspace a1b2, this is c3d4";
    o.other_dispatcher = "pid 7";
    out.push_back({"terminal state error is 2", o, 2, "a1b2"});
  }
  {
    run_observation o;
    o.other_dispatcher = "pid 4242 (started 2026-11-29T10:00:00Z)";
    out.push_back({"another dispatcher owns the workspace", o, 3, "pid 4242"});
  }
  {
    auto o = all_done(3);
    o.complete = 2;
    o.not_complete = {"g/01_a: blocked: x"};
    o.external_live = {"g/02_b: pid 9 alive"};
    out.push_back({"external live attempts outrank blocked tasks", o, 3, "1 live attempt"});
  }
  {
    auto o = all_done(3);
    o.reconciliation_pending = {"work-log-archive[g]=conflicting rows"};
    out.push_back({"reconciliation pending", o, 3, "reconciliation"});
  }
  {
    auto o = all_done(3);
    o.complete = 1;
    o.capacity_held_externally = {"g/03_c"};
    out.push_back({"capacity held by another dispatcher", o, 3, "capacity"});
  }
  {
    run_observation o;
    o.task_group_requested = true;
    out.push_back({"a task group with nothing observed", o, 2, "no active task"});
  }
  {
    auto o = all_done(5);
    o.complete = 3;
    o.not_complete = {"g/04_d: waiting for 03_* to complete", "g/05_e: no valid write set: x"};
    out.push_back({"nothing runnable", o, 2, "2 task(s) not complete"});
  }
  {
    auto o = all_done(5);
    o.complete = 4;
    out.push_back({"a count shortfall alone is not complete", o, 2, "1 task(s) not complete"});
  }
  out.push_back({"an empty workspace is complete", run_observation{}, 0, "all 0"});
  return out;
}

TEST(exit_code, follows_spec_section_10) {
  for (const auto& c : cases()) {
    auto e = compute_run_exit(c.obs);
    EXPECT_EQ(e.code, c.code) << c.label;
    EXPECT_NE(e.summary.find(c.summary_contains), std::string::npos) << c.label << ": " << e.summary;
  }
}

TEST(exit_code, details_list_each_external_reason) {
  run_observation o;
  o.external_live = {"a: pid 1", "b: pid 2"};
  o.reconciliation_pending = {"attempt-log-cleanup[c]=/runs/x"};
  auto e = compute_run_exit(o);
  EXPECT_EQ(e.kind, run_exit_kind::waiting_outside);
  EXPECT_EQ(e.details, (std::vector<std::string>{"running elsewhere: a: pid 1", "running elsewhere: b: pid 2",
                                                 "reconciliation: attempt-log-cleanup[c]=/runs/x"}));
}

} // namespace
} // namespace ad::runtime
