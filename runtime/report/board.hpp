#pragma once
// The live board shown on a terminal during `run`: counts of tasks by
// status and the tokens and cost the finished attempts spent, one row per
// running attempt (task, role, target, attempt, local
// start time, elapsed time, tokens when known, its last rendered output
// line), the waits grouped by what they wait for (with their end as a
// local clock time), the blocked tasks with their reason and the exact
// command that retries them, and the last few events, each with a local
// clock time. run_board folds run events into that view; frame() renders
// it for a given "now" (an injected clock reading, so tests are exact),
// cut to the terminal's width and height (no line wraps, the frame never
// scrolls). board_screen replaces the previous frame in place: it moves the
// cursor back over exactly the rows that frame takes at the terminal's
// width now (a terminal reflows wrapped lines when it is resized) and,
// after a resize, clears what the terminal showed above it.
// colour_mode::plain (NO_COLOR set) emits no colour codes at all; cursor
// movement is still used, since it is not colour. Pure values; no I/O, no
// threads, never throws.

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include "runtime/core/clock.hpp"
#include "runtime/report/output_tail.hpp"
#include "runtime/report/run_event.hpp"
#include "runtime/report/terminal_text.hpp"

namespace ad::runtime {

enum class colour_mode : uint8_t { plain, ansi };

// plain when NO_COLOR is set to a non-empty value (no-color.org), else ansi.
// `no_color` is the variable's value or nullptr when unset.
colour_mode colour_mode_from_env(const char* no_color);

// A word for a POSIX shell: as it is when it holds only safe characters,
// else in single quotes.
std::string shell_word(const std::string& word);

// The command that retries a blocked task: `prefix` (the run command
// with --workspace and --retry-blocked) with the task's group; "" for an
// empty prefix.
std::string retry_command_for(const std::string& prefix, const std::string& task);

// "42s", "3m07s", "2h05m".
std::string format_elapsed(millis elapsed);

struct board_attempt {
  std::string task;
  std::string role;
  std::string target;
  std::string node;
  int64_t attempt = 0;
  millis started = 0;
  std::string locator;  // its locator.json (the attempt folder holds its output)
  std::string output;   // its last rendered output line, "" until one is known
  std::string usage;    // tokens so far as shown ("12,345 tok"), "" when unknown
};

// What a waiting task waits for, as run_event::wait names it.
struct board_wait {
  std::string kind;  // run_event::wait; "" when the event did not say
  std::string reason;
  std::string target;
  millis until = 0;  // 0: no known end
};

struct board_options {
  size_t recent_events = 5;   // how many recent event lines the board keeps
  size_t max_attempt_rows = 20;  // more running attempts are summarized in one line
  // The command that retries a blocked task, without the task group:
  // "agent-dispatch run --workspace /w --retry-blocked"; empty: not shown.
  std::string retry_command = {};
  // The offset east of UTC at an instant, for local clock times; null: UTC.
  std::function<int32_t(millis)> utc_offset = {};
};

class run_board {
public:
  explicit run_board(board_options options = {}) : options_(std::move(options)) {}

  void apply(const run_event& event);
  // What a running attempt (by identity) shows now: its last rendered
  // output line and its tokens so far; ignored for an attempt not running.
  void set_live(const std::string& identity, const attempt_live& live);
  // A message the dispatcher logged for people while the board was on the
  // screen (logging.hpp hold_console), shown among the recent lines.
  void note(millis time, const std::string& line);

  // The whole board; every line ends with '\n'. With a known terminal size,
  // every line fits its width and the frame leaves the last row free.
  std::string frame(millis now, colour_mode colours, terminal_size size = {}) const;

  // The command that retries a blocked task ("" without retry_command).
  std::string retry_command_for(const std::string& task) const;

  const std::map<std::string, std::string>& task_statuses() const { return status_; }
  const std::map<std::string, board_attempt>& running() const { return running_; }
  const std::map<std::string, board_wait>& waits() const { return waits_; }
  const std::map<std::string, std::string>& blocked() const { return blocked_; }
  bool finished() const { return finished_; }
  const std::string& summary_line() const { return summary_line_; }
  std::string clock_text(millis t) const;

private:
  void set_status(const std::string& task, std::string_view status);

  board_options options_;
  std::map<std::string, std::string> status_;          // task -> status word
  std::map<std::string, board_attempt> running_;       // identity -> attempt
  std::map<std::string, board_wait> waits_;            // waiting task -> its wait
  std::map<std::string, std::string> blocked_;         // blocked task -> reason
  std::deque<std::pair<millis, std::string>> recent_;  // event time, line without the stamp
  // What the attempts that finished while this board watched spent (the
  // summary line has the run's total from the durable state).
  token_usage spent_;
  bool finished_ = false;
  std::string summary_line_;
};

// Text that replaces a previously written frame of `previous_rows` rows:
// the cursor goes up over them, with `clear_above` the screen above the
// frame's top is cleared (ESC[1J), each line of `frame` is written over a
// cleared line (ESC[2K), then the rest of the screen below is cleared
// (ESC[J). `frame` ends with '\n'.
std::string redraw(const std::string& frame, size_t previous_rows, bool clear_above = false);

// The frame on screen, replaced in place: replace() returns the bytes that
// move the cursor back over the rows the previous frame takes at the
// terminal's width now and write the new frame. After a resize it also
// clears the screen above the frame: a terminal that grew taller shows
// rows of its scroll history there (pieces of frames a narrower or
// shorter screen had pushed up), which no cursor movement over the
// frame's own rows reaches.
class board_screen {
public:
  std::string replace(const std::string& frame, terminal_size size);
  bool drawn() const { return drawn_; }

private:
  std::string previous_;
  terminal_size size_;
  bool drawn_ = false;
};

} // namespace ad::runtime
