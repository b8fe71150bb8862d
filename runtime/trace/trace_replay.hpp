#pragma once
// The comparison half of `agent-dispatch replay`: walks a trace in seq
// order, feeds every edge that has a handler to it (with the trace's path
// tokens expanded to the replay roots), and compares each decision the
// handler produces with the decisions recorded for that edge (same cause,
// a kind the handler declares), in order. The earliest recorded decision
// that differs is reported, with the edges that led to it (an edge's
// decisions can come after later edges: the walk goes on over the edges
// before a difference, then stops). Handlers carry all
// decision logic and any state (cool-downs, ...) between edges; they are
// called in edge order, one at a time. Decisions of kinds no handler
// produces, and those of edges a handler does not decide (its `decides`),
// are counted as not replayed. In a trace cut off before its final edge
// (no finish_run: the run crashed or was killed), the last edge and every edge
// after the last decision are compared on the decisions the trace holds
// only: the rest were lost in the cut. Pure
// over its inputs; a handler error is a divergence whose actual value is
// {"error": message}; never throws.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/trace/trace_paths.hpp"
#include "runtime/trace/trace_reader.hpp"

namespace ad::runtime {

struct replayed_decision {
  std::string kind;
  json body;
};

using replay_fn = std::function<result<std::vector<replayed_decision>>(const json& edge_body)>;

// The same, for a handler that needs to know which edge it is given.
using replay_fn_at =
  std::function<result<std::vector<replayed_decision>>(int64_t seq, const json& edge_body)>;

// Whether a handler decides what one edge (its recorded body) caused.
using replay_decides = std::function<bool(const json& edge_body)>;

struct replay_handler {
  replay_handler() = default;
  replay_handler(std::vector<std::string> kinds, replay_fn f, replay_fn_at f_at = nullptr,
                 replay_decides d = nullptr)
      : produces(std::move(kinds)), fn(std::move(f)), fn_at(std::move(f_at)),
        decides(std::move(d)) {}

  std::vector<std::string> produces; // decision kinds compared for this edge kind
  replay_fn fn;
  replay_fn_at fn_at; // called instead of fn when set
  // Null: every edge of the kind. Else an edge it returns false for is not
  // fed, and its decisions count as recorded only (what it caused depends
  // on later edges this handler does not see).
  replay_decides decides;
};

using replay_handlers = std::map<std::string, replay_handler, std::less<>>; // by edge kind

struct replay_divergence {
  // The recorded decision that differs (the edge's seq when none was recorded).
  int64_t seq = 0;
  int64_t cause = 0;      // the edge that led to it
  std::string edge_kind;
  std::string kind;       // decision kind
  json expected;          // null: the replay decided something the trace does not hold
  json actual;            // null: the replay did not make the recorded decision
  std::vector<trace_record> recent; // the last edges up to and including the cause
};

struct replay_report {
  int64_t edges = 0;
  int64_t edges_fed = 0;
  int64_t decisions = 0;
  int64_t compared = 0;
  std::map<std::string, int64_t> not_replayed; // decision kind -> count
  std::optional<replay_divergence> divergence;
};

replay_report replay_trace(const trace_file& trace, const replay_handlers& handlers,
                           const trace_paths& replay_roots, std::size_t recent = 8);

// Multi-line human text for the divergence (index, message, expected,
// actual, recent inbound messages).
std::string render_divergence(const replay_divergence& d);
// One line: "N decisions compared over M edges; K recorded only (...)".
std::string render_replay_summary(const replay_report& r);

} // namespace ad::runtime
