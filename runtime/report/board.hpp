#pragma once
// The live board shown on a terminal during `run`: counts of tasks by status
// and the tokens and cost the finished attempts spent, one row per running
// attempt (task, role, target, attempt, elapsed time) and
// the last few events as plain lines. run_board folds run events into that
// view; frame() renders it as text for a given "now" (an injected clock
// reading, so tests are exact), and redraw() wraps a frame in the ANSI
// sequences that replace the previous frame in place. colour_mode::plain
// (NO_COLOR set) emits no colour codes at all; cursor movement is still
// used, since it is not colour. Pure values; no I/O, no threads, never throws.

#include <cstddef>
#include <deque>
#include <map>
#include <string>

#include "runtime/core/clock.hpp"
#include "runtime/report/run_event.hpp"

namespace ad::runtime {

enum class colour_mode : uint8_t { plain, ansi };

// plain when NO_COLOR is set to a non-empty value (no-color.org), else ansi.
// `no_color` is the variable's value or nullptr when unset.
colour_mode colour_mode_from_env(const char* no_color);

// "42s", "3m07s", "2h05m".
std::string format_elapsed(millis elapsed);

struct board_attempt {
  std::string task;
  std::string role;
  std::string target;
  int64_t attempt = 0;
  millis started = 0;
};

struct board_options {
  size_t recent_events = 5;   // how many recent event lines the board keeps
  size_t max_attempt_rows = 20;  // more running attempts are summarized in one line
};

class run_board {
public:
  explicit run_board(board_options options = {}) : options_(options) {}

  void apply(const run_event& event);

  // The whole board; every line ends with '\n'.
  std::string frame(millis now, colour_mode colours) const;

  const std::map<std::string, std::string>& task_statuses() const { return status_; }
  const std::map<std::string, board_attempt>& running() const { return running_; }
  bool finished() const { return finished_; }

private:
  board_options options_;
  std::map<std::string, std::string> status_;          // task -> status word
  std::map<std::string, board_attempt> running_;       // identity -> attempt
  std::deque<std::string> recent_;                     // plain event lines, no '\n'
  // What the attempts that finished while this board watched spent (the
  // summary line has the run's total from the durable state).
  token_usage spent_;
  bool finished_ = false;
  std::string summary_line_;
};

// Text that replaces a previously written frame of `previous_lines` lines
// (cursor up, clear to the end of the screen) and writes `frame`.
std::string redraw(const std::string& frame, size_t previous_lines);

// The number of lines of a frame (count of '\n').
size_t frame_lines(const std::string& frame);

} // namespace ad::runtime
