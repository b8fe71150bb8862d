#pragma once
// The attempt record (locator.json, SPEC section 6; field list in
// docs/attempt-files.md) as a plain struct with JSON to/from, and the attempt
// naming rules: identity `<safe task name>__p<plan>__<role>__a<NN>` and run
// folder `<UTC stamp>__<identity>`. Keys this struct does not know are kept in
// `extra` and written back, so a newer writer's fields survive a round trip.
// Pure: no I/O (the attempt writes the JSON with write_file_atomic), never
// throws; locator_from_json returns invalid_argument naming the first field
// that is missing or of the wrong type.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/token_usage.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class attempt_status : uint8_t { running, succeeded, failed };
std::string_view to_string(attempt_status s);
result<attempt_status> parse_attempt_status(std::string_view text);

struct silence_inspection {
  millis at = 0;
  int64_t silence_ms = 0;
  std::string stream_tail;
};

struct attempt_locator {
  // identity
  std::string identity; // <safe task>__p<plan>__<role>__a<NN>
  std::string task;
  int64_t plan_number = 0;
  std::string role;
  int64_t attempt = 0;
  std::string workspace;
  std::string workspace_id;
  // the dispatcher that started it
  int64_t dispatcher_pid = 0;
  std::string dispatcher_start_token;
  // what runs
  std::string cli; // adapter name
  std::optional<std::string> cli_version; // as the CLI printed it, when detected
  std::string model;
  std::optional<std::string> effort;
  std::string process_marker; // AGENT_DISPATCH_EXECUTION_ID value
  std::optional<std::string> plan_path;
  std::optional<std::string> review_path;
  // sessions
  std::optional<std::string> session_id;
  std::optional<std::string> native_session_path;
  std::optional<int64_t> native_session_mtime_ns;
  std::optional<std::string> resumed_from_locator;
  // files
  std::string stream_log;
  std::string normalized_output_log;
  std::string heartbeat_log;
  std::optional<std::string> cli_log; // agy
  // Distributed mode: the worker node that runs the attempt (docs/
  // distributed.md); a restarted coordinator adopts it through that node.
  std::optional<std::string> node;
  std::optional<std::string> work_log;
  // lifecycle
  attempt_status status = attempt_status::running;
  millis started_at = 0;
  std::optional<millis> updated_at;
  std::optional<millis> finished_at;
  std::optional<int64_t> agent_pid;
  std::optional<std::string> agent_start_token;
  // The agent's keeper (docs/keeper.md), when it runs under one: it holds
  // the agent's output and exit status in the attempt folder.
  std::optional<int64_t> keeper_pid;
  std::optional<std::string> keeper_start_token;
  std::optional<int64_t> exit_code;
  // outcome
  std::optional<std::string> failure_class;
  std::optional<std::string> failure_source;
  std::optional<std::string> failure_evidence; // ≤ 2000 bytes
  std::optional<std::string> failure_evidence_origin;
  bool failure_evidence_truncated = false;
  bool provider_transport_failure_confirmed = false;
  std::optional<std::string> termination_signal; // "SIGKILL"
  bool termination_signal_inferred = false;
  std::optional<std::string> termination_initiator; // dispatcher, caller, unknown
  std::optional<millis> quota_reset_at;
  std::optional<silence_inspection> silence;
  // What the attempt spent (token_usage.hpp): while it runs, as far as its
  // CLI has reported (rewritten with the locator); at the end, the settled
  // figures, with the cost from the policy's prices when the CLI gave none.
  // Absent when nothing was reported.
  std::optional<token_usage> usage;
  // routing and recovery
  json selector_evidence; // null or the decision's evidence object
  int64_t stage_budget = 0;
  std::optional<std::string> retry_handoff_id;
  // keys not listed above, preserved as read
  json extra = json::object();
};

json locator_to_json(const attempt_locator& locator);
result<attempt_locator> locator_from_json(const json& value);

// Seed rule: every run of characters outside [A-Za-z0-9_.-] becomes "__",
// then leading and trailing '_' are stripped; an empty result is "task".
std::string safe_task_name(std::string_view task);
// "<safe task name>__p<plan>__<role>__a<NN>" (NN: at least two digits).
std::string make_attempt_identity(std::string_view task, int64_t plan, std::string_view role,
                                  int64_t attempt);
// "<UTC stamp>__<identity>", e.g. "20261129T130736Z__auth__p2__worker__a01".
std::string attempt_run_folder_name(millis started_at, std::string_view identity);
// "w<workspace id>__<identity>__<nonce>", the AGENT_DISPATCH_EXECUTION_ID value.
std::string attempt_process_marker(std::string_view workspace_id, std::string_view identity,
                                   std::string_view nonce);

} // namespace ad::runtime
