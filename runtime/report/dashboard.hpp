#pragma once
// The dashboard's views as JSON (docs/dashboard.md), built from the run's
// events (`run --web`): the overview (`/api/v1/state`: counts by status,
// running attempts with their last output line, waits grouped by kind with
// their end, blocked tasks with the command that retries them, user-review
// stops, the summary once the run ended, what the run spent) and one task
// (`/api/v1/tasks/<name>`: its status, every attempt this run started with
// its locator, end and usage, its recent events). The same folding as the
// terminal board (run_board), so both show one truth. Pure values; a
// running attempt's last output line and tokens so far come from a function
// the caller gives (runtime::attempt_output_reader::live in the CLI). Never
// throws.

#include <array>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/report/board.hpp"
#include "runtime/report/output_tail.hpp"

namespace ad::runtime {

struct dashboard_attempt {
  std::string identity;
  std::string role;
  std::string target;
  std::string node;
  int64_t attempt = 0;
  millis started = 0;
  millis finished = 0;            // 0 while it runs
  std::string status = "running";  // running | succeeded | failed | cancelled
  int32_t exit_code = 0;
  std::string failure_class;
  std::string evidence;
  std::string locator;
  token_usage usage;  // once it finished: what it spent
};

// One failed attempt, as a target's or a node's recent failures show it.
struct dashboard_failure {
  millis time = 0;
  std::string task;
  std::string identity;
  std::string failure_class;
  std::string evidence;
};

// A policy target as the run's events show it.
struct dashboard_target {
  int64_t finished = 0;
  std::map<std::string, int64_t> failure_counts;  // class -> attempts
  std::deque<dashboard_failure> failures;         // newest last
  token_usage usage;                              // its finished attempts
  // What the events say of its quota: "" (nothing), "exhausted" (its last
  // attempt ran out of quota), or the kind of a wait naming it
  // (quota-reset, cool-down) with its end.
  std::string quota;
  millis until = 0;
  std::string reason;
};

// A target's quota cool-down as the supervisor keeps it.
struct dashboard_cooldown {
  millis until = 0;
  std::string reason;
  friend bool operator==(const dashboard_cooldown&, const dashboard_cooldown&) = default;
};

// A worker node of a distributed run as the run's events show it.
struct dashboard_node {
  int64_t started = 0;
  int64_t finished = 0;
  int64_t failed = 0;
  millis last_started = 0;
  std::deque<dashboard_failure> failures;  // newest last
  // Its last node_status event: slots, how many in use, the lease's state
  // (held | expiring | lost; "" before the first) and end, why it is away.
  int32_t slots = 0;
  int32_t slots_in_use = 0;
  std::string lease;
  millis lease_until = 0;
  std::string problem;
};

struct dashboard_options {
  board_options board;
  size_t task_events = 50;     // recent events kept per task
  size_t recent_failures = 10;  // kept per target and per node
};

// A running attempt's last rendered output line and tokens so far, by
// identity and locator (runtime::attempt_output_reader::live).
using output_reader =
  std::function<attempt_live(const std::string& identity, const std::string& locator)>;

class dashboard_model {
public:
  explicit dashboard_model(dashboard_options options = {});

  void apply(const run_event& event);

  // /api/v1/state at `now`; `output` reads a running attempt's last line
  // (null: none shown).
  json state(millis now, const output_reader& output = {}) const;
  // /api/v1/tasks/<name>; nullopt for a task the run has not seen.
  std::optional<json> task(const std::string& name, millis now,
                           const output_reader& output = {}) const;

  // The supervisor's cool-downs, all of them (target -> its end); a target
  // cooling down shows `cool-down` until then. Whether they changed.
  bool set_cooldowns(std::map<std::string, dashboard_cooldown> cooldowns);

  // /api/v1/targets and /api/v1/nodes.
  json targets(millis now, const output_reader& output = {}) const;
  json nodes(millis now, const output_reader& output = {}) const;

  const run_board& board() const { return board_; }

private:
  dashboard_options options_;
  run_board board_;
  std::map<std::string, std::string> stage_;  // task -> its stage as last shown
  std::map<std::string, std::vector<dashboard_attempt>> attempts_;  // task -> attempts
  std::map<std::string, std::deque<json>> events_;  // task -> its recent events
  token_usage spent_;                     // attempts that finished while it watched
  std::map<std::string, token_usage> task_spent_;  // the same by task
  std::optional<token_usage> run_spent_;  // the summary's: the whole state's
  std::map<std::string, dashboard_target> targets_;
  std::map<std::string, dashboard_node> nodes_;
  std::map<std::string, dashboard_cooldown> cooldowns_;
  std::map<std::string, std::string> node_of_;  // running attempt identity -> its node

  void apply_target(const run_event& e);
  void apply_node(const run_event& e);
  json running_json(const std::string& id, const board_attempt& a,
                    const output_reader& output) const;
};

// The failure class of an attempt that ran out of its provider's quota.
inline constexpr std::string_view provider_quota_class = "provider-quota";

// A usage record as the API writes it: {"usage": {...}, "usage_text": "..."}
// merged into `into` (token_usage.hpp usage_to_json and usage_summary).
void put_usage(json& into, const token_usage& u);

// The overview lists waits in this order, then any other kind, then "other".
inline constexpr std::array<std::string_view, 8> overview_wait_kinds = {
  wait_quota_reset, wait_cool_down, wait_capacity, wait_claim,
  wait_dependency,  wait_pause,     wait_node,     wait_elsewhere};

// An instant as the API writes it: ISO-8601 UTC, null for 0.
json api_time(millis t);

// The token in a --token file: its text without surrounding white space.
std::string token_of(std::string_view file_text);

// Whether an Authorization header value is "Bearer <token>" (compared in
// constant time). An empty token never matches.
bool bearer_matches(std::string_view header, std::string_view token);

} // namespace ad::runtime
