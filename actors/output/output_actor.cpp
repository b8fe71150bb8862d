#include "actors/output/output_actor.hpp"

#include <caf/all.hpp>

#include "runtime/report/event_render.hpp"

namespace ad::actors {
namespace {

using redraw_atom = caf::atom_constant<caf::atom("redraw")>;
using flush_atom = caf::atom_constant<caf::atom("flushout")>;

using output_impl =
  messages::output_actor::extend<caf::reacts_to<redraw_atom>, caf::reacts_to<flush_atom>>;

struct output_state {
  static inline const char* name = "output";
  output_config config;
  runtime::run_board board;
  runtime::board_screen screen;  // the frame currently on screen
  runtime::terminal_size size;   // the terminal's size at the last frame
  bool dirty = false;
  bool flush_due = false;  // lines written since the last flush; a flush_atom is on its way
  int64_t events_written = 0;
};

using output_self = output_impl::stateful_pointer<output_state>;

runtime::terminal_size terminal_now(const output_state& st) {
  return st.config.terminal ? st.config.terminal() : runtime::terminal_size{};
}

void draw_board(output_state& st) {
  if (st.config.live_output)
    for (const auto& [id, a] : st.board.running())
      st.board.set_live(id, st.config.live_output(id, a.locator));
  auto now = st.config.clock->now();
  if (st.config.console_lines)
    for (const auto& line : st.config.console_lines())
      st.board.note(now, line);
  st.size = terminal_now(st);
  auto frame = st.board.frame(now, st.config.colours, st.size);
  *st.config.stream << st.screen.replace(frame, st.size);
  st.config.stream->flush();
  st.dirty = false;
}

// Lines are flushed once the events already in the mailbox are written
// (the flush_atom queues behind them): a line alone goes out at once, and a
// pass that shows thousands of tasks costs a write per buffer, not per line.
void take(output_self self, const runtime::run_event& event) {
  auto& st = self->state;
  ++st.events_written;
  if (st.config.observer)
    st.config.observer(event);
  auto written = [&] {
    if (!st.flush_due) {
      st.flush_due = true;
      self->send(self, flush_atom::value);
    }
  };
  switch (st.config.format) {
    case output_format::lines:
      *st.config.stream << runtime::render_event_line(event);
      written();
      break;
    case output_format::json_lines:
      *st.config.stream << runtime::render_event_json_line(event);
      written();
      break;
    case output_format::board:
      st.board.apply(event);
      st.dirty = true;
      if (event.kind == runtime::run_event_kind::summary)
        draw_board(st);  // the final frame does not wait for the timer
      break;
  }
}

messages::output_flushed flush_all(output_state& st) {
  if (st.config.format == output_format::board && (st.dirty || !st.screen.drawn()))
    draw_board(st);
  st.config.stream->flush();
  return {st.events_written};
}

output_impl::behavior_type output_behavior(output_self self, output_config config) {
  self->state.config = std::move(config);
  self->state.board = runtime::run_board(self->state.config.board);
  if (self->state.config.format == output_format::board)
    self->delayed_send(self, self->state.config.redraw_interval, redraw_atom::value);
  return {
    [self](const runtime::run_event& x) { take(self, x); },
    [self](flush_atom) {
      self->state.flush_due = false;
      self->state.config.stream->flush();
    },
    [self](const messages::flush_output&) { return flush_all(self->state); },
    [self](const messages::stop_output&) {
      auto reply = flush_all(self->state);
      self->quit();
      return reply;
    },
    [self](redraw_atom) {
      auto& st = self->state;
      // Elapsed times and output lines change even without events while
      // attempts run; a resized terminal needs the frame fitted again.
      if (st.dirty || !st.board.running().empty() || terminal_now(st) != st.size)
        draw_board(st);
      self->delayed_send(self, st.config.redraw_interval, redraw_atom::value);
    },
  };
}

} // namespace

output_format choose_output_format(stdout_kind out, json_request json) {
  if (json == json_request::on)
    return output_format::json_lines;
  return out == stdout_kind::terminal ? output_format::board : output_format::lines;
}

messages::output_actor spawn_output(caf::actor_system& sys, output_config config) {
  if (!config.clock)
    config.clock = std::make_shared<runtime::system_clock>();
  output_impl impl = sys.spawn(output_behavior, std::move(config));
  return impl;
}

} // namespace ad::actors
