#pragma once
// Event output in each impersonated CLI's real format, so the dispatcher's
// stream readers parse the simulator exactly as they parse the real agent:
//   codex  `exec --json` JSONL: thread.started{thread_id}, turn.started,
//          item.started/item.completed{item{id,type,...}}, turn.completed,
//          error{message}, turn.failed{error{message}};
//   claude `stream-json`: system/init{session_id}, assistant/user messages
//          with tool_use/tool_result blocks, rate_limit_event{rate_limit_info
//          {status,resetsAt}}, result{subtype,is_error,result,session_id};
//   agy    plain text on stdout, "Error: ..." on stderr, and timestamped
//          lines in its --log-file;
//   pi     JSON mode events (session header, agent_start, message_end,
//          tool_execution_start/end, agent_end) plus a version-3 session
//          JSONL under --session-dir (or appended to --session FILE);
//   command plain text.
// With emit_context::native_home set, codex also writes
// <home>/.codex/sessions/YYYY/MM/DD/rollout-<stamp>-<thread_id>.jsonl and
// claude <home>/.claude/projects/<encoded cwd>/<session_id>.jsonl.
// Time and ids come from the injected clock and id_source, so output is
// byte-for-byte reproducible in tests. Each line is flushed as written. A
// failure writing the pi session or agy log is reported through write_errors()
// and never throws.

#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "tools/agent-sim/invocation.hpp"
#include "tools/agent-sim/scenario.hpp"

namespace ad::agent_sim {

// Ids (uuids, hex) from a seeded generator: AGENT_SIM_SEED makes them repeatable.
class id_source {
public:
  explicit id_source(uint64_t seed) : rng_(seed) {}
  std::string uuid();
  std::string hex(int digits);

private:
  std::mt19937_64 rng_;
};

// A failure as a CLI reports it.
struct failure_report {
  failure_kind kind = failure_kind::error;
  std::string message;           // the terminal diagnostic text
  int http_status = 0;           // 429, 529, ... or 0
  runtime::millis resets_at = 0; // 0 when unknown
};

// The canonical message for a fail action (its `message` wins when set).
failure_report describe_failure(const action& a, const std::string& model,
                                const std::string& workspace, runtime::millis now);

struct emit_context {
  invocation inv;
  std::string workspace;  // absolute
  const runtime::clock* clock = nullptr;
  id_source* ids = nullptr;
  // When set, codex and claude also write their native session files under
  // this home (~/.codex/sessions/..., ~/.claude/projects/...).
  std::string native_home;
};

class emitter {
public:
  virtual ~emitter() = default;
  virtual void begin() = 0;
  // One unit of visible activity (a tool call with its result, or a line).
  virtual void step(int index, const std::string& what) = 0;
  // A tool call that has started and has no result yet (before a hang).
  virtual void tool_pending(const std::string& what) = 0;
  // A collaboration tool call (codex: an item.started collab_tool_call, which
  // a dispatcher must treat as a review-control violation); other CLIs show a
  // plain step.
  virtual void collab_tool(const std::string& tool) { step(0, "collaboration tool " + tool); }
  virtual void success(const std::string& summary) = 0;
  virtual void failure(const failure_report& f) = 0;
  // Files this emitter wrote (pi session, agy log) and errors writing them.
  virtual std::vector<std::string> side_files() const { return {}; }
  const std::vector<std::string>& write_errors() const { return write_errors_; }

protected:
  std::vector<std::string> write_errors_;
};

std::unique_ptr<emitter> make_emitter(const emit_context& ctx, std::ostream& out, std::ostream& err);

} // namespace ad::agent_sim
