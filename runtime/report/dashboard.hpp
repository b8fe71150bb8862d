#pragma once
// The dashboard's views as JSON (docs/dashboard.md), built from the run's
// events (`run --web`): the overview (`/api/v1/state`: counts by status,
// running attempts with their last output line, waits grouped by kind with
// their end, blocked tasks with the command that retries them, user-review
// stops, the summary once the run ended) and one task
// (`/api/v1/tasks/<name>`: its status, every attempt this run started with
// its locator and end, its recent events). The same folding as the terminal
// board (run_board), so both show one truth. Pure values; the last output
// lines come from a function the caller gives (runtime::last_rendered_line
// in the CLI). Never throws.

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/report/board.hpp"

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
};

struct dashboard_options {
  board_options board;
  size_t task_events = 50;  // recent events kept per task
};

// The last rendered output line of an attempt by identity and locator
// (runtime::attempt_output_reader).
using output_reader =
  std::function<std::string(const std::string& identity, const std::string& locator)>;

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

  const run_board& board() const { return board_; }

private:
  dashboard_options options_;
  run_board board_;
  std::map<std::string, std::string> stage_;  // task -> its stage as last shown
  std::map<std::string, std::vector<dashboard_attempt>> attempts_;  // task -> attempts
  std::map<std::string, std::deque<json>> events_;  // task -> its recent events
};

// An instant as the API writes it: ISO-8601 UTC, null for 0.
json api_time(millis t);

// The token in a --token file: its text without surrounding white space.
std::string token_of(std::string_view file_text);

// Whether an Authorization header value is "Bearer <token>" (compared in
// constant time). An empty token never matches.
bool bearer_matches(std::string_view header, std::string_view token);

} // namespace ad::runtime
