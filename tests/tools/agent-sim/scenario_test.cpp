#include "tools/agent-sim/scenario.hpp"

#include <gtest/gtest.h>

#include "tools/agent-sim/demo_scenario.hpp"
#include "tools/agent-sim/help_text.hpp"

namespace ad::agent_sim {
namespace {

std::string error_of(std::string_view text) {
  auto s = parse_scenario_text(text, "s.json");
  EXPECT_FALSE(s.is_ok()) << "expected a parse error for " << text;
  return s.is_ok() ? "" : s.error().message();
}

TEST(scenario, parses_every_action_kind) {
  auto s = parse_scenario_text(R"({
    "version": 1,
    "tasks": {
      "auth/02+01_api": {
        "worker": {
          "1": {"actions": [
            {"kind": "events", "count": 3, "interval_seconds": 0.5},
            {"kind": "fail", "failure": "rate_limit", "retry_after_seconds": 30, "exit_code": 3}
          ]},
          "2": [{"kind": "silence", "seconds": 1.5}, {"kind": "work", "checklist": "first", "mode": "touch"}],
          "default": [{"kind": "hang", "in": "tool_call"}]
        },
        "review": {"1": [{"kind": "review", "verdict": "FAIL"}],
                   "2": [{"kind": "review", "verdict": "WARN", "follow_up": false}]},
        "selfcheck": {"1": [{"kind": "selfcheck"}, {"kind": "spawn_child", "seconds": 5},
                            {"kind": "write", "path": "a.txt", "content": "x"},
                            {"kind": "collab_tool", "tool": "send_input"},
                            {"kind": "exit", "signal": "SIGTERM"}]}
      }
    },
    "defaults": {"worker": [{"kind": "fail", "failure": "file_exists", "path": "src/a.cpp", "signal": "KILL"}]}
  })", "s.json");
  ASSERT_TRUE(s.is_ok()) << s.error().to_string();
  const auto& worker = s->tasks.at("auth/02+01_api").at("worker");
  ASSERT_EQ(worker.by_attempt.at(1).size(), 2u);
  EXPECT_EQ(worker.by_attempt.at(1)[0].kind, action_kind::events);
  EXPECT_EQ(worker.by_attempt.at(1)[0].count, 3);
  EXPECT_DOUBLE_EQ(worker.by_attempt.at(1)[0].seconds, 0.5);
  const action& fail = worker.by_attempt.at(1)[1];
  EXPECT_EQ(fail.failure, failure_kind::rate_limit);
  EXPECT_EQ(fail.retry_after_seconds.value_or(-1), 30);
  EXPECT_EQ(fail.exit_code, 3);
  EXPECT_EQ(worker.by_attempt.at(2)[1].checklist, checklist_fill::first);
  EXPECT_EQ(worker.by_attempt.at(2)[1].mode, write_mode::touch);
  ASSERT_TRUE(worker.fallback.has_value());
  EXPECT_EQ((*worker.fallback)[0].place, hang_place::tool_call);
  const auto& review = s->tasks.at("auth/02+01_api").at("review");
  EXPECT_EQ(review.by_attempt.at(1)[0].verdict, "FAIL");
  EXPECT_EQ(review.by_attempt.at(1)[0].follow_up, review_follow_up::next_generation);
  EXPECT_EQ(review.by_attempt.at(2)[0].verdict, "WARN");
  EXPECT_EQ(review.by_attempt.at(2)[0].follow_up, review_follow_up::stop);
  const auto& sc = s->tasks.at("auth/02+01_api").at("selfcheck").by_attempt.at(1);
  EXPECT_EQ(sc[3].tool, "send_input");
  EXPECT_EQ(sc[4].signal, 15);
  EXPECT_EQ(s->defaults.at("worker")[0].signal, 9);
  EXPECT_EQ(s->defaults.at("worker")[0].path, "src/a.cpp");
}

TEST(scenario, selects_attempt_then_default_then_role_default_then_competent) {
  auto s = parse_scenario_text(R"({"tasks": {"g/01_a": {"worker": {
      "2": [{"kind": "exit", "code": 7}], "default": [{"kind": "exit", "code": 8}]}}},
    "defaults": {"review": [{"kind": "exit", "code": 9}]}})", "s.json");
  ASSERT_TRUE(s.is_ok()) << s.error().to_string();
  EXPECT_EQ(select_actions(*s, "g/01_a", "worker", 2)[0].exit_code, 7);
  EXPECT_EQ(select_actions(*s, "g/01_a", "worker", 1)[0].exit_code, 8);
  EXPECT_EQ(select_actions(*s, "g/01_a", "review", 1)[0].exit_code, 9);
  auto competent = select_actions(*s, "g/01_a", "selfcheck", 1);
  ASSERT_EQ(competent.size(), 2u);
  EXPECT_EQ(competent[1].kind, action_kind::selfcheck);
  EXPECT_EQ(select_actions(*s, "other/01_b", "worker", 1).back().kind, action_kind::work);
  EXPECT_EQ(select_actions(scenario{}, "x", "review", 4).back().verdict, "PASS");
}

TEST(scenario, unknown_action_names_the_escaped_json_pointer) {
  EXPECT_EQ(error_of(R"({"tasks": {"auth/02_api": {"worker": {"1": {"actions": [{"kind": "explode"}]}}}}})"),
            "s.json: /tasks/auth~102_api/worker/1/actions/0/kind: unknown action \"explode\"");
}

TEST(scenario, bad_values_name_their_pointer) {
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"review": {"1": [{"kind": "review", "verdict": "MAYBE"}]}}}})"),
            "s.json: /tasks/t/review/1/0/verdict: expected \"PASS\", \"WARN\" or \"FAIL\"");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"review": {"1": [{"kind": "review", "follow_up": "no"}]}}}})"),
            "s.json: /tasks/t/review/1/0/follow_up: expected true or false");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"first": []}}}})"),
            "s.json: /tasks/t/worker/first: expected an attempt number >= 1 or \"default\"");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"coder": {}}}})"),
            "s.json: /tasks/t/coder: unknown role \"coder\" (expected worker, selfcheck or review)");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "fail", "failure": "meteor"}]}}}})"),
            "s.json: /tasks/t/worker/1/0/failure: unknown failure \"meteor\"");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "silence"}]}}}})"),
            "s.json: /tasks/t/worker/1/0/seconds: missing");
  // 1e300 s reached a cast to time_t when the child was spawned.
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "spawn_child", "seconds": 1e300}]}}}})"),
            "s.json: /tasks/t/worker/1/0/seconds: expected seconds in 0..1000000");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "silence", "seconds": -1}]}}}})"),
            "s.json: /tasks/t/worker/1/0/seconds: expected seconds in 0..1000000");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "events", "cont": 3}]}}}})"),
            "s.json: /tasks/t/worker/1/0/cont: unknown key \"cont\"");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "fail", "signal": "SIGNOPE"}]}}}})"),
            "s.json: /tasks/t/worker/1/0/signal: unknown signal \"SIGNOPE\"");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "fail", "failure": "file_exists"}]}}}})"),
            "s.json: /tasks/t/worker/1/0/path: required for failure \"file_exists\"");
  EXPECT_EQ(error_of(R"({"tasks": {"t": {"worker": {"1": [{"kind": "events", "count": -1}]}}}})"),
            "s.json: /tasks/t/worker/1/0/count: must be between 0 and 100000");
  EXPECT_EQ(error_of(R"({"version": 2})"), "s.json: /version: unsupported version (expected 1)");
  EXPECT_EQ(error_of(R"({"taks": {}})"), "s.json: /taks: unknown key \"taks\"");
  EXPECT_EQ(error_of(R"([1, 2])"), "s.json: (document): a scenario is a JSON object");
}

TEST(scenario, variants_retries_and_the_refusal_are_checked) {
  auto s = parse_scenario_text(R"({"defaults": {"worker": [
      {"kind": "fail", "failure": "root_refusal"},
      {"kind": "retried", "failure": "stream_disconnected", "variant": "dropped", "times": 2},
      {"kind": "fail", "failure": "model_overloaded", "variant": "529"},
      {"kind": "fail", "failure": "usage_limit", "resets_at": "2026-12-01T18:33:20Z"}]}})", "s.json");
  ASSERT_TRUE(s.is_ok()) << s.error().to_string();
  const auto& w = s->defaults.at("worker");
  EXPECT_EQ(w[0].failure, failure_kind::root_refusal);
  EXPECT_FALSE(w[0].exit_code.has_value()) << "unset: the CLI's own exit code";
  EXPECT_EQ(w[1].kind, action_kind::retried);
  EXPECT_EQ(w[1].count, 2);
  EXPECT_EQ(w[1].variant, "dropped");
  EXPECT_EQ(w[2].variant, "529");
  EXPECT_EQ(w[3].failure, failure_kind::usage_limit);
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "fail", "failure": "rate_limit", "variant": "529"}]}})"),
            "s.json: /defaults/worker/0/variant: unknown variant \"529\" of failure \"rate_limit\" "
            "(expected \"http\", \"in_stream\")");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "fail", "failure": "error", "variant": "x"}]}})"),
            "s.json: /defaults/worker/0/variant: unknown variant \"x\" of failure \"error\" (it has none)");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "retried", "failure": "context_length"}]}})"),
            "s.json: /defaults/worker/0/failure: the CLIs do not retry \"context_length\" (rate_limit, "
            "resource_exhausted, model_overloaded, connection_refused or stream_disconnected)");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "retried"}]}})"),
            "s.json: /defaults/worker/0/failure: missing");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "events"}, {"kind": "fail", "failure": "root_refusal"}]}})"),
            "s.json: /defaults/worker/1/failure: \"root_refusal\" must be the first action");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "fail", "resets_at": "6pm"}]}})"),
            "s.json: /defaults/worker/0/resets_at: expected an ISO-8601 time");
}

TEST(scenario, usage_is_set_for_every_run_and_changed_by_an_action) {
  auto s = parse_scenario_text(R"({"usage": {"input_tokens": 5000, "cost_usd": 0.02},
      "defaults": {"worker": [{"kind": "usage", "output_tokens": 90, "cache_read_tokens": 7}, {"kind": "work"}]}})",
                               "s.json");
  ASSERT_TRUE(s.is_ok()) << s.error().to_string();
  EXPECT_EQ(s->usage.input_tokens, 5000);
  EXPECT_EQ(s->usage.cost_usd, 0.02);
  EXPECT_FALSE(s->usage.output_tokens);
  const action& u = s->defaults.at("worker")[0];
  EXPECT_EQ(u.kind, action_kind::usage);
  EXPECT_EQ(u.usage.output_tokens, 90);
  EXPECT_EQ(u.usage.cache_read_tokens, 7);
  EXPECT_FALSE(u.usage.input_tokens);
  EXPECT_EQ(error_of(R"({"usage": {"input_tokens": -5}})"),
            "s.json: /usage/input_tokens: is -5, a count cannot be negative");
  EXPECT_EQ(error_of(R"({"usage": {"tokens": 5}})"), "s.json: /usage/tokens: unknown key \"tokens\"");
  EXPECT_EQ(error_of(R"({"usage": 5})"), "s.json: /usage: expected an object of usage fields");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "usage", "cost_usd": "1"}]}})"),
            "s.json: /defaults/worker/0/cost_usd: has the wrong type (string), expected a number of US dollars");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "usage", "output_tokens": 1.5}]}})"),
            "s.json: /defaults/worker/0/output_tokens: holds 1.5 where a whole number of tokens belongs");
  EXPECT_EQ(error_of(R"({"defaults": {"worker": [{"kind": "usage", "in": 1}]}})"),
            "s.json: /defaults/worker/0/in: unknown key \"in\"");
}

TEST(scenario, invalid_json_is_reported_with_its_source) {
  std::string e = error_of("{\"tasks\": ");
  EXPECT_NE(e.find("s.json"), std::string::npos) << e;
}

TEST(scenario, demo_scenario_parses_and_scripts_failures) {
  auto doc = demo_scenario({"a/01_x", "a/02+01_y", "a/03_z", "a/04_w", "a/05_v"});
  auto s = parse_scenario(doc);
  ASSERT_TRUE(s.is_ok()) << s.error().to_string();
  EXPECT_EQ(s->tasks.size(), 4u);
  EXPECT_EQ(select_actions(*s, "a/01_x", "worker", 1).back().failure, failure_kind::rate_limit);
  EXPECT_EQ(select_actions(*s, "a/01_x", "worker", 2).back().kind, action_kind::work);
  EXPECT_EQ(select_actions(*s, "a/03_z", "worker", 1).back().failure, failure_kind::file_exists);
  EXPECT_EQ(select_actions(*s, "a/04_w", "review", 1).back().verdict, "FAIL");
  EXPECT_TRUE(parse_scenario(demo_scenario({})).is_ok());
}

TEST(scenario, help_documents_every_action_and_failure) {
  std::string help(help_text());
  for (auto k : {action_kind::work, action_kind::selfcheck, action_kind::review, action_kind::events,
                 action_kind::silence, action_kind::hang, action_kind::fail, action_kind::spawn_child,
                 action_kind::exit, action_kind::write, action_kind::collab_tool, action_kind::retried,
                 action_kind::wait_file, action_kind::usage})
    EXPECT_NE(help.find("\"kind\":\"" + std::string(to_string(k)) + "\""), std::string::npos) << to_string(k);
  for (int f = 0; f <= static_cast<int>(failure_kind::root_refusal); ++f) {
    std::string name(to_string(static_cast<failure_kind>(f)));
    EXPECT_NE(help.find(name), std::string::npos) << name;
  }
}

} // namespace
} // namespace ad::agent_sim
