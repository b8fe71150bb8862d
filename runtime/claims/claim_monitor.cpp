#include "runtime/claims/claim_monitor.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "runtime/claims/observed_changes.hpp"

namespace ad::runtime {

namespace {

std::string verdict_key(const claim_violation& v) {
  std::string key;
  if (v.attribution == attribution_basis::candidates) {
    key = "c";
    for (const auto& c : v.candidates)
      key += "|" + c;
  } else {
    key = "a|" + v.attempt;
  }
  return key + "|" + v.path;
}

} // namespace

attempt_window claim_monitor::window_of(const watched_attempt& a) const {
  attempt_window w;
  w.task = a.task;
  w.attempt = a.identity;
  w.marker = a.marker;
  w.write_set = a.write_set;
  w.started = a.started;
  auto e = ended_.find(a.identity);
  w.ended = e == ended_.end() ? 0 : e->second;
  return w;
}

void claim_monitor::begin(const watched_attempt& a) {
  attempts_[a.identity] = a;
  ended_.erase(a.identity);
}

watch_end claim_monitor::end(const std::string& identity, millis at) {
  watch_end out;
  if (!attempts_.count(identity))
    return out;
  out.known = true;
  // An end time before the start (clocks of two processes) is the start.
  ended_[identity] = std::max(at, attempts_.at(identity).started);
  out.held_admission = holding_.erase(identity) != 0;
  return out;
}

bool claim_monitor::running(const std::string& identity) const {
  return attempts_.count(identity) && !ended_.count(identity);
}

bool claim_monitor::any_running() const { return attempts_.size() > ended_.size(); }

const watched_attempt* claim_monitor::find(const std::string& identity) const {
  auto it = attempts_.find(identity);
  return it == attempts_.end() ? nullptr : &it->second;
}

pending_judgement claim_monitor::from_events(const std::vector<write_event>& events,
                                             millis now) {
  // The attempts of the window, by reference: their windows are copied out
  // only when something is left to judge (most drains find nothing).
  std::vector<const watched_attempt*> kept;
  for (const auto& [id, a] : attempts_) {
    auto e = ended_.find(id);
    if (e == ended_.end() || e->second + options_.slack >= now)
      kept.push_back(&a);
  }
  auto known_marker = [&kept](const std::string& marker) {
    return std::any_of(kept.begin(), kept.end(),
                       [&marker](const watched_attempt* a) { return a->marker == marker; });
  };
  const bool settle = options_.settle > 0 && options_.path_exists;
  // A drain reads the writes before the creations (two fanotify groups), so
  // a new file's write may come before its create in `events`.
  std::set<std::string_view> created_here;
  if (settle)
    for (const auto& e : events)
      if (e.what == write_kind::created)
        created_here.insert(e.path);
  std::vector<write_event> judged;
  for (const auto& e : events) {
    if (e.what != write_kind::lost && !e.marker.empty() && !known_marker(e.marker)) {
      if (held_.size() < options_.max_held_events)
        held_.emplace_back(now, e);
      continue;
    }
    if (settle && e.what != write_kind::lost &&
        (created_here.count(e.path) || settling_.count(e.path))) {
      auto& s = settling_[e.path];
      if (s.events.empty())
        s.since = now;
      s.events.push_back(e);
      continue;
    }
    judged.push_back(e);
  }
  for (auto it = settling_.begin(); it != settling_.end();) {
    if (it->second.since + options_.settle > now) {
      ++it;
      continue;
    }
    if (options_.path_exists(it->first))
      judged.insert(judged.end(), it->second.events.begin(), it->second.events.end());
    it = settling_.erase(it);
  }
  pending_judgement out;
  if (judged.empty())
    return out;
  out.changes = observed_from_events(judged, now);
  if (out.changes.empty())
    return out;
  out.attempts.reserve(kept.size());
  for (const auto* a : kept)
    out.attempts.push_back(window_of(*a));
  return out;
}

bool claim_monitor::settling_until(millis t) const {
  return std::any_of(settling_.begin(), settling_.end(),
                     [t](const auto& s) { return s.second.since <= t; });
}

std::vector<pending_judgement> claim_monitor::begin_after(const watched_attempt& a,
                                                          const std::vector<write_event>& queued,
                                                          millis now) {
  std::vector<write_event> its, others;
  for (const auto& e : queued)
    (!a.marker.empty() && e.marker == a.marker ? its : others).push_back(e);
  if (!a.marker.empty())
    std::erase_if(held_, [&](const auto& h) {
      if (h.second.marker != a.marker)
        return false;
      its.push_back(h.second);
      return true;
    });
  std::vector<pending_judgement> out;
  out.push_back(from_events(others, now));
  begin(a);
  out.push_back(from_events(its, now));
  return out;
}

pending_judgement claim_monitor::from_diff(const std::string& identity, const snapshot_diff& diff) {
  pending_judgement out;
  auto self = attempts_.find(identity);
  if (self == attempts_.end())
    return out;
  auto window = window_of(self->second);
  millis window_end = window.ended == 0 ? window.started : window.ended;
  for (auto& c : observed_from_diff(diff)) {
    if (c.at == 0) {
      // A delete has no change time: it is the one an overlapping window
      // judged when that window ended after this one started.
      auto seen = judged_deletes_.find(c.path);
      if (seen != judged_deletes_.end() && seen->second >= window.started)
        continue;
      judged_deletes_[c.path] = window_end;
      out.changes.push_back(std::move(c));
    } else if (judged_changes_.insert({c.path, c.at}).second) {
      out.changes.push_back(std::move(c));
    }
  }
  if (out.changes.empty())
    return out;
  // Every attempt whose run overlapped this one's (a running one overlaps
  // whatever started before this one ended).
  for (const auto& [id, a] : attempts_) {
    auto w = window_of(a);
    bool overlaps = w.started <= window_end && (w.ended == 0 || w.ended >= window.started);
    if (id == identity || overlaps)
      out.attempts.push_back(std::move(w));
  }
  return out;
}

std::vector<claim_violation> claim_monitor::judge(const pending_judgement& window,
                                                  const claim_map& claims) {
  std::vector<claim_violation> out;
  if (window.changes.empty())
    return out;
  auto report =
    judge_claim_writes(window.changes, window.attempts, claims, judge_options{options_.slack});
  for (auto& v : report.violations)
    if (reported_.insert(verdict_key(v)).second)
      out.push_back(std::move(v));
  return out;
}

std::vector<live_violation> claim_monitor::live_after(const claim_violation& v) {
  std::vector<live_violation> out;
  auto add = [&](const std::string& identity) {
    const auto* a = find(identity);
    if (a == nullptr || !running(identity))
      return;
    out.push_back({v.path, identity, a->task});
    holding_.insert(identity);
  };
  if (v.attribution == attribution_basis::candidates)
    for (const auto& c : v.candidates)
      add(c);
  else
    add(v.attempt);
  return out;
}

void claim_monitor::prune(millis now) {
  millis oldest_running = now;
  for (const auto& [id, a] : attempts_)
    if (!ended_.count(id))
      oldest_running = std::min(oldest_running, a.started);
  for (auto it = ended_.begin(); it != ended_.end();) {
    if (it->second + options_.slack < now && it->second + options_.slack < oldest_running) {
      attempts_.erase(it->first);
      holding_.erase(it->first);
      it = ended_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(held_, [&](const auto& h) { return h.first + options_.slack < now; });
  // Snapshot changes older than every kept attempt cannot be seen again.
  millis oldest_kept = now;
  for (const auto& [id, a] : attempts_)
    oldest_kept = std::min(oldest_kept, a.started);
  std::erase_if(judged_changes_,
                [&](const auto& c) { return c.second + options_.slack < oldest_kept; });
  std::erase_if(judged_deletes_, [&](const auto& d) { return d.second < oldest_kept; });
}

} // namespace ad::runtime
