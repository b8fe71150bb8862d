#pragma once
// The agent simulator's scenario: per task, role and attempt number, an ordered
// list of actions (do the work, self-check, review, emit events, stay silent,
// hang, fail like a real agent, retry past a provider error, spawn an
// outliving child, exit, change the usage its requests report). Parsing is
// strict: an unknown key, kind or value is refused with an invalid_argument
// status whose message starts with the JSON pointer of the bad value
// (`/tasks/auth~102_api/worker/1/actions/0/kind: unknown action "explode"`).
// Pure data and parsing; no I/O except load_scenario_file, never throws.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/token_usage.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::agent_sim {

enum class action_kind : uint8_t {
  work, selfcheck, review, events, silence, hang, fail, spawn_child, exit, write, collab_tool,
  retried, wait_file, usage
};

// The ways a real agent fails; each CLI reports them as its captured run of
// the same failure did (tests/fixtures/realcli, docs/agent-sim.md).
enum class failure_kind : uint8_t {
  rate_limit, resource_exhausted, quota_exceeded, context_length, model_overloaded,
  model_unavailable, connection_refused, stream_disconnected, file_exists,
  file_not_found, error, usage_limit, root_refusal
};

enum class checklist_fill : uint8_t { all, first, none };
enum class write_mode : uint8_t { append, touch };
enum class hang_place : uint8_t { idle, tool_call };
// What a FAIL/WARN review leaves: the next PLAN/CODE_REVIEW generation, or
// only the retired logs (a reviewer that stops, e.g. for the user).
enum class review_follow_up : uint8_t { next_generation, stop };

struct action {
  action_kind kind = action_kind::work;
  // events; retried: how many failed requests the CLI retries past
  int count = 1;
  // silence / spawn_child; wait_file: the longest wait (0: no limit)
  double seconds = 0;
  // review: PASS | WARN | FAIL, and what a FAIL/WARN leaves
  std::string verdict = "PASS";
  review_follow_up follow_up = review_follow_up::next_generation;
  // work
  checklist_fill checklist = checklist_fill::all;
  write_mode mode = write_mode::append;
  // fail / retried
  failure_kind failure = failure_kind::error;
  std::string variant;              // which captured shape of the failure ("" = the usual one)
  std::string message;              // overrides the canonical message
  std::string path;                 // file_exists / file_not_found / write / wait_file
  std::string content;              // write
  std::string tool = "spawn_agent"; // collab_tool
  std::optional<int> retry_after_seconds;
  std::string resets_at;            // ISO-8601 UTC
  // fail / exit: exit code (fail: unset = the code the real CLI exits
  // with; exit: unset = 0), or a signal number (0 = none)
  std::optional<int> exit_code;
  int signal = 0;
  // hang
  hang_place place = hang_place::idle;
  // usage: what each request answered from here on reports (the fields
  // given; the others keep their value)
  runtime::token_usage usage;
};

using action_list = std::vector<action>;

struct role_script {
  std::map<int, action_list> by_attempt;  // attempt number (1-based) -> actions
  std::optional<action_list> fallback;    // key "default"
};

struct scenario {
  // task name (relative to agent-task/) -> role -> script
  std::map<std::string, std::map<std::string, role_script>> tasks;
  // role -> actions, for any task/attempt the tasks table does not name
  std::map<std::string, action_list> defaults;
  // What each answered request of every run reports, over the CLI's own
  // figures (the fields given; a usage action changes them within a run).
  runtime::token_usage usage;
};

std::string_view to_string(action_kind k);
std::string_view to_string(failure_kind k);
std::optional<failure_kind> failure_kind_from(std::string_view name);
// The variants a failure kind accepts besides "" (the captured shapes that
// differ by CLI, e.g. codex's HTTP 503 versus its in-stream overload).
std::vector<std::string_view> failure_variants(failure_kind k);
// "SIGTERM"/"TERM"/"15" -> 15; nullopt when unknown.
std::optional<int> signal_from(std::string_view name);
std::string signal_name(int sig);

// Parses a scenario document; errors name the JSON pointer of the bad value.
runtime::result<scenario> parse_scenario(const runtime::json& doc);
runtime::result<scenario> parse_scenario_text(std::string_view text, std::string_view source);
runtime::result<scenario> load_scenario_file(const std::filesystem::path& path);

// What a competent agent does for a role when the scenario says nothing.
action_list competent_actions(std::string_view role);

// The actions for (task, role, attempt): tasks[task][role][attempt], then its
// "default", then defaults[role], then competent_actions(role).
action_list select_actions(const scenario& s, const std::string& task,
                           const std::string& role, int attempt);

} // namespace ad::agent_sim
