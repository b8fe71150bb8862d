#include "runtime/policy/quota.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/numbers.hpp"

namespace ad::runtime {

std::string_view to_string(quota_status s) {
  switch (s) {
    case quota_status::available: return "available";
    case quota_status::exhausted: return "exhausted";
    case quota_status::unknown: return "unknown";
  }
  return "unknown";
}

namespace {

std::optional<quota_status> quota_status_from(std::string_view s) {
  if (s == "available")
    return quota_status::available;
  if (s == "exhausted")
    return quota_status::exhausted;
  if (s == "unknown")
    return quota_status::unknown;
  return std::nullopt;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

std::vector<std::string> expand_probe(const policy_target& t) {
  std::vector<std::string> out;
  for (const auto& a : t.quota_probe)
    out.push_back(replace_all(replace_all(replace_all(a, "{adapter}", t.adapter), "{model}", t.model),
                              "{target}", t.id));
  return out;
}

} // namespace

const probe_result* probe_snapshot::find(std::string_view target_id) const {
  for (const auto& e : entries)
    if (e.target_id == target_id)
      return &e;
  return nullptr;
}

json to_json(const probe_snapshot& s) {
  json entries = json::array();
  for (const auto& e : s.entries) {
    json j = {{"target", e.target_id},
              {"probe", e.probe},
              {"status", std::string(to_string(e.state))},
              {"detail", e.detail}};
    j["reset_at"] = e.has_reset_at ? json(format_utc_iso(e.reset_at)) : json(nullptr);
    entries.push_back(std::move(j));
  }
  return {{"snapshot_id", s.snapshot_id.empty() ? json(nullptr) : json(s.snapshot_id)},
          {"checked_at", s.checked_at == 0 ? json(nullptr) : json(format_utc_iso(s.checked_at))},
          {"source", s.source},
          {"targets", entries}};
}

quota_snapshot to_quota_snapshot(const probe_snapshot& s) {
  quota_snapshot out;
  out.taken_at = s.checked_at;
  for (const auto& e : s.entries)
    out.status_by_target[e.target_id] = std::string(to_string(e.state));
  return out;
}

result<probe_snapshot> probe_snapshot_from_json(const json& j) {
  auto bad = [](std::string what) { return status::invalid_argument("quota snapshot: " + what); };
  if (!j.is_object())
    return bad("not an object");
  probe_snapshot s;
  if (j.contains("snapshot_id") && j["snapshot_id"].is_string())
    s.snapshot_id = j["snapshot_id"].get<std::string>();
  if (j.contains("checked_at") && j["checked_at"].is_string()) {
    auto t = parse_utc_iso(j["checked_at"].get<std::string>());
    if (!t)
      return bad("checked_at: " + t.error().message());
    s.checked_at = *t;
  }
  if (j.contains("source") && j["source"].is_string())
    s.source = j["source"].get<std::string>();
  if (j.contains("targets")) {
    if (!j["targets"].is_array())
      return bad("targets is not an array");
    for (const auto& e : j["targets"]) {
      if (!e.is_object() || !e.contains("target") || !e["target"].is_string() ||
          !e.contains("status") || !e["status"].is_string())
        return bad("entry without target or status");
      probe_result q;
      q.target_id = e["target"].get<std::string>();
      auto st = quota_status_from(e["status"].get<std::string>());
      if (!st)
        return bad("entry status \"" + e["status"].get<std::string>() + "\"");
      q.state = *st;
      if (e.contains("probe") && e["probe"].is_array())
        for (const auto& a : e["probe"])
          if (a.is_string())
            q.probe.push_back(a.get<std::string>());
      if (e.contains("detail") && e["detail"].is_string())
        q.detail = e["detail"].get<std::string>();
      if (e.contains("reset_at") && e["reset_at"].is_string()) {
        auto t = parse_utc_iso(e["reset_at"].get<std::string>());
        if (!t)
          return bad("reset_at: " + t.error().message());
        q.has_reset_at = true;
        q.reset_at = *t;
      }
      s.entries.push_back(std::move(q));
    }
  }
  return s;
}

std::vector<planned_probe> plan_quota_probes(const policy& pol,
                                             const std::vector<probe_request>& requests) {
  std::vector<planned_probe> plan;
  auto add = [&](const policy_target& t) {
    if (t.quota_probe.empty())
      return;
    auto argv = expand_probe(t);
    for (auto& p : plan) {
      if (p.argv == argv) {
        if (std::find(p.target_ids.begin(), p.target_ids.end(), t.id) == p.target_ids.end())
          p.target_ids.push_back(t.id);
        return;
      }
    }
    plan.push_back({std::move(argv), {t.id}});
  };
  for (const auto& req : requests) {
    for (const auto& id : req.candidate_ids) {
      const policy_target* t = pol.find_target(id);
      if (t == nullptr)
        continue;
      if (req.mode == probe_request::kind::fresh) {
        if (t->exec_class == execution_class::local_model)
          break; // the first local candidate needs no quota; later ones are not reached
        add(*t);
      } else {
        if (t->exec_class == execution_class::local_model ||
            std::find(req.used_ids.begin(), req.used_ids.end(), id) != req.used_ids.end())
          continue;
        add(*t);
      }
    }
  }
  return plan;
}

probe_result parse_quota_probe_output(std::string_view target_id,
                                     const std::vector<std::string>& argv, std::string_view output,
                                     int exit_code, millis now) {
  probe_result e;
  e.target_id = std::string(target_id);
  e.probe = argv;
  if (exit_code != 0) {
    e.detail = "probe exited with code " + std::to_string(exit_code);
    return e;
  }
  // The answer is the last non-empty line that parses as a JSON object.
  std::string_view text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r'))
    text.remove_suffix(1);
  size_t nl = text.rfind('\n');
  std::string_view last = nl == std::string_view::npos ? text : text.substr(nl + 1);
  auto doc = parse_json(last, "quota probe output");
  if (!doc || !doc->is_object()) {
    e.detail = "probe output is not a JSON object";
    return e;
  }
  const json& j = *doc;
  if (!j.contains("status") || !j["status"].is_string()) {
    e.detail = "probe output has no status";
    return e;
  }
  auto st = quota_status_from(j["status"].get<std::string>());
  if (!st) {
    e.detail = "probe status \"" + j["status"].get<std::string>() + "\" is not available, exhausted or unknown";
    return e;
  }
  e.state = *st;
  if (j.contains("reset_at") && j["reset_at"].is_string()) {
    auto t = parse_utc_iso(j["reset_at"].get<std::string>());
    if (t) {
      e.has_reset_at = true;
      e.reset_at = *t;
    }
  } else if (j.contains("retry_after_s") && j["retry_after_s"].is_number()) {
    double s = j["retry_after_s"].get<double>();
    if (std::isfinite(s) && s >= 0) {
      e.has_reset_at = true;
      e.reset_at = now + seconds_to_ms(s);
    }
  }
  if (j.contains("detail") && j["detail"].is_string())
    e.detail = j["detail"].get<std::string>();
  return e;
}

probe_snapshot run_quota_probe_batch(const std::vector<planned_probe>& plan,
                                     quota_probe_runner& runner, std::string snapshot_id,
                                     millis now) {
  probe_snapshot snap;
  snap.snapshot_id = std::move(snapshot_id);
  snap.checked_at = now;
  snap.source = "admission_batch";
  for (const auto& p : plan) {
    auto out = runner.run(p.argv);
    for (const auto& id : p.target_ids)
      snap.entries.push_back(parse_quota_probe_output(id, p.argv, out.stdout_text, out.exit_code, now));
  }
  return snap;
}

void target_cooldowns::mark_exhausted(const std::string& target_id, millis now,
                                      std::optional<millis> reset_at, double cooldown_s,
                                      std::string reason) {
  millis until = reset_at && *reset_at > now ? *reset_at
                                             : now + seconds_to_ms(cooldown_s);
  auto& e = entries_[target_id];
  if (until > e.until) {
    e.until = until;
    e.reason = std::move(reason);
  }
}

std::optional<target_cooldowns::entry> target_cooldowns::active(std::string_view target_id,
                                                                millis now) const {
  auto it = entries_.find(target_id);
  if (it == entries_.end() || it->second.until <= now)
    return std::nullopt;
  return it->second;
}

void target_cooldowns::expire(millis now) {
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->second.until <= now ? entries_.erase(it) : std::next(it);
}

void target_cooldowns::apply_snapshot(const probe_snapshot& snap, double cooldown_s) {
  for (const auto& e : snap.entries) {
    if (e.state == quota_status::exhausted)
      mark_exhausted(e.target_id, snap.checked_at,
                     e.has_reset_at ? std::optional<millis>(e.reset_at) : std::nullopt, cooldown_s,
                     "quota probe reported exhausted");
    else if (e.state == quota_status::available)
      clear(e.target_id);
  }
}

json to_json(const target_cooldowns& c) {
  json out = json::object();
  for (const auto& [id, e] : c.entries())
    out[id] = {{"until", format_utc_iso(e.until)}, {"reason", e.reason}};
  return out;
}

result<target_cooldowns> target_cooldowns_from_json(const json& j) {
  if (!j.is_object())
    return status::invalid_argument("target cool-downs: not an object");
  target_cooldowns c;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const json& e = it.value();
    if (!e.is_object() || !e.contains("until") || !e["until"].is_string())
      return status::invalid_argument("target cool-downs: " + it.key() + " has no until");
    auto t = parse_utc_iso(e["until"].get<std::string>());
    if (!t)
      return status::invalid_argument("target cool-downs: " + it.key() + ": " + t.error().message());
    std::string reason = e.contains("reason") && e["reason"].is_string() ? e["reason"].get<std::string>() : "";
    c.mark_exhausted(it.key(), *t - 1, *t, 0, reason);
  }
  return c;
}

} // namespace ad::runtime
