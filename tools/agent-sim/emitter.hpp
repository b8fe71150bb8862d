#pragma once
// Event output in each impersonated CLI's real format, built from what the
// real CLIs printed against a mock provider (tests/fixtures/realcli), so the
// dispatcher reads the simulator exactly as it reads the real agent:
//   codex  `exec --json` (codex-cli 0.171.0): thread.started{thread_id, a
//          uuid v7}, turn.started, item.started/item.completed, then
//          turn.completed{usage} or, after its own `Reconnecting... n/5`
//          retries, error + turn.failed{error{message}}; with a codex home
//          also the rollout sessions/YYYY/MM/DD/rollout-<local stamp>-<id>.jsonl
//          whose failed turn ends in event_msg/task_complete{error{message,
//          codex_error_info}};
//   claude `stream-json` (Claude Code 2.1.332): system/init, assistant/user
//          messages, system/api_retry while it retries, the synthetic
//          assistant message (model "<synthetic>", typed `error`) of a failed
//          request, a rejected rate_limit_event for a subscriber limit, and
//          one result{subtype, is_error, api_error_*, terminal_reason, ...};
//          with a projects folder also its transcript;
//   pi     `--mode json` (pi 0.73.1): session, agent_start, turn_start,
//          message_start/message_update/message_end, tool_execution_*,
//          turn_end, agent_end, auto_retry_start/auto_retry_end while it
//          retries, compaction_start after a context overflow, and the
//          version-3 session JSONL <session-dir>/<stamp>_<id>.jsonl (or the
//          resumed --session FILE); it exits 0 whether or not the model call
//          failed;
//   agy    plain text on stdout, "Error: ..." on stderr, and timestamped
//          lines in its --log-file (no public package to compare with);
//   command plain text.
// Every answered request reports usage in its CLI's fields (codex's
// turn.completed totals and rollout token_count, claude's per-message usage
// and result totals with total_cost_usd, pi's per-message usage and cost):
// by default what the captures' mock served per request (codex 1,200 input
// / 40 output tokens, claude 321 / 12 at $5 / $25 per million, pi 1,234 /
// 56 without a price), or what set_request_usage gives.
// Time and ids come from the injected clock and id_source, so output is
// byte-for-byte reproducible in tests; waits (a CLI's retry delays) go
// through emit_context::wait. Each line is flushed as written. A failure
// writing a side file (session, rollout, transcript, agy log) is reported
// through write_errors() and never throws.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "runtime/core/token_usage.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/policy/time_zone.hpp"
#include "tools/agent-sim/invocation.hpp"
#include "tools/agent-sim/scenario.hpp"

namespace ad::agent_sim {

// Ids (uuids, hex) from a seeded generator: AGENT_SIM_SEED makes them repeatable.
class id_source {
public:
  explicit id_source(uint64_t seed) : rng_(seed) {}
  std::string uuid();  // version 4 (claude session ids, message uuids)
  // Version 7: the first 48 bits are the time in ms (codex thread ids, pi
  // session ids, as those CLIs print them).
  std::string uuid_v7(runtime::millis now);
  std::string hex(int digits);
  // A uniform fraction in [0, 1) (retry jitter).
  double fraction();

private:
  std::mt19937_64 rng_;
};

// A failure as a CLI reports it.
struct failure_report {
  failure_kind kind = failure_kind::error;
  std::string variant;           // the scenario's variant ("" = the usual shape)
  std::string message;           // the generic text (agy, command), or the scenario's message
  bool scripted_message = false; // message came from the scenario: every CLI shows it as is
  int http_status = 0;           // 429, 529, ... or 0
  runtime::millis resets_at = 0; // 0 when unknown
  bool resets_scripted = false;  // resets_at came from the scenario's resets_at
  std::optional<int> retry_after_seconds;
  runtime::millis at = 0;        // when the failure was reported
};

// The generic report for a fail (or retried) action: agy's and the command
// agent's text; the JSON CLIs build their own texts from kind and variant.
failure_report describe_failure(const action& a, const std::string& model,
                                const std::string& workspace, runtime::millis now);

// What the impersonated CLI would read from its environment.
struct cli_environment {
  std::string codex_home;          // codex writes sessions/... here; "" = no rollout
  std::string claude_projects;     // claude's projects folder; "" = no transcript
  int claude_max_retries = 10;     // CLAUDE_CODE_MAX_RETRIES
  std::string anthropic_base_url;  // ANTHROPIC_BASE_URL (claude's gateway text)
  bool anthropic_api_key = false;  // ANTHROPIC_API_KEY set (claude's apiKeySource)
  std::string openai_base_url;     // codex's provider URL in its HTTP error texts
  std::string zone_name = "UTC";   // the agent's time zone (TZ, else /etc/localtime)
  runtime::time_zone zone;
  bool stdin_is_terminal = false;
};

struct emit_context {
  invocation inv;
  std::string workspace;  // absolute
  const runtime::clock* clock = nullptr;
  id_source* ids = nullptr;
  cli_environment env;
  // Waits `seconds` (before the time scale) and returns true to go on;
  // false ends a CLI that would otherwise retry forever (tests). Unset:
  // no waiting.
  std::function<bool(double seconds)> wait;
};

// base with every field over it replaced by over's, where over has one.
runtime::token_usage overlay(const runtime::token_usage& base, const runtime::token_usage& over);

class emitter {
public:
  virtual ~emitter() = default;
  // What each request answered from now on reports: the fields of u over
  // the CLI's own defaults (an empty u: the defaults).
  void set_request_usage(const runtime::token_usage& u) { request_usage_ = u; }
  virtual void begin() = 0;
  // One unit of visible activity (a tool call with its result, or a line).
  virtual void step(int index, const std::string& what) = 0;
  // A tool call that has started and has no result yet (before a hang).
  virtual void tool_pending(const std::string& what) = 0;
  // A collaboration tool call (codex: an item.started collab_tool_call, which
  // a dispatcher must treat as a review-control violation); other CLIs show a
  // plain step.
  virtual void collab_tool(const std::string& tool) { step(0, "collaboration tool " + tool); }
  // `times` failed requests the CLI retries past, with its retry events and
  // waits; the run goes on after them.
  virtual void retried(const failure_report&, int /*times*/) {}
  virtual void success(const std::string& summary) = 0;
  // Reports the failure as the CLI does (its own retries first) and returns
  // the exit code the real CLI ends with.
  virtual int failure(const failure_report& f) = 0;
  // Files this emitter wrote (session, rollout, transcript, agy log) and
  // errors writing them.
  virtual std::vector<std::string> side_files() const { return {}; }
  const std::vector<std::string>& write_errors() const { return write_errors_; }

protected:
  // The usage of one answered request: the CLI's default with the
  // scenario's fields over it.
  runtime::token_usage request_usage(const runtime::token_usage& cli_default) const {
    return overlay(cli_default, request_usage_);
  }

  std::vector<std::string> write_errors_;
  runtime::token_usage request_usage_;
};

std::unique_ptr<emitter> make_emitter(const emit_context& ctx, std::ostream& out, std::ostream& err);

// What the CLI prints on stderr when it refuses its launch before any
// output (exit 1): pi without the original dispatcher's options given
// --approve or --session-id ("Error: Unknown options: --approve,
// --session-id"), claude told to by a root_refusal failure. nullopt when it
// starts.
std::optional<std::string> launch_refusal(const invocation& inv, bool pi_dispatcher_flavor,
                                          const action_list& actions);

} // namespace ad::agent_sim
