#pragma once
// The output actor of `run` (interface messages::output_actor in
// messages/run_events.hpp): receives run events and writes them to an
// injected stream (stdout in the CLI, a string stream in tests) as plain
// lines, JSON Lines, or a live board redrawn in place on a timer (and at
// once when the terminal's size changed). All
// rendering is runtime/report; this actor only orders and writes.
// It is the only writer of its stream while it lives. It never fails a
// message: a write error sets the stream's state and later writes are
// dropped by the stream itself. flush_output / stop_output reply once every
// earlier event has been written and the stream flushed; stop_output then
// quits the actor (the board's last frame stays on screen).

#include <chrono>
#include <functional>
#include <memory>
#include <ostream>

#include <caf/fwd.hpp>

#include "messages/run_events.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/report/board.hpp"

namespace ad::actors {

enum class output_format : uint8_t { lines, json_lines, board };

struct output_config {
  output_format format = output_format::lines;
  std::shared_ptr<std::ostream> stream;          // must not be null
  std::shared_ptr<const runtime::clock> clock;   // "now" for the board's elapsed times
  runtime::colour_mode colours = runtime::colour_mode::ansi;
  std::chrono::milliseconds redraw_interval{500};
  runtime::board_options board;
  // The board's terminal, read at every frame (a resize is seen at the next
  // tick); null: unknown, nothing is cut to fit.
  std::function<runtime::terminal_size()> terminal;
  // What a running attempt shows from its identity and locator path: its
  // last rendered output line ("" before its folder exists) and its tokens
  // so far, read at every frame (runtime::attempt_output_reader::live);
  // null: none.
  std::function<runtime::attempt_live(const std::string& identity, const std::string& locator)>
    live_output;
  // Called with every event before it is written, on the actor's thread
  // (`run --web`: the dashboard's view and event streams; the notify
  // rules' queue); it must not wait. Null: none.
  std::function<void(const runtime::run_event&)> observer;
  // The messages logged for people since the last frame, shown on the
  // board (runtime::take_held_console_lines while the CLI holds the
  // console); null: none.
  std::function<std::vector<std::string>()> console_lines;
};

// lines when stdout is not a terminal, board when it is; json_lines wins.
enum class stdout_kind : uint8_t { pipe, terminal };
enum class json_request : uint8_t { off, on };
output_format choose_output_format(stdout_kind out, json_request json);

messages::output_actor spawn_output(caf::actor_system& sys, output_config config);

} // namespace ad::actors
