#pragma once
// How a replayed actor's records line up with the recorded ones it stands
// for (tools/replay/task_actor_replay, scheduler_replay): the actor records
// into an in-memory trace, and its n-th edge stands for the n-th recorded
// edge as long as their kinds agree from the start. Pure; never throws.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/trace/trace_format.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::tools {

struct edge_match {
  std::vector<std::string> replayed;    // the replayed edges' kinds, in order
  std::vector<std::string> recorded;    // the recorded edges' kinds, in order
  std::map<int64_t, std::size_t> index; // replayed edge seq -> n
  std::size_t split = 0;                // edges whose kinds agree from the start

  // "<kind>" of edge n on either side, "nothing more" past the end.
  static std::string kind_at(const std::vector<std::string>& kinds, std::size_t n) {
    return n < kinds.size() ? kinds[n] : std::string("nothing more");
  }
  // "recorded X where the trace has Y", at the split.
  std::string difference() const {
    return "recorded " + kind_at(replayed, split) + " where the trace has " +
           kind_at(recorded, split);
  }
};

inline edge_match match_edges(const std::vector<runtime::trace_record>& kept,
                              const std::vector<const runtime::trace_record*>& recorded) {
  edge_match m;
  for (const auto& r : kept)
    if (r.dir == runtime::trace_direction::edge) {
      m.index[r.seq] = m.replayed.size();
      m.replayed.push_back(r.kind);
    }
  for (const auto* e : recorded)
    m.recorded.push_back(e->kind);
  while (m.split < m.replayed.size() && m.split < m.recorded.size() &&
         m.replayed[m.split] == m.recorded[m.split])
    ++m.split;
  return m;
}

using decisions_by_edge = std::map<int64_t, std::vector<runtime::replayed_decision>>;
using records_by_cause = std::map<int64_t, std::vector<const runtime::trace_record*>>;

// The decisions replay made at the recorded edge `seq`, of the kinds in
// `wanted`. cut: the trace was cut off before they were all written (what
// the actor decided there after the cut is not in the trace), so no more
// of them are kept than the trace recorded for that edge.
inline std::vector<runtime::replayed_decision> decisions_at(
  const decisions_by_edge& decided, const records_by_cause& recorded, int64_t seq,
  const std::vector<std::string>& wanted, bool cut) {
  auto is_wanted = [&wanted](const std::string& kind) {
    return std::find(wanted.begin(), wanted.end(), kind) != wanted.end();
  };
  std::vector<runtime::replayed_decision> out;
  if (auto it = decided.find(seq); it != decided.end())
    for (const auto& d : it->second)
      if (is_wanted(d.kind))
        out.push_back(d);
  if (cut) {
    std::size_t n = 0;
    if (auto it = recorded.find(seq); it != recorded.end())
      for (const auto* d : it->second)
        n += is_wanted(d->kind);
    if (out.size() > n)
      out.resize(n);
  }
  return out;
}

} // namespace ad::tools
