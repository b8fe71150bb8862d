// What a write outside a claim does: the durable record, the block under
// policy `block`, the run event, the work-log rows and what holds admission.
#include "runtime/claims/violation_outcome.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

constexpr millis t0 = 1'800'000'000'000;

std::map<std::string, watched_attempt> known() {
  return {{"g_01_a__p1__worker__a02",
           {"g/01_a", "g_01_a__p1__worker__a02", "m1", {"/w/a"}, t0,
            "/s/runs/20270115T080000Z__g_01_a__p1__worker__a02/locator.json"}},
          {"h_01_x__p3__review__a01", {"h/01_x", "h_01_x__p3__review__a01", "m2", {}, t0, ""}}};
}

violation_outcome decide(const claim_violation& v, violation_action action,
                         std::vector<live_violation> live = {}) {
  static const auto attempts = known();
  violation_input in;
  in.violation = &v;
  in.attempts = &attempts;
  in.live = std::move(live);
  in.action = action;
  in.workspace = "/w";
  in.now = t0;
  return decide_violation(in);
}

TEST(attempt_identity, role_and_counter_come_from_the_tail) {
  auto p = parse_attempt_identity("auth_02_01_api__p1__selfcheck__a12");
  EXPECT_EQ(p.role, "selfcheck");
  EXPECT_EQ(p.attempt, 12);
  EXPECT_EQ(parse_attempt_identity("nothing").attempt, 0);
  EXPECT_EQ(parse_attempt_identity("x__worker__b01").role, "");
  EXPECT_EQ(parse_attempt_identity("x__worker__a1x").attempt, 0);
}

TEST(violation_outcome, warn_records_shows_logs_and_notes_without_blocking) {
  claim_violation v{"g/01_a", "g_01_a__p1__worker__a02", "/w/README.md", "g/02_b",
                    attribution_basis::fanotify, {}};
  auto o = decide(v, violation_action::warn, {{"/w/README.md", "g_01_a__p1__worker__a02", "g/01_a"}});
  ASSERT_EQ(o.changes.size(), 1u);
  const auto* rec = std::get_if<record_claim_violation>(&o.changes[0]);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->task, "g/01_a");
  EXPECT_EQ(rec->attempt, "g_01_a__p1__worker__a02");
  EXPECT_EQ(rec->path, "/w/README.md");
  EXPECT_EQ(rec->other_task, "g/02_b");
  EXPECT_EQ(rec->attribution, "fanotify");
  EXPECT_EQ(rec->action, "warn");
  EXPECT_EQ(rec->at, t0);
  EXPECT_TRUE(o.stop_task.empty());

  EXPECT_EQ(o.event.kind, run_event_kind::claim_violation);
  EXPECT_EQ(o.event.task, "g/01_a");
  EXPECT_EQ(o.event.role, "worker");
  EXPECT_EQ(o.event.attempt, 2);
  EXPECT_EQ(o.event.identity, "g_01_a__p1__worker__a02");
  EXPECT_EQ(o.event.path, "/w/README.md");
  EXPECT_EQ(o.event.other_task, "g/02_b");
  EXPECT_EQ(o.event.action, "warn");
  EXPECT_EQ(o.event.reason, "wrote /w/README.md outside its claim (claimed by g/02_b)");

  ASSERT_EQ(o.rows.size(), 1u);
  EXPECT_EQ(o.rows[0].log, std::filesystem::path("/w/agent-task/g/WORK_LOG.md"));
  EXPECT_EQ(o.rows[0].row.event, "CLAIM");
  EXPECT_EQ(o.rows[0].row.task, "g/01_a");
  EXPECT_EQ(o.rows[0].row.role, "worker");
  EXPECT_EQ(o.rows[0].row.attempt, 2);
  EXPECT_EQ(o.rows[0].row.result, "/w/README.md");
  EXPECT_EQ(o.rows[0].row.locator,
            "/s/runs/20270115T080000Z__g_01_a__p1__worker__a02/locator.json");
  EXPECT_EQ(o.live.size(), 1u);
}

TEST(violation_outcome, block_blocks_the_writers_task_with_a_reason_naming_the_path) {
  claim_violation v{"g/01_a", "g_01_a__p1__worker__a02", "/w/README.md", "",
                    attribution_basis::elimination, {}};
  auto o = decide(v, violation_action::block);
  ASSERT_EQ(o.changes.size(), 2u);
  EXPECT_EQ(std::get<record_claim_violation>(o.changes[0]).action, "block");
  const auto& blocked = std::get<set_blocked>(o.changes[1]);
  EXPECT_EQ(blocked.task, "g/01_a");
  EXPECT_EQ(blocked.info.reason,
            "claim violation: attempt g_01_a__p1__worker__a02 wrote /w/README.md outside the "
            "task's claim");
  auto evidence = json::parse(blocked.info.evidence);
  EXPECT_EQ(evidence.at("path"), "/w/README.md");
  EXPECT_EQ(evidence.at("attribution"), "elimination");
  EXPECT_EQ(o.stop_task, "g/01_a");
  EXPECT_EQ(o.block_reason, blocked.info.reason);
  EXPECT_EQ(o.event.action, "block");
  EXPECT_EQ(o.event.reason, "wrote /w/README.md outside its claim; the task is blocked");
}

TEST(violation_outcome, without_one_writer_nothing_is_blocked_and_each_candidate_gets_a_row) {
  claim_violation v{"", "", "/w/Makefile", "", attribution_basis::candidates,
                    {"g_01_a__p1__worker__a02", "h_01_x__p3__review__a01"}};
  auto o = decide(v, violation_action::block);
  ASSERT_EQ(o.changes.size(), 1u);
  EXPECT_EQ(std::get<record_claim_violation>(o.changes[0]).action, "warn");
  EXPECT_TRUE(o.stop_task.empty());
  EXPECT_EQ(o.event.task, "");
  EXPECT_EQ(o.event.action, "warn");
  EXPECT_EQ(o.event.reason, "/w/Makefile was written outside every claim by one of "
                            "g_01_a__p1__worker__a02, h_01_x__p3__review__a01");
  ASSERT_EQ(o.rows.size(), 2u);
  EXPECT_EQ(o.rows[1].log, std::filesystem::path("/w/agent-task/h/WORK_LOG.md"));
  EXPECT_EQ(o.rows[1].row.task, "h/01_x");
  EXPECT_EQ(o.rows[1].row.role, "review");
  EXPECT_EQ(o.rows[1].row.result, "/w/Makefile (one of 2 candidates)");
  // Without a locator the identity names the attempt.
  EXPECT_EQ(o.rows[1].row.locator, "h_01_x__p3__review__a01");
}

TEST(attempt_locator, the_newest_folder_of_the_identity_is_found) {
  test::temp_dir runs;
  runs.write("20270115T080000Z__g_01_a__p1__worker__a01/locator.json", "{}");
  runs.write("20270115T090000Z__g_01_a__p1__worker__a01/locator.json", "{}");
  runs.write("20270115T100000Z__g_01_a__p1__worker__a011/locator.json", "{}");
  EXPECT_EQ(find_attempt_locator(runs.path(), "g_01_a__p1__worker__a01"),
            (runs.path() / "20270115T090000Z__g_01_a__p1__worker__a01/locator.json").string());
  EXPECT_EQ(find_attempt_locator(runs.path(), "g_09_z__p1__worker__a01"), "");
  EXPECT_EQ(find_attempt_locator(runs.path() / "missing", "x"), "");
}

} // namespace
} // namespace ad::runtime
