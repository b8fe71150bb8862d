#pragma once
// Run events and the typed interface of the output actor (actors/output):
// the scheduler and task actors tell it what happened during `run` (a task
// started, waits, is blocked, finished; an attempt started or finished; the
// supervisor failed over, promoted, matched a tactical pattern or waits; the
// run's summary) as runtime::run_event values, the one event type of a run
// (runtime/report/run_event.hpp: their machines' `show` commands), and the
// output actor renders them as plain lines, JSON Lines or a live board
// (runtime/report). Events are past tense, fire-and-forget (`reacts_to`), and
// carry the sender's clock reading in `time` (ms since the epoch, UTC) so a
// recorded trace renders the same output. The output actor writes nothing
// durable and never answers an event; flush_output / stop_output reply with
// output_flushed once everything received before them is written.
// Also here: shutdown_requested, which the signal watcher sends to the
// scheduler on the first SIGINT/SIGTERM.
// Error contract: none of these messages is answered with an error.
// Registered by add_run_event_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/save_callback.hpp>
#include <caf/sec.hpp>
#include <caf/typed_actor.hpp>

#include "messages/wire.hpp"
#include "runtime/report/run_event.hpp"

namespace ad::runtime {

// A run event as the output renders it (runtime/report/run_event.hpp): what
// the scheduler and task actors send for their machines' `show` commands.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, report_task_entry& x) {
  return f(caf::meta::type_name("report_task_entry"), x.task, x.stage, x.status, x.reason, x.wait);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, report_count& x) {
  return f(caf::meta::type_name("report_count"), x.status, x.count);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_event& x) {
  uint8_t kind = 0;
  return f(caf::meta::type_name("run_event"), caf::meta::save_callback([&]() -> caf::error {
             kind = static_cast<uint8_t>(x.kind);
             return caf::none;
           }),
           kind, caf::meta::load_callback([&]() -> caf::error {
             if (kind > static_cast<uint8_t>(run_event_kind::node_status))
               return caf::make_error(caf::sec::invalid_argument);
             x.kind = static_cast<run_event_kind>(kind);
             return caf::none;
           }),
           x.time, x.task, x.stage, x.role, x.reason, x.outcome, x.target, x.cli, x.model,
           x.attempt, x.identity, x.locator, x.node, x.attempt_status, x.exit_code, x.failure_class,
           x.evidence, x.from_target, x.to_target, x.pattern_ids, x.action, x.until, x.tasks,
           x.counts, x.path, x.other_task, x.attribution, x.candidates, x.wait, x.usage, x.slots,
           x.slots_in_use, x.lease);
}

} // namespace ad::runtime

namespace ad::messages {

// ---- output control --------------------------------------------------------

// Write everything received so far (and redraw the board once); replies
// output_flushed when the stream has been flushed.
struct flush_output {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, flush_output&) {
  return f(caf::meta::type_name("flush_output"));
}

// Like flush_output, then the output actor stops its redraw timer and quits
// after replying. The board leaves its last frame on screen.
struct stop_output {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_output&) {
  return f(caf::meta::type_name("stop_output"));
}

struct output_flushed {
  int64_t events_written = 0;  // events rendered since the actor started
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, output_flushed& x) {
  return f(caf::meta::type_name("output_flushed"), x.events_written);
}

using output_actor =
  caf::typed_actor<caf::reacts_to<runtime::run_event>,
                   caf::replies_to<flush_output>::with<output_flushed>,
                   caf::replies_to<stop_output>::with<output_flushed>>;

// ---- signals ---------------------------------------------------------------

// Signal watcher -> scheduler: the first SIGINT/SIGTERM arrived. The
// scheduler stops admissions, terminates running agents' process groups,
// records them cancelled, flushes state and exits 130. A second signal makes
// the watcher _exit(130) at once.
struct shutdown_requested {
  int32_t signal_number = 0;  // SIGINT or SIGTERM
  int64_t time = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shutdown_requested& x) {
  return f(caf::meta::type_name("shutdown_requested"), x.signal_number, x.time);
}

// The narrowest handle the signal watcher needs; the scheduler's interface
// includes reacts_to<shutdown_requested>, so its handle converts to this.
using shutdown_listener = caf::typed_actor<caf::reacts_to<shutdown_requested>>;

void add_run_event_messages(caf::actor_system_config& cfg);

} // namespace ad::messages
