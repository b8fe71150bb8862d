#include "runtime/trace/trace_replay.hpp"

#include "runtime/core/exception_text.hpp"

#include <algorithm>
#include <deque>
#include <set>

namespace ad::runtime {

namespace {

std::string short_dump(const json& j, std::size_t cap = 400) {
  auto s = dump_json(j);
  if (s.size() > cap)
    s = s.substr(0, cap) + "...";
  return s;
}

} // namespace

replay_report replay_trace(const trace_file& trace, const replay_handlers& handlers,
                           const trace_paths& replay_roots, std::size_t recent) {
  replay_report out;
  std::set<std::string, std::less<>> produced;
  for (const auto& [edge, h] : handlers)
    produced.insert(h.produces.begin(), h.produces.end());
  // Recorded decisions per cause, in seq order.
  std::map<int64_t, std::vector<const trace_record*>> by_cause;
  for (const auto& r : trace.records) {
    if (r.dir != trace_direction::decision)
      continue;
    ++out.decisions;
    by_cause[r.cause].push_back(&r);
  }
  std::map<int64_t, const trace_record*> edges;
  for (const auto& r : trace.records)
    if (r.dir == trace_direction::edge)
      edges[r.seq] = &r;
  // Decisions whose edge has no handler, or whose kind no handler of that
  // edge produces, are recorded only.
  for (const auto& [cause, list] : by_cause)
    for (const auto* d : list) {
      auto e = edges.find(cause);
      const replay_handler* h = nullptr;
      if (e != edges.end())
        if (auto it = handlers.find(e->second->kind); it != handlers.end())
          h = &it->second;
      bool compared = h && std::find(h->produces.begin(), h->produces.end(), d->kind) !=
                             h->produces.end() &&
                      (!h->decides || h->decides(e->second->body));
      if (!compared)
        ++out.not_replayed[d->kind];
    }

  // A trace cut off before the run's end (the scheduler's finish_run): its last edge, and every edge after its
  // last decision (other actors' edges can come between an edge and its
  // decisions), may have lost decisions in the cut. Without it the run
  // stopped somewhere: records are written in order, so a lost decision
  // would have come after every record the trace holds, and so can an
  // edge's whose every later decision is its own (the run stopped while
  // they were being written).
  const trace_record* last_edge = nullptr;
  int64_t last_decision = 0;
  bool ended = false;
  for (const auto& r : trace.records) {
    if (r.dir == trace_direction::edge)
      last_edge = &r;
    else
      last_decision = r.seq;
    ended = ended || ends_run(r);
  }
  bool cut = last_edge && (!ended || last_edge == &trace.records.back());
  std::set<int64_t> open_at_cut; // edges whose decisions may run past the cut
  if (cut && !ended) {
    constexpr int64_t none = -1, mixed = -2;
    int64_t cause_after = none; // the one cause of every decision after here
    for (auto it = trace.records.rbegin(); it != trace.records.rend(); ++it) {
      if (it->dir == trace_direction::edge) {
        if (cause_after == none || cause_after == it->seq)
          open_at_cut.insert(it->seq);
      } else if (cause_after == none) {
        cause_after = it->cause;
      } else if (cause_after != it->cause) {
        cause_after = mixed;
      }
    }
  }
  auto maybe_cut = [&](const trace_record& edge) {
    return cut && (&edge == last_edge || edge.seq > last_decision || open_at_cut.contains(edge.seq));
  };

  // The first divergence is the earliest recorded decision that differs.
  // An edge's decisions may be recorded after later edges (a scheduler
  // pass's own record comes after the edges its steps read), so once a
  // difference is found the walk goes on over the edges before it.
  std::deque<const trace_record*> window;
  for (const auto& r : trace.records) {
    if (r.dir != trace_direction::edge)
      continue;
    if (out.divergence && r.seq >= out.divergence->seq)
      break;
    ++out.edges;
    window.push_back(&r);
    if (window.size() > recent)
      window.pop_front();
    auto it = handlers.find(r.kind);
    if (it == handlers.end() || (it->second.decides && !it->second.decides(r.body)))
      continue;
    ++out.edges_fed;
    const auto& h = it->second;
    std::vector<const trace_record*> expected;
    if (auto c = by_cause.find(r.seq); c != by_cause.end())
      for (const auto* d : c->second)
        if (std::find(h.produces.begin(), h.produces.end(), d->kind) != h.produces.end())
          expected.push_back(d);
    std::vector<replayed_decision> actual;
    auto body = replay_roots.expand(r.body);
    // A handler reports a record it cannot read as an error result; one that
    // throws on a damaged body is reported the same way, never past here.
    result<std::vector<replayed_decision>> got = status::internal("not replayed");
    try {
      got = h.fn_at ? h.fn_at(r.seq, body) : h.fn(body);
    } catch (const std::exception& e) {
      got = status::invalid_argument(r.kind + ": " + exception_text(e));
    }
    if (got.is_ok()) {
      actual = std::move(*got);
      for (auto& a : actual)
        a.body = replay_roots.relativize(a.body);
    } else {
      actual.push_back({expected.empty() ? std::string("error") : expected.front()->kind,
                        json{{"error", got.error().message()}}});
    }
    auto diverge = [&](std::size_t i) {
      replay_divergence d;
      d.cause = r.seq;
      d.edge_kind = r.kind;
      if (i < expected.size()) {
        d.seq = expected[i]->seq;
        d.kind = expected[i]->kind;
        d.expected = expected[i]->body;
      } else {
        d.seq = r.seq;
      }
      if (i < actual.size()) {
        if (d.kind.empty())
          d.kind = actual[i].kind;
        d.actual = actual[i].body;
        if (i < expected.size() && actual[i].kind != expected[i]->kind)
          d.actual = json{{"kind", actual[i].kind}, {"body", actual[i].body}};
      }
      for (const auto* w : window)
        d.recent.push_back(*w);
      out.divergence = std::move(d);
    };
    if (maybe_cut(r) && actual.size() > expected.size())
      actual.resize(expected.size());
    std::size_t n = std::max(expected.size(), actual.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (i >= expected.size() || i >= actual.size() || actual[i].kind != expected[i]->kind ||
          actual[i].body != expected[i]->body) {
        auto at = i < expected.size() ? expected[i]->seq : r.seq;
        if (!out.divergence || at < out.divergence->seq)
          diverge(i);
        break;
      }
      ++out.compared;
    }
  }
  return out;
}

namespace {

// Where two values differ, as JSON pointers (at most `limit`), each with
// both values: what a reader of a long decision needs. Objects with the
// same members and arrays of the same length are compared member by
// member; anything else that differs is shown whole at its pointer.
bool same_shape(const json& a, const json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size())
      return false;
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()))
        return false;
    return true;
  }
  return a.is_array() && b.is_array() && a.size() == b.size();
}

void differences(const json& expected, const json& actual, const std::string& at,
                 std::vector<std::string>& out, std::size_t limit) {
  if (out.size() >= limit || expected == actual)
    return;
  if (same_shape(expected, actual)) {
    if (expected.is_object()) {
      for (auto it = expected.begin(); it != expected.end(); ++it)
        differences(it.value(), actual[it.key()], at + "/" + it.key(), out, limit);
    } else {
      for (std::size_t i = 0; i < expected.size(); ++i)
        differences(expected[i], actual[i], at + "/" + std::to_string(i), out, limit);
    }
    return;
  }
  out.push_back((at.empty() ? "/" : at) + ": expected " + short_dump(expected) + ", actual " +
                short_dump(actual));
}

} // namespace

std::string render_divergence(const replay_divergence& d) {
  std::string out = "divergence at record " + std::to_string(d.seq) + " (" + d.kind + ")\n";
  out += "  message: record " + std::to_string(d.cause) + " (" + d.edge_kind + ")\n";
  out += "  expected: " + (d.expected.is_null() ? std::string("(no decision)") : dump_json(d.expected)) + "\n";
  out += "  actual:   " + (d.actual.is_null() ? std::string("(no decision)") : dump_json(d.actual)) + "\n";
  if (!d.expected.is_null() && !d.actual.is_null()) {
    std::vector<std::string> diffs;
    differences(d.expected, d.actual, "", diffs, 8);
    for (const auto& line : diffs)
      out += "  differs at " + line + "\n";
  }
  out += "  recent inbound messages:\n";
  for (const auto& r : d.recent)
    out += "    " + std::to_string(r.seq) + " " + r.kind + " " + short_dump(r.body, 300) + "\n";
  return out;
}

std::string render_replay_summary(const replay_report& r) {
  std::string out = std::to_string(r.compared) + " decisions compared over " +
                    std::to_string(r.edges_fed) + " of " + std::to_string(r.edges) + " edges";
  int64_t only = 0;
  std::string kinds;
  for (const auto& [kind, n] : r.not_replayed) {
    only += n;
    kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(n);
  }
  if (only > 0)
    out += "; " + std::to_string(only) + " recorded only (" + kinds + ")";
  return out;
}

} // namespace ad::runtime
