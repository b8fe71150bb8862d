// What `status` shows of the writes outside a claim that the durable state
// recorded: one line per violation in the text, one JSON line each.
#include "runtime/observe/status_view.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace ad::runtime {
namespace {

constexpr millis status_t0 = 1'800'000'000'000; // 2027-01-15T08:00:00.000Z

status_report report_with(std::vector<claim_violation_record> violations) {
  status_report r;
  r.workspace = "/ws";
  r.state_root = "/ws/.git/agent-dispatch";
  r.state_exists = true;
  r.claim_violations = std::move(violations);
  return r;
}

claim_violation_record by_writer() {
  return {"g/01_a", "g_01_a__p1__worker__a01", "/ws/README.md", "g/02_b", "fanotify", {},
          "block", status_t0};
}

claim_violation_record by_candidates() {
  return {"", "", "/ws/Makefile", "", "candidates", {"g_01_a__p1__worker__a01",
                                                     "g_03_c__p1__worker__a01"},
          "warn", status_t0 + 1000};
}

TEST(status_claim_violations, each_recorded_violation_is_one_line_of_the_text) {
  manual_clock clk(status_t0);
  auto text = render_status_text(report_with({by_writer(), by_candidates()}), clk);
  EXPECT_NE(text.find("claim violation: g/01_a attempt g_01_a__p1__worker__a01 wrote "
                      "/ws/README.md outside its claim (claimed by g/02_b); fanotify, block, "
                      "2027-01-15T08:00:00.000Z\n"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("claim violation: /ws/Makefile was written outside every claim by one of "
                      "g_01_a__p1__worker__a01, g_03_c__p1__worker__a01; candidates, warn, "
                      "2027-01-15T08:00:01.000Z\n"),
            std::string::npos)
    << text;
}

TEST(status_claim_violations, the_text_shows_the_newest_twenty_and_counts_the_rest) {
  std::vector<claim_violation_record> many;
  for (int i = 0; i < 25; ++i) {
    auto v = by_writer();
    v.path = "/ws/f" + std::to_string(i);
    many.push_back(v);
  }
  manual_clock clk(status_t0);
  auto text = render_status_text(report_with(many), clk);
  EXPECT_NE(text.find("5 earlier claim violations not shown\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("wrote /ws/f4 "), std::string::npos);
  EXPECT_NE(text.find("wrote /ws/f5 "), std::string::npos);
  EXPECT_NE(text.find("wrote /ws/f24 "), std::string::npos);
}

TEST(status_claim_violations, json_lines_carry_one_claim_violation_event_each) {
  auto out = render_status_json_lines(report_with({by_writer(), by_candidates()}));
  std::vector<json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 4u); // dispatcher, two violations, summary
  EXPECT_EQ(lines[0].at("event"), "dispatcher");
  EXPECT_EQ(lines[3].at("event"), "summary");
  const auto& a = lines[1];
  EXPECT_EQ(a.at("event"), "claim_violation");
  EXPECT_EQ(a.at("task"), "g/01_a");
  EXPECT_EQ(a.at("attempt"), "g_01_a__p1__worker__a01");
  EXPECT_EQ(a.at("path"), "/ws/README.md");
  EXPECT_EQ(a.at("other_task"), "g/02_b");
  EXPECT_EQ(a.at("attribution"), "fanotify");
  EXPECT_EQ(a.at("action"), "block");
  EXPECT_EQ(a.at("time"), "2027-01-15T08:00:00.000Z");
  const auto& b = lines[2];
  EXPECT_EQ(b.at("task"), "");
  EXPECT_EQ(b.at("candidates"),
            json::array({"g_01_a__p1__worker__a01", "g_03_c__p1__worker__a01"}));
}

token_usage spent(int64_t in, int64_t out, std::optional<double> cost = std::nullopt) {
  token_usage u;
  u.input_tokens = in;
  u.output_tokens = out;
  u.cost_usd = cost;
  return u;
}

status_report report_with_spending() {
  auto r = report_with({});
  status_task t;
  t.name = "g/01_a";
  t.stage = "worker";
  t.status = "complete";
  t.reason = "done";
  t.spent = spent(1200, 40, 0.0028);
  r.tasks.push_back(t);
  t.name = "g/02_b";
  t.spent = {};
  r.tasks.push_back(t);
  r.spent = spent(1200, 40, 0.0028);
  r.spent_by_target["sim-a"] = spent(1000, 30, 0.0028);
  r.spent_by_target["sim-b"] = spent(200, 10);
  return r;
}

TEST(status_usage, the_text_shows_each_tasks_spend_and_the_runs_per_target) {
  manual_clock clk(status_t0);
  auto text = render_status_text(report_with_spending(), clk);
  EXPECT_NE(text.find("g/01_a  stage=worker status=complete attempts=0\n    done\n"
                      "    spent 1,200 in · 40 out · $0.0028\n"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("g/02_b  stage=worker status=complete attempts=0\n    done\nspent: "),
            std::string::npos)
    << "a task that spent nothing has no line: " << text;
  EXPECT_NE(text.find("spent: 1,200 in · 40 out · $0.0028\n    sim-a: 1,000 in · 30 out · $0.0028\n"
                      "    sim-b: 200 in · 10 out\n"),
            std::string::npos)
    << text;
  EXPECT_EQ(render_status_text(report_with({}), clk).find("spent"), std::string::npos);
}

TEST(status_usage, json_lines_carry_per_task_run_and_per_target_usage) {
  auto out = render_status_json_lines(report_with_spending());
  std::vector<json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 4u); // dispatcher, two tasks, summary
  EXPECT_EQ(lines[1].at("usage"),
            (json{{"input_tokens", 1200}, {"output_tokens", 40}, {"cost_usd", 0.0028}}));
  EXPECT_EQ(lines[2].at("usage"), json::object());
  EXPECT_EQ(lines[3].at("usage").at("input_tokens"), 1200);
  EXPECT_EQ(lines[3].at("usage_by_target").at("sim-b"),
            (json{{"input_tokens", 200}, {"output_tokens", 10}}));
}

// A live run's cool-downs as the state records them: a line per target in
// the text, a "cooldown" JSON line each, and a task waiting for one names
// the target and the end in its wait object.
TEST(status_cooldowns, the_text_and_json_lines_name_the_target_and_its_end) {
  auto r = report_with({});
  r.cooldowns["agy"] = recorded_cooldown{"agy", status_t0 + 300'000, "g/01_a"};
  status_task waiting;
  waiting.name = "g/02_b";
  waiting.stage = "worker";
  waiting.status = "waiting";
  waiting.reason = "waiting for agy to cool down until 2027-01-15T08:05:00.000Z";
  waiting.wait = "cool-down";
  waiting.wait_target = "agy";
  waiting.wait_until = status_t0 + 300'000;
  r.tasks = {waiting};
  manual_clock clk(status_t0);
  auto text = render_status_text(r, clk);
  EXPECT_NE(text.find("cool-down: agy until 2027-01-15T08:05:00.000Z (a quota failure of g/01_a)"),
            std::string::npos)
    << text;
  std::vector<json> lines;
  std::istringstream in(render_status_json_lines(r));
  for (std::string line; std::getline(in, line);)
    lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 4u); // dispatcher, the task, the cool-down, summary
  EXPECT_EQ(lines[1].at("wait"), (json{{"kind", "cool-down"},
                                       {"until", "2027-01-15T08:05:00.000Z"},
                                       {"target", "agy"},
                                       {"owner", ""}}));
  EXPECT_EQ(lines[2], (json{{"event", "cooldown"},
                            {"target", "agy"},
                            {"until", "2027-01-15T08:05:00.000Z"},
                            {"task", "g/01_a"}}));
  EXPECT_EQ(lines[3].at("event"), "summary");
}

} // namespace
} // namespace ad::runtime
