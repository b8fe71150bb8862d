#include "runtime/report/event_render.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

constexpr millis render_t0 = 1'800'000'000'000;  // 2027-01-15T08:00:00.000Z

run_event make(run_event_kind kind, std::string task = "auth/01_api") {
  run_event e;
  e.kind = kind;
  e.time = render_t0;
  e.task = std::move(task);
  return e;
}

TEST(event_line, task_events_name_stage_and_one_line_reason) {
  auto e = make(run_event_kind::task_blocked);
  e.stage = "review";
  e.reason = "no verdict\nin the review log";
  EXPECT_EQ(render_event_line(e),
            "2027-01-15T08:00:00.000Z task_blocked auth/01_api stage=review: no verdict in the "
            "review log\n");
  auto s = make(run_event_kind::task_started);
  s.stage = "worker";
  EXPECT_EQ(render_event_line(s), "2027-01-15T08:00:00.000Z task_started auth/01_api stage=worker\n");
}

TEST(event_line, attempt_finished_carries_exit_class_and_evidence) {
  auto e = make(run_event_kind::attempt_finished);
  e.role = "worker";
  e.target = "codex-high";
  e.attempt_status = "failed";
  e.exit_code = 1;
  e.failure_class = "provider-quota";
  e.locator = "/s/runs/x/locator.json";
  e.evidence = "429 Too Many Requests";
  EXPECT_EQ(render_event_line(e),
            "2027-01-15T08:00:00.000Z attempt_finished auth/01_api role=worker target=codex-high "
            "status=failed exit=1 class=provider-quota locator=/s/runs/x/locator.json: 429 Too "
            "Many Requests\n");
}

TEST(event_line, an_attempts_usage_is_one_field_and_the_runs_is_in_the_summary) {
  auto e = make(run_event_kind::attempt_finished);
  e.role = "worker";
  e.target = "sim-a";
  e.attempt_status = "succeeded";
  e.usage.input_tokens = 1200;
  e.usage.output_tokens = 40;
  e.usage.cost_usd = 0.0028;
  EXPECT_EQ(render_event_line(e),
            "2027-01-15T08:00:00.000Z attempt_finished auth/01_api role=worker target=sim-a "
            "status=succeeded exit=0 spent=1,200in/40out/$0.0028\n");
  auto j = run_event_json(e);
  EXPECT_EQ(j.at("usage"), (json{{"input_tokens", 1200}, {"output_tokens", 40}, {"cost_usd", 0.0028}}));
  e.usage = {};
  EXPECT_FALSE(run_event_json(e).contains("usage")) << "no usage reported: no key";

  run_event s;
  s.kind = run_event_kind::summary;
  s.time = render_t0;
  s.counts = {{"complete", 2}};
  s.usage.input_tokens = 2400;
  s.usage.output_tokens = 80;
  EXPECT_EQ(render_event_line(s),
            "2027-01-15T08:00:00.000Z summary 2 tasks: 2 complete; spent 2,400 in · 80 out; exit 0\n");
  EXPECT_EQ(run_event_json(s).at("usage"), (json{{"input_tokens", 2400}, {"output_tokens", 80}}));
}

TEST(event_line, summary_counts_and_exit_code) {
  run_event e;
  e.kind = run_event_kind::summary;
  e.time = render_t0;
  e.counts = {{"complete", 3}, {"blocked", 1}};
  e.exit_code = 2;
  e.reason = "1 task blocked";
  EXPECT_EQ(render_event_line(e),
            "2027-01-15T08:00:00.000Z summary 4 tasks: 3 complete, 1 blocked; exit 2 (1 task "
            "blocked)\n");
}

TEST(event_json, every_event_has_event_and_time) {
  for (auto kind : {run_event_kind::tasks_scanned, run_event_kind::task_started,
                    run_event_kind::task_finished, run_event_kind::task_failed,
                    run_event_kind::task_blocked, run_event_kind::task_waiting,
                    run_event_kind::attempt_started, run_event_kind::attempt_finished,
                    run_event_kind::failover, run_event_kind::promotion,
                    run_event_kind::tactical_match, run_event_kind::supervisor_wait,
                    run_event_kind::summary, run_event_kind::claim_violation}) {
    auto j = run_event_json(make(kind));
    EXPECT_EQ(j.at("event"), std::string(to_string(kind)));
    EXPECT_EQ(j.at("time"), "2027-01-15T08:00:00.000Z");
  }
}

run_event violation() {
  auto e = make(run_event_kind::claim_violation);
  e.role = "worker";
  e.attempt = 1;
  e.identity = "auth_01_api__p1__worker__a01";
  e.path = "/repo/README.md";
  e.other_task = "auth/02_ui";
  e.attribution = "fanotify";
  e.action = "warn";
  e.reason = "wrote /repo/README.md outside its claim\n(claimed by auth/02_ui)";
  return e;
}

TEST(event_line, claim_violation_names_the_attempt_path_owner_basis_and_action) {
  EXPECT_EQ(render_event_line(violation()),
            "2027-01-15T08:00:00.000Z claim_violation auth/01_api role=worker "
            "identity=auth_01_api__p1__worker__a01 path=/repo/README.md other=auth/02_ui "
            "basis=fanotify action=warn: wrote /repo/README.md outside its claim (claimed by "
            "auth/02_ui)\n");
  // Without one writer: no task, the candidates instead.
  auto c = make(run_event_kind::claim_violation, "");
  c.path = "/repo/x";
  c.attribution = "candidates";
  c.candidates = {"a01", "b01"};
  c.action = "warn";
  EXPECT_EQ(render_event_line(c), "2027-01-15T08:00:00.000Z claim_violation path=/repo/x "
                                  "basis=candidates candidates=a01,b01 action=warn\n");
}

TEST(event_json, claim_violation_keys) {
  auto j = run_event_json(violation());
  EXPECT_EQ(j.at("event"), "claim_violation");
  EXPECT_EQ(j.at("task"), "auth/01_api");
  EXPECT_EQ(j.at("role"), "worker");
  EXPECT_EQ(j.at("attempt"), 1);
  EXPECT_EQ(j.at("identity"), "auth_01_api__p1__worker__a01");
  EXPECT_EQ(j.at("path"), "/repo/README.md");
  EXPECT_EQ(j.at("other_task"), "auth/02_ui");
  EXPECT_EQ(j.at("attribution"), "fanotify");
  EXPECT_EQ(j.at("candidates"), json::array());
  EXPECT_EQ(j.at("action"), "warn");
  EXPECT_EQ(j.at("reason"), "wrote /repo/README.md outside its claim (claimed by auth/02_ui)");
}

TEST(event_json, attempt_started_keys) {
  auto e = make(run_event_kind::attempt_started);
  e.role = "review";
  e.target = "claude-opus";
  e.cli = "claude";
  e.model = "opus";
  e.attempt = 2;
  e.identity = "auth_01_api__p1__review__a02";
  e.locator = "/s/runs/r/locator.json";
  auto j = run_event_json(e);
  EXPECT_EQ(j.at("task"), "auth/01_api");
  EXPECT_EQ(j.at("role"), "review");
  EXPECT_EQ(j.at("target"), "claude-opus");
  EXPECT_EQ(j.at("cli"), "claude");
  EXPECT_EQ(j.at("model"), "opus");
  EXPECT_EQ(j.at("attempt"), 2);
  EXPECT_EQ(j.at("identity"), "auth_01_api__p1__review__a02");
  EXPECT_EQ(j.at("locator"), "/s/runs/r/locator.json");
}

TEST(event_json, supervisor_events) {
  auto f = make(run_event_kind::failover);
  f.from_target = "a";
  f.to_target = "b";
  f.reason = "quota";
  auto jf = run_event_json(f);
  EXPECT_EQ(jf.at("from_target"), "a");
  EXPECT_EQ(jf.at("to_target"), "b");
  EXPECT_EQ(jf.at("reason"), "quota");
  auto t = make(run_event_kind::tactical_match);
  t.pattern_ids = {"p1", "p2"};
  t.action = "intervene";
  auto jt = run_event_json(t);
  EXPECT_EQ(jt.at("pattern_ids"), json::array({"p1", "p2"}));
  EXPECT_EQ(jt.at("action"), "intervene");
  auto w = make(run_event_kind::supervisor_wait);
  w.until = render_t0 + 90'000;
  EXPECT_EQ(run_event_json(w).at("until"), "2027-01-15T08:01:30.000Z");
}

TEST(event_json, summary_matches_dry_run_shape) {
  run_event e;
  e.kind = run_event_kind::summary;
  e.time = render_t0;
  e.counts = {{"complete", 5}, {"user-review", 1}};
  e.exit_code = 0;
  e.reason = "done";
  auto line = render_event_json_line(e);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  auto j = json::parse(line);
  EXPECT_EQ(j.at("event"), "summary");
  EXPECT_EQ(j.at("tasks"), 6);
  EXPECT_EQ(j.at("complete"), 5);
  EXPECT_EQ(j.at("user_review"), 1);
  EXPECT_EQ(j.at("blocked"), 0);
  EXPECT_EQ(j.at("running"), 0);
  EXPECT_EQ(j.at("exit_code"), 0);
  EXPECT_EQ(j.at("message"), "done");
}

TEST(event_json, invalid_utf8_does_not_throw) {
  auto e = make(run_event_kind::task_failed);
  e.reason = std::string("bad \xff byte");
  std::string line;
  EXPECT_NO_THROW(line = render_event_json_line(e));
  EXPECT_NE(line.find("bad"), std::string::npos);
}

TEST(one_line, folds_breaks_and_trims) {
  EXPECT_EQ(one_line("  a\n\n b\tc  "), "a b c");
  EXPECT_EQ(one_line(""), "");
}

} // namespace
} // namespace ad::runtime
