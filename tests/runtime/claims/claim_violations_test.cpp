#include "runtime/claims/claim_violations.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

const std::string violation_a_cpp = "/w/src/a.cpp";
const std::string violation_b_cpp = "/w/src/b.cpp";
const std::string c_cpp = "/w/src/c.cpp";
const std::string free_txt = "/w/notes.txt";

attempt_window window_of(std::string task, std::string id, std::vector<std::string> write_set,
                       millis started = 1000, millis ended = 0) {
  return {task, id, "m-" + id, std::move(write_set), started, ended};
}

observed_change snapshot_change(std::string path, millis at = 0) {
  return {std::move(path), writer_source::snapshot, {}, at};
}

observed_change fanotify_change(std::string path, std::string marker, millis at = 0) {
  return {std::move(path), writer_source::fanotify, std::move(marker), at};
}

TEST(claim_violations, one_attempt_is_the_writer_by_elimination) {
  std::vector<attempt_window> attempts = {window_of("g/01_a", "a1", {violation_a_cpp})};
  claim_map claims = {{"g/01_a", {violation_a_cpp}}, {"g/02_b", {violation_b_cpp}}};
  auto r = judge_claim_writes({snapshot_change(violation_a_cpp), snapshot_change(free_txt),
                               snapshot_change(violation_b_cpp)},
                              attempts, claims);
  EXPECT_EQ(r.violations, (std::vector<claim_violation>{
                              {"g/01_a", "a1", free_txt, "", attribution_basis::elimination, {}},
                              {"g/01_a", "a1", violation_b_cpp, "g/02_b", attribution_basis::elimination, {}},
                          }));
  EXPECT_TRUE(r.unattributed.empty());
}

TEST(claim_violations, with_several_attempts_a_path_in_exactly_one_write_set_is_theirs) {
  std::vector<attempt_window> attempts = {window_of("g/01_a", "a1", {violation_a_cpp}),
                                          window_of("g/02_b", "b1", {violation_b_cpp})};
  claim_map claims = {{"g/01_a", {violation_a_cpp}}, {"g/02_b", {violation_b_cpp}}, {"g/03_c", {c_cpp}}};
  auto r = judge_claim_writes({snapshot_change(violation_a_cpp), snapshot_change(violation_b_cpp),
                               snapshot_change(free_txt), snapshot_change(c_cpp)},
                              attempts, claims);
  EXPECT_EQ(r.violations, (std::vector<claim_violation>{
                              {"", "", free_txt, "", attribution_basis::candidates, {"a1", "b1"}},
                              {"", "", c_cpp, "g/03_c", attribution_basis::candidates, {"a1", "b1"}},
                          }));
}

TEST(claim_violations, the_change_time_narrows_the_candidates) {
  // a1 ran 1000..5000, b1 from 20000 on: a change at 30000 is b1's alone.
  std::vector<attempt_window> attempts = {window_of("g/01_a", "a1", {violation_a_cpp}, 1000, 5000),
                                          window_of("g/02_b", "b1", {violation_b_cpp}, 20000)};
  auto r = judge_claim_writes({snapshot_change(free_txt, 30000), snapshot_change(violation_a_cpp, 30000)},
                              attempts, {});
  EXPECT_EQ(r.violations, (std::vector<claim_violation>{
                              {"g/02_b", "b1", free_txt, "", attribution_basis::elimination, {}},
                              {"g/02_b", "b1", violation_a_cpp, "", attribution_basis::elimination, {}},
                          }));
  // Within the slack after a1's end it is a1's; a time that fits no attempt
  // names them all.
  auto near_end = judge_claim_writes({snapshot_change(free_txt, 6000)}, attempts, {});
  ASSERT_EQ(near_end.violations.size(), 1u);
  EXPECT_EQ(near_end.violations[0].attempt, "a1");
  auto between = judge_claim_writes({snapshot_change(free_txt, 12000)}, attempts, {});
  ASSERT_EQ(between.violations.size(), 1u);
  EXPECT_EQ(between.violations[0].candidates, (std::vector<std::string>{"a1", "b1"}));
}

TEST(claim_violations, a_path_in_the_writers_own_write_set_is_never_a_violation) {
  std::vector<attempt_window> attempts = {window_of("g/01_a", "a1", {violation_a_cpp}),
                                          window_of("g/02_b", "b1", {violation_b_cpp})};
  // Even when another task's claim also covers it.
  claim_map claims = {{"g/01_a", {violation_a_cpp}}, {"g/09_z", {violation_a_cpp}}};
  auto r = judge_claim_writes({fanotify_change(violation_a_cpp, "m-a1"), fanotify_change(violation_b_cpp, "m-b1")},
                              attempts, claims);
  EXPECT_TRUE(r.violations.empty());
}

TEST(claim_violations, fanotify_names_the_writer_and_the_claim_it_broke) {
  std::vector<attempt_window> attempts = {window_of("g/01_a", "a1", {violation_a_cpp}),
                                          window_of("g/02_b", "b1", {violation_b_cpp})};
  claim_map claims = {{"g/01_a", {violation_a_cpp}}, {"g/02_b", {violation_b_cpp}}};
  // b1 wrote a.cpp; the snapshot saw the same change and adds nothing.
  auto r = judge_claim_writes({fanotify_change(violation_a_cpp, "m-b1"), snapshot_change(violation_a_cpp),
                               fanotify_change(violation_a_cpp, "m-b1")},
                              attempts, claims);
  EXPECT_EQ(r.violations, (std::vector<claim_violation>{
                              {"g/02_b", "b1", violation_a_cpp, "g/01_a", attribution_basis::fanotify, {}},
                          }));
}

TEST(claim_violations, an_untraced_fanotify_writer_falls_back_to_the_candidates) {
  std::vector<attempt_window> attempts = {window_of("g/01_a", "a1", {violation_a_cpp})};
  auto r = judge_claim_writes({fanotify_change(free_txt, "")}, attempts, {});
  EXPECT_EQ(r.violations, (std::vector<claim_violation>{
                              {"g/01_a", "a1", free_txt, "", attribution_basis::elimination, {}},
                          }));
}

TEST(claim_violations, writes_no_attempt_of_the_window_can_own_are_unattributed) {
  std::vector<attempt_window> attempts = {window_of("g/01_a", "a1", {violation_a_cpp})};
  auto foreign = judge_claim_writes({fanotify_change(free_txt, "m-elsewhere")}, attempts, {});
  EXPECT_TRUE(foreign.violations.empty());
  ASSERT_EQ(foreign.unattributed.size(), 1u);
  EXPECT_EQ(foreign.unattributed[0].path, free_txt);
  EXPECT_NE(foreign.unattributed[0].reason.find("m-elsewhere"), std::string::npos);

  auto idle = judge_claim_writes({snapshot_change(free_txt)}, {}, {});
  EXPECT_TRUE(idle.violations.empty());
  EXPECT_EQ(idle.unattributed,
            (std::vector<unattributed_change>{{free_txt, "changed while no attempt ran"}}));
}

TEST(claim_violations, attribution_names_are_stable) {
  EXPECT_EQ(to_string(attribution_basis::fanotify), "fanotify");
  EXPECT_EQ(to_string(attribution_basis::elimination), "elimination");
  EXPECT_EQ(to_string(attribution_basis::candidates), "candidates");
}

} // namespace
} // namespace ad::runtime
