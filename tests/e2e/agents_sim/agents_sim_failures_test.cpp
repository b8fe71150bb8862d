// Every failure kind the agent simulator can produce, run under every
// adapter's real argv and classified by runtime/agents with the default
// pattern table as an attempt does: the class, its source, the evidence (the
// CLI's own message), the evidence origin and the reset time, per CLI; the
// refused launches; plus runs killed by a signal or exiting 128+n.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <regex>
#include <set>

#include "tests/e2e/agents_sim/agents_sim_fixture.hpp"

namespace ad::runtime {
namespace {

using namespace ad::runtime::testing;

// ---- every failure kind the simulator produces, for every CLI --------------
//
// The simulator reports each failure as the real CLI does (tests/fixtures/
// realcli), so what the dispatcher decides differs by CLI: codex, claude and
// pi are judged by their typed end (pi exits 0 either way), agy and a
// command agent by their error text.

// What the dispatcher must decide for one CLI.
struct expectation {
  std::string failure_class;
  std::string failure_source;
  std::string origin;
  std::string message; // the evidence, ids normalized; {model} and {ws} are replaced
  int exit_code = 1;   // -1: stopped by SIGTERM (codex waiting for the network)
  std::optional<std::string> reset_at;
};

struct failure_case {
  std::string name;
  std::string action; // the scenario's fail action
  std::map<adapter_kind, expectation> by_cli;
};

std::string substitute(std::string text, const std::string& model, const std::string& ws) {
  for (auto [key, value] : {std::pair<std::string, std::string>{"{model}", model}, {"{ws}", ws}}) {
    size_t at = text.find(key);
    if (at != std::string::npos)
      text.replace(at, key.size(), value);
  }
  return text;
}

// The CLI's message in an evidence line: a typed end's text as it is,
// agy's log line after ERROR, a stderr line after "Error: "; ids the
// simulator makes up replaced.
std::string message_in_evidence(const std::string& origin, const std::string& evidence) {
  std::string text = evidence;
  if (origin == "agy-cli.log") {
    size_t at = evidence.find(" ERROR ");
    text = at == std::string::npos ? "<no ERROR: " + evidence + ">" : evidence.substr(at + 7);
  } else if (origin == "codex:network-wait") {
    // The no-progress rule says how long and how often, then the line.
    size_t at = evidence.find("): ");
    text = evidence.starts_with("no progress for ") && at != std::string::npos
             ? evidence.substr(at + 3)
             : "<no no-progress prefix: " + evidence + ">";
  } else if (origin == "stderr") {
    for (std::string_view prefix : {"Error: ", "error: "})
      if (evidence.starts_with(prefix))
        text = evidence.substr(prefix.size());
  }
  static const std::regex request(R"(request id: req_[0-9a-f]+)");
  static const std::regex org(R"(org-[0-9a-f]+)");
  static const std::regex org_uuid(R"(organization \([0-9a-f-]{36}\))");
  text = std::regex_replace(text, request, "request id: ID");
  text = std::regex_replace(text, org, "org-ID");
  return std::regex_replace(text, org_uuid, "organization (ORG)");
}

constexpr adapter_kind codex = adapter_kind::codex, claude = adapter_kind::claude,
                       agy = adapter_kind::agy, pi = adapter_kind::pi,
                       command = adapter_kind::command;

const std::string quota = "provider-quota";
const std::string typed = "cli-typed-end";
const std::string cli_diag = "cli-terminal-diagnostic";
const std::string transport = "provider-terminal-diagnostic";

const std::string codex_429 =
  "exceeded retry limit, last status: 429 Too Many Requests, request id: ID";
const std::string claude_429 =
  "API Error: Request rejected (429) \u00b7 This request would exceed the rate limit for your "
  "organization (ORG) of 30,000 input tokens per minute. For details, refer to: "
  "https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. "
  "Please reduce the prompt length or the maximum tokens requested, or try again later. You may also "
  "contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit "
  "increase.";
std::string pi_429(const std::string& seconds) {
  return "429 Rate limit reached for {model} in organization org-ID on requests per min (RPM): Limit "
         "20, Used 20, Requested 1. Please try again in " + seconds +
         ". Visit https://platform.openai.com/account/rate-limits to learn more.";
}

// The generic text agy and a command agent print, with both expectations.
void generic(failure_case& c, const std::string& cls, const std::string& source,
             const std::string& text, std::optional<std::string> reset, int exit_code = 1) {
  bool pattern = source != "cli-exit";
  c.by_cli[agy] = {cls, source, pattern ? "agy-cli.log" : "stderr", text, exit_code, reset};
  c.by_cli[command] = {cls, source, "stderr", text, exit_code, reset};
}

const std::vector<failure_case>& failure_cases() {
  static const std::vector<failure_case> cases = [] {
    std::vector<failure_case> c;
    c.reserve(32); // the references below stay valid
    auto add = [&](std::string name, std::string action) -> failure_case& {
      c.push_back({std::move(name), std::move(action), {}});
      return c.back();
    };

    auto& ra30 = add("rate_limit_retry_after",
                     R"({"kind": "fail", "failure": "rate_limit", "retry_after_seconds": 30})");
    ra30.by_cli[codex] = {quota, typed, "codex:turn.failed", codex_429, 1, std::nullopt};
    ra30.by_cli[claude] = {quota, typed, "claude:result", claude_429, 1, std::nullopt};
    ra30.by_cli[pi] = {quota, typed, "pi:auto_retry_end", pi_429("30s"), 0, "2026-11-29T13:00:30.000Z"};
    generic(ra30, quota, cli_diag, "HTTP 429 Too Many Requests: rate limit exceeded; retry after 30s",
            "2026-11-29T13:00:30.000Z");

    auto& reset = add("rate_limit_resets_at",
                      R"({"kind": "fail", "failure": "rate_limit", "resets_at": "2026-11-29T18:00:00Z"})");
    reset.by_cli[codex] = ra30.by_cli[codex];
    reset.by_cli[claude] = ra30.by_cli[claude];
    reset.by_cli[pi] = {quota, typed, "pi:auto_retry_end", pi_429("18000s"), 0, "2026-11-29T18:00:00.000Z"};
    generic(reset, quota, cli_diag,
            "HTTP 429 Too Many Requests: rate limit exceeded; resets at 2026-11-29T18:00:00.000Z",
            "2026-11-29T18:00:00.000Z");

    auto& plain = add("rate_limit_plain", R"({"kind": "fail", "failure": "rate_limit"})");
    plain.by_cli[codex] = ra30.by_cli[codex];
    plain.by_cli[claude] = ra30.by_cli[claude];
    plain.by_cli[pi] = {quota, typed, "pi:auto_retry_end", pi_429("2s"), 0, "2026-11-29T13:00:02.000Z"};
    generic(plain, quota, cli_diag, "HTTP 429 Too Many Requests: rate limit exceeded", std::nullopt);

    auto& exit0 = add("rate_limit_at_exit_0",
                      R"({"kind": "fail", "failure": "rate_limit", "retry_after_seconds": 90, "exit_code": 0})");
    exit0.by_cli[codex] = {quota, typed, "codex:turn.failed", codex_429, 0, std::nullopt};
    exit0.by_cli[claude] = {quota, typed, "claude:result", claude_429, 0, std::nullopt};
    exit0.by_cli[pi] = {quota, typed, "pi:auto_retry_end", pi_429("90s"), 0, "2026-11-29T13:01:30.000Z"};
    generic(exit0, quota, cli_diag, "HTTP 429 Too Many Requests: rate limit exceeded; retry after 90s",
            "2026-11-29T13:01:30.000Z", 0);

    auto& exhausted = add("resource_exhausted", R"({"kind": "fail", "failure": "resource_exhausted"})");
    exhausted.by_cli[codex] = ra30.by_cli[codex];
    exhausted.by_cli[claude] = ra30.by_cli[claude];
    exhausted.by_cli[pi] = plain.by_cli[pi];
    generic(exhausted, quota, cli_diag, "RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).",
            std::nullopt);

    auto& q = add("quota_exceeded", R"({"kind": "fail", "failure": "quota_exceeded"})");
    q.by_cli[codex] = {quota, typed, "codex:turn.failed", "Quota exceeded. Check your plan and billing details.",
                       1, std::nullopt};
    q.by_cli[claude] = {quota, typed, "claude:result", "API Error: Request rejected (429) \u00b7 Error", 1,
                        std::nullopt};
    q.by_cli[pi] = {quota, typed, "pi:auto_retry_end",
                    "429 You exceeded your current quota, please check your plan and billing details. For "
                    "more information on this error, read the docs: "
                    "https://platform.openai.com/docs/guides/error-codes/api-errors.",
                    0, std::nullopt};
    generic(q, quota, cli_diag, "You exceeded your current quota, please check your plan and billing details.",
            std::nullopt);

    auto& usage = add("usage_limit",
                      R"({"kind": "fail", "failure": "usage_limit", "resets_at": "2026-11-29T18:00:00Z"})");
    usage.by_cli[codex] = {quota, typed, "codex:turn.failed",
                           "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), "
                           "visit https://chatgpt.com/settings/usage to purchase more credits or try again at "
                           "6:00 PM.",
                           1, "2026-11-29T18:00:00.000Z"};
    usage.by_cli[claude] = {quota, typed, "claude:result",
                            "You've hit your 5-hour limit \u00b7 resets 6pm (UTC)", 1,
                            "2026-11-29T18:00:00.000Z"};
    usage.by_cli[pi] = reset.by_cli[pi];
    generic(usage, quota, cli_diag, "Quota exceeded: usage limit reached; resets at 2026-11-29T18:00:00.000Z",
            "2026-11-29T18:00:00.000Z");

    auto& context = add("context_length", R"({"kind": "fail", "failure": "context_length"})");
    context.by_cli[codex] = {"context-limit", typed, "codex:turn.failed",
                             "Codex ran out of room in the model's context window. Start a new thread or clear "
                             "earlier history before retrying.",
                             1, std::nullopt};
    context.by_cli[claude] = {"context-limit", typed, "claude:result",
                              "Prompt is too long \u00b7 the request is ~215345 tokens (limit 200000) but this "
                              "conversation is only ~2550 tokens \u2014 the rest is system prompt, tool "
                              "definitions, and attachment content. A single-exchange conversation cannot be "
                              "compacted; reduce attached files/tools or start with less context.",
                              1, std::nullopt};
    context.by_cli[pi] = {"context-limit", typed, "pi:message_end",
                          "400 This model's maximum context length is 131072 tokens. However, your messages "
                          "resulted in 140211 tokens. Please reduce the length of the messages.",
                          0, std::nullopt};
    generic(context, "context-limit", cli_diag,
            "This model's maximum context length is 200000 tokens; the request used 231072 tokens. Reduce "
            "the length of the messages.",
            std::nullopt);

    auto& overloaded = add("model_overloaded", R"({"kind": "fail", "failure": "model_overloaded"})");
    overloaded.by_cli[codex] = {"model-unavailable", typed, "codex:turn.failed",
                                "Selected model is at capacity. Please try a different model.", 1, std::nullopt};
    overloaded.by_cli[claude] = {"model-unavailable", typed, "claude:result",
                                 "API Error: 529 Overloaded. This is a server-side issue, usually temporary "
                                 "\u2014 try again in a moment. If it persists, check your inference gateway "
                                 "(api.anthropic.com).",
                                 1, std::nullopt};
    overloaded.by_cli[pi] = {"model-unavailable", typed, "pi:auto_retry_end",
                             "503 The server is overloaded or not ready yet.", 0, std::nullopt};
    generic(overloaded, "model-unavailable", cli_diag,
            "HTTP 529 Overloaded: the model is overloaded, please try again later", std::nullopt);

    auto& unavailable = add("model_unavailable", R"({"kind": "fail", "failure": "model_unavailable"})");
    unavailable.by_cli[codex] = {"model-unavailable", typed, "codex:turn.failed",
                                 "The model `{model}` does not exist or you do not have access to it.", 1,
                                 std::nullopt};
    unavailable.by_cli[claude] = {"model-unavailable", typed, "claude:result",
                                  "There's an issue with the selected model ({model}). It may not exist or you "
                                  "may not have access to it. Run --model to pick a different model.",
                                  1, std::nullopt};
    unavailable.by_cli[pi] = {"model-unavailable", typed, "pi:message_end",
                              "404 The model `{model}` does not exist or you do not have access to it.", 0,
                              std::nullopt};
    generic(unavailable, "model-unavailable", cli_diag,
            "model \"{model}\" is unavailable: not found on this provider", std::nullopt);

    auto& refused = add("connection_refused", R"({"kind": "fail", "failure": "connection_refused"})");
    // codex never gives up: the no-progress rule stops it.
    refused.by_cli[codex] = {"provider-connection", "dispatcher-no-progress", "codex:network-wait",
                             "Reconnecting... waiting for network (Connection failed: error sending request)",
                             -1, std::nullopt};
    refused.by_cli[claude] = {"provider-connection", transport, "claude:result",
                              "API Error: Connection refused \u2014 a firewall or proxy may be blocking it "
                              "(ECONNREFUSED)",
                              1, std::nullopt};
    refused.by_cli[pi] = {"provider-connection", transport, "pi:auto_retry_end", "Connection error.", 0,
                          std::nullopt};
    c.back().by_cli[agy] = {"provider-connection", transport, "agy-cli.log",
                            "provider iop request to /v1/chat/completions failed: dial tcp 127.0.0.1:8080: "
                            "connect: connection refused",
                            1, std::nullopt};
    c.back().by_cli[command] = c.back().by_cli[agy];
    c.back().by_cli[command].origin = "stderr";

    auto& stream = add("stream_disconnected", R"({"kind": "fail", "failure": "stream_disconnected"})");
    stream.by_cli[codex] = {"provider-stream-disconnect", transport, "codex:turn.failed",
                            "stream disconnected before completion: stream closed before response.completed", 1,
                            std::nullopt};
    stream.by_cli[claude] = {"provider-stream-disconnect", transport, "claude:result",
                             "API Error: Connection to the API was lost (ECONNRESET). This is usually temporary "
                             "\u2014 try again.",
                             1, std::nullopt};
    stream.by_cli[pi] = {"provider-stream-disconnect", transport, "pi:auto_retry_end", "terminated", 0,
                         std::nullopt};
    c.back().by_cli[agy] = {"provider-stream-disconnect", transport, "agy-cli.log",
                            "stream disconnected before completion: backend connection failed during "
                            "streaming request",
                            1, std::nullopt};
    c.back().by_cli[command] = c.back().by_cli[agy];
    c.back().by_cli[command].origin = "stderr";

    // Tool and agent errors have no capture: each CLI ends its turn failed
    // with the text.
    auto tool_error = [&](std::string name, std::string action, std::string text, int exit_code) {
      auto& t = add(std::move(name), std::move(action));
      t.by_cli[codex] = {"generic-error", typed, "codex:turn.failed", text, exit_code, std::nullopt};
      t.by_cli[claude] = {"generic-error", typed, "claude:result", text, exit_code, std::nullopt};
      t.by_cli[pi] = {"generic-error", typed, "pi:message_end", text, exit_code == 1 ? 0 : exit_code, std::nullopt};
      generic(t, "generic-error", "cli-exit", text, std::nullopt, exit_code);
    };
    tool_error("file_exists", R"({"kind": "fail", "failure": "file_exists", "path": "src/api.cpp"})",
               "File already exists: {ws}/src/api.cpp", 1);
    tool_error("file_not_found", R"({"kind": "fail", "failure": "file_not_found", "path": "src/missing.hpp"})",
               "No such file or directory: {ws}/src/missing.hpp", 1);
    tool_error("plain_error",
               R"({"kind": "fail", "failure": "error", "message": "segfault in tool", "exit_code": 3})",
               "segfault in tool", 3);

    auto& not_found = add("command_not_found_exit_127",
                          R"({"kind": "fail", "failure": "error", "message": "bash: line 1: rg: command not found", "exit_code": 127})");
    for (adapter_kind k : {codex, claude, agy, pi, command})
      not_found.by_cli[k] = {"launch-failure", "cli-launch", "", "", 127, std::nullopt};
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
  const expectation& want = fc.by_cli.at(kind);
  auto seen = attempt(spec_for(kind), scenario("worker", "[{\"kind\": \"events\", \"count\": 2}, "
                                                           + fc.action + "]"));
  ASSERT_TRUE(seen->run.launched) << seen->run.launch_error;
  if (want.exit_code < 0) {
    EXPECT_TRUE(seen->run.terminated_by_test);
    EXPECT_TRUE(seen->run.signaled);
    EXPECT_EQ(seen->run.signal, SIGTERM);
  } else {
    ASSERT_FALSE(seen->run.signaled);
    EXPECT_EQ(seen->run.exit_code, want.exit_code);
  }
  const failure_verdict& v = seen->verdict;
  EXPECT_EQ(v.failure_class, want.failure_class) << v.evidence_origin << ": " << v.evidence;
  EXPECT_EQ(v.failure_source, want.failure_source);
  if (!want.origin.empty()) {
    EXPECT_EQ(v.evidence_origin, want.origin) << v.evidence;
    EXPECT_EQ(message_in_evidence(v.evidence_origin, v.evidence),
              substitute(want.message, model_of(kind), ws_.string()));
  } else {
    EXPECT_NE(v.evidence.find("rg: command not found"), std::string::npos) << v.evidence;
  }
  EXPECT_FALSE(v.evidence_truncated);
  // The network wait the no-progress rule ended is a confirmed transport
  // failure too.
  EXPECT_EQ(v.provider_transport_failure_confirmed,
            want.failure_source == transport || want.failure_source == "dispatcher-no-progress");
  if (want.reset_at) {
    ASSERT_TRUE(v.reset_at.has_value()) << v.evidence;
    EXPECT_EQ(format_utc_iso(*v.reset_at), *want.reset_at);
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
                                            ::testing::Range<size_t>(0, 16)),
                         failure_test_name);

TEST_F(agents_sim, failure_case_table_covers_every_simulated_kind) {
  // Range<size_t>(0, 16) above must follow the table.
  EXPECT_EQ(failure_cases().size(), 16u);
  std::set<std::string> kinds;
  for (const auto& c : failure_cases()) {
    kinds.insert(parse_json(c.action, "action")->value("failure", ""));
    EXPECT_EQ(c.by_cli.size(), 5u) << c.name;
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"rate_limit", "resource_exhausted", "quota_exceeded",
                                          "usage_limit", "context_length", "model_overloaded",
                                          "model_unavailable", "connection_refused",
                                          "stream_disconnected", "file_exists", "file_not_found",
                                          "error"}));
}

// The launch refusals: claude as root (a root_refusal scenario; never by
// default) and the public pi given the original dispatcher's options.
TEST_F(agents_sim, a_refused_launch_is_launch_refused) {
  auto claude_seen = attempt(spec_for(adapter_kind::claude),
                             scenario("worker", R"([{"kind": "fail", "failure": "root_refusal"}])"));
  EXPECT_EQ(claude_seen->run.exit_code, 1);
  EXPECT_EQ(claude_seen->verdict.failure_class, "launch-refused");
  EXPECT_EQ(claude_seen->verdict.failure_source, "cli-refusal");
  EXPECT_EQ(claude_seen->verdict.evidence_origin, "stderr");
  EXPECT_EQ(claude_seen->verdict.evidence,
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons");

  auto spec = spec_for(adapter_kind::pi);
  spec.caps = {true, "0.9.0", true, true}; // a --help that lists --approve and --session-id
  auto pi_seen = attempt(spec, scenario("worker", R"([{"kind": "work"}])"));
  EXPECT_EQ(pi_seen->run.exit_code, 1);
  EXPECT_EQ(pi_seen->verdict.failure_class, "launch-refused");
  EXPECT_EQ(pi_seen->verdict.evidence, "Error: Unknown options: --approve, --session-id");
  EXPECT_EQ(*read_file(ws_ / "src/api.cpp"), "// api\n") << "a refused pi does no work";
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
