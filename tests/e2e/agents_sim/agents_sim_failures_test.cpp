// Every failure kind the agent simulator can produce, run under every
// adapter's real argv and classified by runtime/agents with the default
// pattern table: the class, its source, the evidence line (the CLI's own
// message inside it), the evidence origin and the reset time; plus runs
// killed by a signal or exiting 128+n.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <set>

#include "tests/e2e/agents_sim/agents_sim_fixture.hpp"

namespace ad::runtime {
namespace {

using namespace ad::runtime::testing;

// ---- every failure kind the simulator produces, for every CLI --------------

struct failure_case {
  std::string name;
  std::string action; // the scenario's fail action
  std::string failure_class;
  std::string failure_source;
  std::string message; // the CLI's message; {model} and {ws} are replaced
  bool pattern_class = true; // evidence decided by the pattern table
  int exit_code = 1;
  std::optional<std::string> reset_at;        // every CLI
  std::optional<std::string> claude_reset_at; // claude only (its rate_limit_event)
};

std::string substitute(std::string text, const std::string& model, const std::string& ws) {
  for (auto [key, value] : {std::pair<std::string, std::string>{"{model}", model}, {"{ws}", ws}}) {
    size_t at = text.find(key);
    if (at != std::string::npos)
      text.replace(at, key.size(), value);
  }
  return text;
}

// The CLI message carried by an evidence line of the given origin.
std::string message_in_evidence(const std::string& origin, const std::string& evidence) {
  if (origin == "codex:turn.failed" || origin == "codex:error") {
    auto j = parse_json(evidence, "evidence");
    if (!j)
      return "<not json: " + evidence + ">";
    const json& err = origin == "codex:error" ? *j : (*j)["error"];
    return err.value("message", "<no message>");
  }
  if (origin == "claude:result") {
    auto j = parse_json(evidence, "evidence");
    if (!j || !j->value("is_error", false))
      return "<not an error result: " + evidence + ">";
    std::string text = j->value("result", "");
    return text.starts_with("API Error: ") ? text.substr(11) : text;
  }
  if (origin == "agy-cli.log") {
    size_t at = evidence.find(" ERROR ");
    return at == std::string::npos ? "<no ERROR: " + evidence + ">" : evidence.substr(at + 7);
  }
  if (origin == "stderr") {
    for (std::string_view prefix : {"Error: ", "error: "})
      if (evidence.starts_with(prefix))
        return evidence.substr(prefix.size());
  }
  return "<unexpected origin " + origin + ": " + evidence + ">";
}

std::string expected_origin(adapter_kind kind, bool pattern_class) {
  switch (kind) {
    case adapter_kind::codex: return "codex:turn.failed";
    case adapter_kind::claude: return "claude:result";
    case adapter_kind::agy: return pattern_class ? "agy-cli.log" : "stderr";
    case adapter_kind::pi:
    case adapter_kind::command: return "stderr";
  }
  return "";
}

const std::vector<failure_case>& failure_cases() {
  static const std::vector<failure_case> cases = [] {
    const std::string quota = "provider-quota";
    const std::string cli_diag = "cli-terminal-diagnostic";
    const std::string provider_diag = "provider-terminal-diagnostic";
    std::vector<failure_case> c;
    c.push_back({"rate_limit_retry_after",
                 R"({"kind": "fail", "failure": "rate_limit", "retry_after_seconds": 30})", quota,
                 cli_diag, "HTTP 429 Too Many Requests: rate limit exceeded; retry after 30s", true,
                 1, "2026-11-29T13:00:30.000Z", std::nullopt});
    c.push_back({"rate_limit_resets_at",
                 R"({"kind": "fail", "failure": "rate_limit", "resets_at": "2026-11-29T18:00:00Z"})",
                 quota, cli_diag,
                 "HTTP 429 Too Many Requests: rate limit exceeded; resets at 2026-11-29T18:00:00.000Z",
                 true, 1, "2026-11-29T18:00:00.000Z", std::nullopt});
    c.push_back({"rate_limit_plain", R"({"kind": "fail", "failure": "rate_limit"})", quota, cli_diag,
                 "HTTP 429 Too Many Requests: rate limit exceeded", true, 1, std::nullopt,
                 "2026-11-29T13:05:00.000Z"});
    c.push_back({"rate_limit_at_exit_0",
                 R"({"kind": "fail", "failure": "rate_limit", "retry_after_seconds": 90, "exit_code": 0})",
                 quota, cli_diag, "HTTP 429 Too Many Requests: rate limit exceeded; retry after 90s",
                 true, 0, "2026-11-29T13:01:30.000Z", std::nullopt});
    c.push_back({"resource_exhausted", R"({"kind": "fail", "failure": "resource_exhausted"})", quota,
                 cli_diag, "RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).", true,
                 1, std::nullopt, "2026-11-29T13:05:00.000Z"});
    c.push_back({"quota_exceeded", R"({"kind": "fail", "failure": "quota_exceeded"})", quota,
                 cli_diag,
                 "You exceeded your current quota, please check your plan and billing details.",
                 true, 1, std::nullopt, "2026-11-29T13:05:00.000Z"});
    c.push_back({"context_length", R"({"kind": "fail", "failure": "context_length"})",
                 "context-limit", cli_diag,
                 "This model's maximum context length is 200000 tokens; the request used 231072 "
                 "tokens. Reduce the length of the messages.",
                 true, 1, std::nullopt, std::nullopt});
    c.push_back({"model_overloaded", R"({"kind": "fail", "failure": "model_overloaded"})",
                 "model-unavailable", cli_diag,
                 "HTTP 529 Overloaded: the model is overloaded, please try again later", true, 1,
                 std::nullopt, std::nullopt});
    c.push_back({"model_unavailable", R"({"kind": "fail", "failure": "model_unavailable"})",
                 "model-unavailable", cli_diag,
                 "model \"{model}\" is unavailable: not found on this provider", true, 1,
                 std::nullopt, std::nullopt});
    c.push_back({"connection_refused", R"({"kind": "fail", "failure": "connection_refused"})",
                 "provider-connection", provider_diag,
                 "provider iop request to /v1/chat/completions failed: dial tcp 127.0.0.1:8080: "
                 "connect: connection refused",
                 true, 1, std::nullopt, std::nullopt});
    c.push_back({"stream_disconnected", R"({"kind": "fail", "failure": "stream_disconnected"})",
                 "provider-stream-disconnect", provider_diag,
                 "stream disconnected before completion: backend connection failed during "
                 "streaming request",
                 true, 1, std::nullopt, std::nullopt});
    c.push_back({"file_exists",
                 R"({"kind": "fail", "failure": "file_exists", "path": "src/api.cpp"})",
                 "generic-error", "cli-exit", "File already exists: {ws}/src/api.cpp", false, 1,
                 std::nullopt, std::nullopt});
    c.push_back({"file_not_found",
                 R"({"kind": "fail", "failure": "file_not_found", "path": "src/missing.hpp"})",
                 "generic-error", "cli-exit", "No such file or directory: {ws}/src/missing.hpp",
                 false, 1, std::nullopt, std::nullopt});
    c.push_back({"plain_error",
                 R"({"kind": "fail", "failure": "error", "message": "segfault in tool", "exit_code": 3})",
                 "generic-error", "cli-exit", "segfault in tool", false, 3, std::nullopt,
                 std::nullopt});
    c.push_back({"command_not_found_exit_127",
                 R"({"kind": "fail", "failure": "error", "message": "bash: line 1: rg: command not found", "exit_code": 127})",
                 "launch-failure", "cli-launch", "bash: line 1: rg: command not found", false, 127,
                 std::nullopt, std::nullopt});
    return c;
  }();
  return cases;
}

class agents_sim_failure
    : public agents_sim,
      public ::testing::WithParamInterface<std::tuple<adapter_kind, size_t>> {};

TEST_P(agents_sim_failure, classifies_with_evidence_origin_and_reset_time) {
  auto [kind, index] = GetParam();
  const failure_case& fc = failure_cases()[index];
  auto seen = attempt(spec_for(kind), scenario("worker", "[{\"kind\": \"events\", \"count\": 2}, "
                                                           + fc.action + "]"));
  ASSERT_TRUE(seen->run.launched) << seen->run.launch_error;
  ASSERT_FALSE(seen->run.signaled);
  EXPECT_EQ(seen->run.exit_code, fc.exit_code);
  const failure_verdict& v = seen->verdict;
  EXPECT_EQ(v.failure_class, fc.failure_class) << v.evidence_origin << ": " << v.evidence;
  EXPECT_EQ(v.failure_source, fc.failure_source);
  EXPECT_EQ(v.evidence_origin, expected_origin(kind, fc.pattern_class)) << v.evidence;
  EXPECT_EQ(message_in_evidence(v.evidence_origin, v.evidence),
            substitute(fc.message, model_of(kind), ws_.string()));
  EXPECT_FALSE(v.evidence_truncated);
  EXPECT_EQ(v.provider_transport_failure_confirmed, fc.failure_source == "provider-terminal-diagnostic");
  std::optional<std::string> reset = fc.reset_at;
  if (kind == adapter_kind::claude && fc.claude_reset_at)
    reset = fc.claude_reset_at;
  if (reset) {
    ASSERT_TRUE(v.reset_at.has_value()) << v.evidence;
    EXPECT_EQ(format_utc_iso(*v.reset_at), *reset);
  } else {
    EXPECT_FALSE(v.reset_at.has_value()) << format_utc_iso(*v.reset_at);
  }
}

std::string failure_test_name(
  const ::testing::TestParamInfo<std::tuple<adapter_kind, size_t>>& info) {
  return std::string(to_string(std::get<0>(info.param))) + "_"
         + failure_cases()[std::get<1>(info.param)].name;
}

INSTANTIATE_TEST_SUITE_P(every_cli_every_kind, agents_sim_failure,
                         ::testing::Combine(::testing::Values(adapter_kind::codex,
                                                              adapter_kind::claude,
                                                              adapter_kind::agy, adapter_kind::pi,
                                                              adapter_kind::command),
                                            ::testing::Range<size_t>(0, 15)),
                         failure_test_name);

TEST_F(agents_sim, failure_case_table_covers_every_simulated_kind) {
  // Range<size_t>(0, 15) above must follow the table.
  EXPECT_EQ(failure_cases().size(), 15u);
  std::set<std::string> kinds;
  for (const auto& c : failure_cases())
    kinds.insert(parse_json(c.action, "action")->value("failure", ""));
  EXPECT_EQ(kinds, (std::set<std::string>{"rate_limit", "resource_exhausted", "quota_exceeded",
                                          "context_length", "model_overloaded",
                                          "model_unavailable", "connection_refused",
                                          "stream_disconnected", "file_exists", "file_not_found",
                                          "error"}));
}

class agents_sim_signal : public agents_sim,
                          public ::testing::WithParamInterface<std::tuple<adapter_kind, int>> {};

TEST_P(agents_sim_signal, a_run_killed_by_a_signal_is_process_terminated) {
  auto [kind, sig] = GetParam();
  std::string name = sig == SIGKILL ? "SIGKILL" : "SIGTERM";
  auto seen = attempt(spec_for(kind),
                      scenario("worker", R"([{"kind": "events", "count": 1},
                                             {"kind": "fail", "failure": "rate_limit", "signal": ")"
                                           + name + R"("}])"));
  ASSERT_TRUE(seen->run.launched);
  EXPECT_TRUE(seen->run.signaled);
  EXPECT_EQ(seen->run.signal, sig);
  EXPECT_EQ(seen->verdict.failure_class, "process-terminated");
  EXPECT_EQ(seen->verdict.failure_source, "process-termination");
  EXPECT_EQ(seen->verdict.termination_signal, sig);
  EXPECT_EQ(seen->verdict.termination_signal_name, name);
  EXPECT_FALSE(seen->verdict.termination_signal_inferred);
  EXPECT_FALSE(seen->verdict.reset_at.has_value());
}

TEST_F(agents_sim, an_exit_status_above_128_is_an_inferred_signal) {
  for (adapter_kind kind : {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy,
                            adapter_kind::pi, adapter_kind::command}) {
    SCOPED_TRACE(std::string(to_string(kind)));
    auto seen = attempt(spec_for(kind), scenario("worker", R"([{"kind": "events", "count": 1},
                                                               {"kind": "exit", "code": 137}])"));
    ASSERT_FALSE(seen->run.signaled);
    EXPECT_EQ(seen->run.exit_code, 137);
    EXPECT_EQ(seen->verdict.failure_class, "process-terminated");
    EXPECT_EQ(seen->verdict.termination_signal_name, "SIGKILL");
    EXPECT_TRUE(seen->verdict.termination_signal_inferred);
  }
}

INSTANTIATE_TEST_SUITE_P(every_adapter, agents_sim_signal,
                         ::testing::Combine(::testing::Values(adapter_kind::codex,
                                                              adapter_kind::claude,
                                                              adapter_kind::agy, adapter_kind::pi,
                                                              adapter_kind::command),
                                            ::testing::Values(SIGKILL, SIGTERM)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param)))
                                  + (std::get<1>(info.param) == SIGKILL ? "_SIGKILL" : "_SIGTERM");
                         });

} // namespace
} // namespace ad::runtime
