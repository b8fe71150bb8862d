// The policy document's mapping back to JSON, the merge rule and loading
// from a file or the workspace.
#include <cstdio>

#include "runtime/core/files.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/weekdays.hpp"

namespace ad::runtime {

json policy_to_json(const policy& p) {
  json targets = json::array();
  for (const auto& t : p.targets) {
    json j = {{"id", t.id},
              {"adapter", t.adapter},
              {"model", t.model},
              {"execution_class", std::string(to_string(t.exec_class))},
              {"selfcheck_required", t.selfcheck_required},
              {"reasoning_effort", t.reasoning_effort},
              {"native_resume", t.native_resume}};
    if (!t.argv.empty())
      j["argv"] = t.argv;
    if (!t.quota_probe.empty())
      j["quota_probe"] = t.quota_probe;
    if (!t.provider.empty())
      j["provider"] = t.provider;
    if (!t.env.empty())
      j["env"] = t.env;
    if (t.usage_reader != usage_format::none)
      j["usage_reader"] = std::string(to_string(t.usage_reader));
    targets.push_back(std::move(j));
  }
  json rules = json::array();
  for (const auto& r : p.rules) {
    json j = {{"id", r.id},
              {"priority", r.priority},
              {"stage", r.stage},
              {"lanes", r.lanes},
              {"grades", {r.grade_min, r.grade_max}},
              {"candidates", r.candidates}};
    if (r.window) {
      auto hhmm = [](int m) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%02d:%02d", m / 60, m % 60);
        return std::string(buf);
      };
      json w = {{"start", hhmm(r.window->start_minute)}, {"end", hhmm(r.window->end_minute)}};
      if (!r.window->weekdays.empty()) {
        json days = json::array();
        for (int d : r.window->weekdays)
          days.push_back(std::string(weekday_names[static_cast<size_t>(d)]));
        w["days"] = days;
      }
      j["time_window"] = w;
    }
    rules.push_back(std::move(j));
  }
  json fps = json::array();
  for (const auto& f : p.failure_patterns)
    fps.push_back({{"failure_class", f.failure_class}, {"regexes", f.regexes}});
  json tps = json::array();
  for (const auto& t : p.tactical_patterns)
    tps.push_back({{"id", t.id}, {"regexes", t.regexes}, {"instruction", t.instruction}});
  json doc = {
    {"version", p.version},
    {"timezone", p.timezone},
    {"targets", targets},
    {"rules", rules},
    {"promotion", p.promotion},
    {"review_target", p.review_target},
    {"budgets",
     {{"recovery_failures", p.budgets.recovery_failures},
      {"selfcheck_incomplete", p.budgets.selfcheck_incomplete},
      {"review_no_progress", p.budgets.review_no_progress},
      {"reset_waits", p.budgets.reset_waits}}},
    {"backoff",
     {{"initial_s", p.backoff.initial_s},
      {"coefficient", p.backoff.coefficient},
      {"max_s", p.backoff.max_s}}},
    {"timeouts",
     {{"heartbeat_s", p.timeouts.heartbeat_s},
      {"silence_inspection_s", p.timeouts.silence_inspection_s},
      {"stall_limit_s", p.timeouts.stall_limit_s},
      {"reset_wait_max_s", p.timeouts.reset_wait_max_s},
      {"quota_cooldown_s", p.timeouts.quota_cooldown_s}}},
    {"no_progress",
     {{"network_wait_s", p.no_progress.network_wait_s},
      {"retrying_s", p.no_progress.retrying_s},
      {"cli_max_retries", p.no_progress.cli_max_retries}}},
    {"claims",
     {{"on_violation", std::string(to_string(p.claims.on_violation))},
      {"watch", std::string(to_string(p.claims.watch))}}},
    {"failure_patterns", fps},
    {"tactical_patterns", tps},
    {"prompts",
     {{"worker", p.prompts.worker},
      {"selfcheck", p.prompts.selfcheck},
      {"review", p.prompts.review},
      {"continuation", p.prompts.continuation},
      {"review_continuation", p.prompts.review_continuation},
      {"context_package", p.prompts.context_package},
      {"native_resume", p.prompts.native_resume},
      {"intervention", p.prompts.intervention}}},
  };
  // Only when set, so documents without them (message traces) read as before.
  if (!p.nodes.empty())
    doc["nodes"] = p.nodes;
  if (!p.processes.keep_alive.empty())
    doc["processes"] = json{{"keep_alive", p.processes.keep_alive}};
  if (!p.prices.empty())
    doc["prices"] = prices_to_json(p.prices);
  if (!p.limits.empty())
    doc["limits"] = limits_to_json(p.limits);
  if (!p.notify.empty())
    doc["notify"] = notify_to_json(p.notify);
  return doc;
}

json merge_policy_json(const json& base, const json& overlay) {
  json out = base;
  if (!overlay.is_object())
    return overlay; // parse_policy reports the wrong type
  for (auto it = overlay.begin(); it != overlay.end(); ++it)
    out[it.key()] = it.value();
  return out;
}

result<loaded_policy> parse_policy_text(std::string_view text, std::string_view source) {
  auto doc = parse_json(text, source);
  if (!doc)
    return doc.error();
  json merged = merge_policy_json(default_policy_json(), *doc);
  auto pol = parse_policy(merged, source);
  if (!pol)
    return pol.error();
  return loaded_policy{std::move(*pol), std::move(merged), std::string(source)};
}

result<loaded_policy> load_policy(const std::optional<std::filesystem::path>& explicit_file,
                                  const std::filesystem::path& workspace) {
  std::filesystem::path file;
  if (explicit_file) {
    file = *explicit_file;
  } else {
    file = workspace / "agent-dispatch.json";
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      auto pol = parse_policy(default_policy_json(), "embedded default policy");
      if (!pol)
        return pol.error();
      return loaded_policy{std::move(*pol), default_policy_json(), "embedded default policy"};
    }
  }
  auto text = read_file(file, 4u << 20);
  if (!text)
    return text.error().is_not_found()
             ? status::not_found("policy file " + file.string() + " does not exist")
             : text.error();
  return parse_policy_text(*text, file.string());
}

} // namespace ad::runtime
