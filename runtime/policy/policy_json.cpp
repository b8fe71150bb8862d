// Validation of the policy document (parse_policy).
#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

#include "runtime/policy/policy.hpp"
#include "runtime/policy/policy_checker.hpp"
#include "runtime/policy/weekdays.hpp"

namespace ad::runtime {

std::string_view to_string(execution_class c) {
  return c == execution_class::local_model ? "local_model" : "cloud_model";
}

std::string_view to_string(violation_action a) {
  return a == violation_action::block ? "block" : "warn";
}

std::string_view to_string(claim_watch_mode m) {
  return m == claim_watch_mode::snapshots ? "snapshots" : "auto";
}

const policy_target* policy::find_target(std::string_view id) const {
  for (const auto& t : targets)
    if (t.id == id)
      return &t;
  return nullptr;
}

const token_prices* policy::find_prices(std::string_view target_id) const {
  auto it = prices.find(std::string(target_id));
  return it == prices.end() ? nullptr : &it->second;
}

usage_format usage_format_of(const policy_target& t) {
  if (t.adapter == "command")
    return t.usage_reader;
  auto kind = parse_adapter_kind(t.adapter);
  return kind ? usage_format_of(*kind) : usage_format::none;
}

namespace {

const std::vector<std::string_view> adapters = {"codex", "claude", "agy", "pi", "command"};

// Patterns are bounded by the pattern check (user_regex_max_chars), whose
// error says so before anything compiles.
constexpr std::size_t pattern_chars = std::numeric_limits<std::size_t>::max();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// "HH:MM", 00:00 to 23:59.
bool parse_hhmm(std::string_view s, int& minutes) {
  if (s.size() != 5 || s[2] != ':' || !is_digit(s[0]) || !is_digit(s[1]) || !is_digit(s[3]) ||
      !is_digit(s[4]))
    return false;
  int hour = (s[0] - '0') * 10 + (s[1] - '0');
  int minute = (s[3] - '0') * 10 + (s[4] - '0');
  if (hour > 23 || minute > 59)
    return false;
  minutes = hour * 60 + minute;
  return true;
}

// An environment variable name: a letter or '_', then letters, digits, '_'.
bool is_env_name(std::string_view s) {
  if (s.empty() || is_digit(s.front()))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_alnum(c) || c == '_'; });
}

// The shape of an IANA zone name: segments of letters, digits, '_', '+'
// and '-' joined by '/' ("Asia/Seoul", "Etc/GMT+9", "UTC").
bool is_zone_name(std::string_view s) {
  bool segment_empty = true;
  for (char c : s) {
    if (c == '/') {
      if (segment_empty)
        return false;
      segment_empty = true;
    } else if (is_alnum(c) || c == '_' || c == '+' || c == '-') {
      segment_empty = false;
    } else {
      return false;
    }
  }
  return !segment_empty;
}

// HOST:PORT, the host a bracketed IPv6 address ("[::1]") or a name or IPv4
// address without ':', '[', ']' or white space; the port 1 to 5 digits.
bool is_node_address(std::string_view s) {
  auto colon = s.rfind(':');
  if (colon == std::string_view::npos)
    return false;
  std::string_view host = s.substr(0, colon), port = s.substr(colon + 1);
  if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), is_digit))
    return false;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    return std::all_of(host.begin() + 1, host.end() - 1, [](char c) {
      return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    });
  return !host.empty() && std::none_of(host.begin(), host.end(), [](char c) {
    return c == ':' || c == '[' || c == ']' || c == ' ' || (c >= '\t' && c <= '\r');
  });
}

void parse_target(policy_checker& c, const json& v, const std::string& p, policy_target& t) {
  if (!c.object(v, p,
                {"id", "adapter", "model", "execution_class", "selfcheck_required",
                 "reasoning_effort", "native_resume", "argv", "quota_probe", "provider", "env",
                 "usage_reader"},
                {"id", "adapter", "model", "execution_class"}))
    return;
  c.string(v["id"], p + "/id", t.id);
  if (c.string(v["adapter"], p + "/adapter", t.adapter) &&
      std::find(adapters.begin(), adapters.end(), t.adapter) == adapters.end())
    c.fail(p + "/adapter", "one of codex, claude, agy, pi, command", &v["adapter"]);
  c.string(v["model"], p + "/model", t.model);
  std::string cls;
  if (c.string(v["execution_class"], p + "/execution_class", cls)) {
    if (cls == "local_model")
      t.exec_class = execution_class::local_model;
    else if (cls == "cloud_model")
      t.exec_class = execution_class::cloud_model;
    else
      c.fail(p + "/execution_class", "local_model or cloud_model", &v["execution_class"]);
  }
  t.selfcheck_required = t.exec_class == execution_class::local_model;
  if (v.contains("selfcheck_required"))
    c.boolean(v["selfcheck_required"], p + "/selfcheck_required", t.selfcheck_required);
  if (v.contains("reasoning_effort"))
    c.string(v["reasoning_effort"], p + "/reasoning_effort", t.reasoning_effort, true);
  if (v.contains("native_resume")) {
    if (c.boolean(v["native_resume"], p + "/native_resume", t.native_resume) && t.native_resume &&
        t.adapter != "pi")
      c.fail(p + "/native_resume", "false (native resume is a pi feature)", &v["native_resume"]);
  }
  if (v.contains("argv")) {
    if (c.strings(v["argv"], p + "/argv", t.argv, false, policy_max_text_chars) && t.adapter != "command")
      c.fail(p + "/argv", "no argv (only the command adapter takes an argument template)",
             &v["argv"]);
  } else if (t.adapter == "command") {
    c.fail(p + "/argv", "an argument template (required for the command adapter)", nullptr);
  }
  if (v.contains("quota_probe"))
    c.strings(v["quota_probe"], p + "/quota_probe", t.quota_probe, false, policy_max_text_chars);
  if (v.contains("provider")) {
    if (c.string(v["provider"], p + "/provider", t.provider) && t.adapter != "pi")
      c.fail(p + "/provider", "no provider (only pi takes --provider)", &v["provider"]);
  }
  if (v.contains("usage_reader")) {
    std::string name;
    if (c.string(v["usage_reader"], p + "/usage_reader", name)) {
      auto format = parse_usage_format(name);
      if (t.adapter != "command")
        c.fail(p + "/usage_reader",
               "no usage_reader (codex, claude and pi targets read their own CLI's usage; only a "
               "command target names one)",
               &v["usage_reader"]);
      else if (!format)
        c.fail(p + "/usage_reader",
               "codex, claude or pi (the CLI format the command prints its usage in)",
               &v["usage_reader"]);
      else
        t.usage_reader = *format;
    }
  }
  if (v.contains("env")) {
    const json& env = v["env"];
    if (!env.is_object()) {
      c.fail(p + "/env", "an object of environment variable names to string values", &env);
    } else {
      for (auto it = env.begin(); it != env.end(); ++it) {
        std::string ptr = p + "/env/" + escape_pointer_token(it.key());
        if (!c.short_enough(it.key(), ptr))
          continue;
        if (!is_env_name(it.key())) {
          c.fail(ptr, "an environment variable name (letters, digits, _)", nullptr);
          continue;
        }
        std::string value;
        if (c.string(it.value(), ptr, value, true, policy_max_text_chars))
          t.env[it.key()] = value;
      }
    }
  }
}

void parse_window(policy_checker& c, const json& v, const std::string& p, time_window& w) {
  if (!c.object(v, p, {"days", "start", "end"}, {"start", "end"}))
    return;
  std::string start, end;
  if (c.string(v["start"], p + "/start", start) && !parse_hhmm(start, w.start_minute))
    c.fail(p + "/start", "a local time \"HH:MM\"", &v["start"]);
  if (c.string(v["end"], p + "/end", end) && !parse_hhmm(end, w.end_minute))
    c.fail(p + "/end", "a local time \"HH:MM\"", &v["end"]);
  std::string days_text;
  if (v.contains("days")) {
    std::vector<std::string> days;
    if (c.strings(v["days"], p + "/days", days, false)) {
      for (size_t i = 0; i < days.size(); ++i) {
        auto it = std::find(weekday_names.begin(), weekday_names.end(), days[i]);
        if (it == weekday_names.end())
          c.fail(p + "/days/" + std::to_string(i), "a day name sun, mon, tue, wed, thu, fri or sat",
                 &v["days"][i]);
        else
          w.weekdays.push_back(static_cast<int>(it - weekday_names.begin()));
      }
      for (const auto& d : days)
        days_text += (days_text.empty() ? "" : ",") + d;
    }
  }
  w.text = (days_text.empty() ? "" : days_text + " ") + start + "-" + end;
  if (start == end && !start.empty())
    c.fail(p + "/end", "a time different from start", &v["end"]);
}

void parse_rule(policy_checker& c, const json& v, const std::string& p, policy_rule& r) {
  if (!c.object(v, p, {"id", "priority", "stage", "lanes", "grades", "time_window", "candidates"},
                {"id", "stage", "lanes", "grades", "candidates"}))
    return;
  c.string(v["id"], p + "/id", r.id);
  if (v.contains("priority"))
    c.integer(v["priority"], p + "/priority", r.priority, -1000000, 1000000);
  if (c.string(v["stage"], p + "/stage", r.stage) && r.stage != "worker" && r.stage != "selfcheck")
    c.fail(p + "/stage", "worker or selfcheck (reviews always run on review_target)", &v["stage"]);
  if (c.strings(v["lanes"], p + "/lanes", r.lanes, false))
    for (size_t i = 0; i < r.lanes.size(); ++i)
      if (r.lanes[i] != "local" && r.lanes[i] != "cloud")
        c.fail(p + "/lanes/" + std::to_string(i), "local or cloud", &v["lanes"][i]);
  const json& g = v["grades"];
  if (!g.is_array() || g.size() != 2) {
    c.fail(p + "/grades", "a grade range [min, max] within 1..10", &g);
  } else if (c.integer(g[0], p + "/grades/0", r.grade_min, 1, 10) &&
             c.integer(g[1], p + "/grades/1", r.grade_max, 1, 10) && r.grade_min > r.grade_max) {
    c.fail(p + "/grades", "min <= max", &g);
  }
  if (v.contains("time_window")) {
    time_window w;
    parse_window(c, v["time_window"], p + "/time_window", w);
    r.window = w;
  }
  c.strings(v["candidates"], p + "/candidates", r.candidates, false);
}

void parse_budgets(policy_checker& c, const json& v, const std::string& p, policy_budgets& b) {
  if (!c.object(v, p, {"recovery_failures", "selfcheck_incomplete", "review_no_progress", "reset_waits"},
                {}))
    return;
  if (v.contains("recovery_failures"))
    c.integer(v["recovery_failures"], p + "/recovery_failures", b.recovery_failures, 1, 1000);
  if (v.contains("selfcheck_incomplete"))
    c.integer(v["selfcheck_incomplete"], p + "/selfcheck_incomplete", b.selfcheck_incomplete, 1, 1000);
  if (v.contains("review_no_progress"))
    c.integer(v["review_no_progress"], p + "/review_no_progress", b.review_no_progress, 1, 1000);
  if (v.contains("reset_waits"))
    c.integer(v["reset_waits"], p + "/reset_waits", b.reset_waits, 0, 1000);
}

void parse_backoff(policy_checker& c, const json& v, const std::string& p, policy_backoff& b) {
  if (!c.object(v, p, {"initial_s", "coefficient", "max_s"}, {}))
    return;
  if (v.contains("initial_s"))
    c.number(v["initial_s"], p + "/initial_s", b.initial_s, 0, "a number of seconds >= 0");
  if (v.contains("coefficient"))
    c.number(v["coefficient"], p + "/coefficient", b.coefficient, 1, "a number >= 1");
  if (v.contains("max_s"))
    c.number(v["max_s"], p + "/max_s", b.max_s, 0, "a number of seconds >= 0");
}

void parse_no_progress(policy_checker& c, const json& v, const std::string& p, policy_no_progress& n) {
  if (!c.object(v, p, {"network_wait_s", "retrying_s", "cli_max_retries"}, {}))
    return;
  if (v.contains("network_wait_s"))
    c.number(v["network_wait_s"], p + "/network_wait_s", n.network_wait_s, 0,
             "a number of seconds >= 0");
  if (v.contains("retrying_s"))
    c.number(v["retrying_s"], p + "/retrying_s", n.retrying_s, 0, "a number of seconds >= 0");
  if (v.contains("cli_max_retries"))
    c.integer(v["cli_max_retries"], p + "/cli_max_retries", n.cli_max_retries, 0, 100);
}

void parse_claims(policy_checker& c, const json& v, const std::string& p, policy_claims& out) {
  if (!c.object(v, p, {"on_violation", "watch"}, {}))
    return;
  std::string text;
  if (v.contains("on_violation") && c.string(v["on_violation"], p + "/on_violation", text)) {
    if (text == "warn")
      out.on_violation = violation_action::warn;
    else if (text == "block")
      out.on_violation = violation_action::block;
    else
      c.fail(p + "/on_violation", "warn or block", &v["on_violation"]);
  }
  if (v.contains("watch") && c.string(v["watch"], p + "/watch", text)) {
    if (text == "auto")
      out.watch = claim_watch_mode::automatic;
    else if (text == "snapshots")
      out.watch = claim_watch_mode::snapshots;
    else
      c.fail(p + "/watch", "auto or snapshots", &v["watch"]);
  }
}

void parse_processes(policy_checker& c, const json& v, const std::string& p, policy_processes& out) {
  if (!c.object(v, p, {"keep_alive"}, {}))
    return;
  if (v.contains("keep_alive") && c.strings(v["keep_alive"], p + "/keep_alive", out.keep_alive, true))
    for (std::size_t i = 0; i < out.keep_alive.size(); ++i)
      if (out.keep_alive[i].find('/') != std::string::npos)
        c.fail(p + "/keep_alive/" + std::to_string(i),
               "a process name (the name ps shows, or argv[0]'s file name), without '/'",
               &v["keep_alive"][i]);
}

void parse_timeouts(policy_checker& c, const json& v, const std::string& p, policy_timeouts& t) {
  if (!c.object(v, p, {"heartbeat_s", "silence_inspection_s", "stall_limit_s", "reset_wait_max_s",
                       "quota_cooldown_s"},
                {}))
    return;
  auto num = [&](const char* key, double& out) {
    if (v.contains(key))
      c.number(v[key], p + "/" + key, out, 0, "a number of seconds >= 0");
  };
  num("heartbeat_s", t.heartbeat_s);
  num("silence_inspection_s", t.silence_inspection_s);
  num("stall_limit_s", t.stall_limit_s);
  num("reset_wait_max_s", t.reset_wait_max_s);
  num("quota_cooldown_s", t.quota_cooldown_s);
}

void parse_prompts(policy_checker& c, const json& v, const std::string& p, policy_prompts& out) {
  if (!c.object(v, p, {"worker", "selfcheck", "review", "continuation", "review_continuation",
                       "context_package", "native_resume", "intervention"},
                {"worker", "selfcheck", "review", "continuation", "review_continuation",
                 "context_package", "native_resume", "intervention"}))
    return;
  auto text = [&](const char* key, std::string& out_text) {
    c.string(v[key], p + "/" + key, out_text, false, policy_max_text_chars);
  };
  text("worker", out.worker);
  text("selfcheck", out.selfcheck);
  text("review", out.review);
  text("continuation", out.continuation);
  text("review_continuation", out.review_continuation);
  text("context_package", out.context_package);
  text("native_resume", out.native_resume);
  text("intervention", out.intervention);
}

void check_references(policy_checker& c, const json& doc, const policy& pol) {
  std::set<std::string> ids;
  for (size_t i = 0; i < pol.targets.size(); ++i)
    if (!pol.targets[i].id.empty() && !ids.insert(pol.targets[i].id).second)
      c.fail("/targets/" + std::to_string(i) + "/id", "a unique target id",
             &doc["targets"][i]["id"]);
  auto known = [&](const std::string& id) { return ids.count(id) != 0; };
  std::set<std::string> rule_ids;
  for (size_t i = 0; i < pol.rules.size(); ++i) {
    const auto& r = pol.rules[i];
    std::string p = "/rules/" + std::to_string(i);
    if (!r.id.empty() && !rule_ids.insert(r.id).second)
      c.fail(p + "/id", "a unique rule id", &doc["rules"][i]["id"]);
    std::set<std::string> seen;
    for (size_t k = 0; k < r.candidates.size(); ++k) {
      const json* found = &doc["rules"][i]["candidates"][k];
      if (!known(r.candidates[k]))
        c.fail(p + "/candidates/" + std::to_string(k), "the id of a target in /targets", found);
      else if (!seen.insert(r.candidates[k]).second)
        c.fail(p + "/candidates/" + std::to_string(k), "each candidate once", found);
    }
  }
  for (const auto& [from, to] : pol.promotion) {
    std::string p = "/promotion/" + escape_pointer_token(from);
    json key = from;
    if (!known(from))
      c.fail_text(p, "a key naming a target in /targets", "key " + dump_json(key));
    if (!known(to))
      c.fail(p, "the id of a target in /targets", &doc["promotion"][from]);
  }
  // The chain must end: follow every start and stop at a repeat.
  for (const auto& [from, to] : pol.promotion) {
    std::set<std::string> visited{from};
    std::string cur = to;
    while (pol.promotion.count(cur)) {
      if (!visited.insert(cur).second) {
        c.fail("/promotion/" + escape_pointer_token(from), "a promotion chain without a cycle",
               &doc["promotion"][from]);
        break;
      }
      cur = pol.promotion.at(cur);
    }
  }
  if (!pol.review_target.empty() && !known(pol.review_target))
    c.fail("/review_target", "the id of a target in /targets", &doc["review_target"]);
  for (const auto& [id, prices] : pol.prices)
    if (!known(id)) {
      json key = id;
      c.fail_text("/prices/" + escape_pointer_token(id), "a key naming a target in /targets",
                  "key " + dump_json(key));
    }
}

} // namespace

result<policy> parse_policy(const json& doc, std::string_view source) {
  policy_checker c(source);
  policy pol;
  if (!c.object(doc, "",
                {"version", "timezone", "targets", "rules", "promotion", "review_target", "budgets",
                 "backoff", "timeouts", "no_progress", "claims", "processes", "failure_patterns",
                 "tactical_patterns", "prompts", "nodes", "prices", "limits", "notify"},
                {"version", "timezone", "targets", "rules", "promotion", "review_target", "budgets",
                 "backoff", "timeouts", "failure_patterns", "tactical_patterns", "prompts"}))
    return c.result();
  if (c.integer(doc["version"], "/version", pol.version, 1, 1000) && pol.version != 1)
    c.fail("/version", "1 (the only policy format version)", &doc["version"]);
  if (c.string(doc["timezone"], "/timezone", pol.timezone)) {
    // Resolved against the tz database by the caller; only the shape here.
    if (!is_zone_name(pol.timezone))
      c.fail("/timezone", "an IANA time zone name such as \"Asia/Seoul\"", &doc["timezone"]);
  }
  const json& targets = doc["targets"];
  if (!targets.is_array() || targets.empty()) {
    c.fail("/targets", "a non-empty array of targets", &targets);
  } else {
    for (size_t i = 0; i < targets.size(); ++i) {
      policy_target t;
      parse_target(c, targets[i], "/targets/" + std::to_string(i), t);
      pol.targets.push_back(std::move(t));
    }
  }
  const json& rules = doc["rules"];
  if (!rules.is_array()) {
    c.fail("/rules", "an array of rules", &rules);
  } else {
    for (size_t i = 0; i < rules.size(); ++i) {
      policy_rule r;
      parse_rule(c, rules[i], "/rules/" + std::to_string(i), r);
      pol.rules.push_back(std::move(r));
    }
  }
  const json& promo = doc["promotion"];
  if (!promo.is_object()) {
    c.fail("/promotion", "an object mapping target id to next target id", &promo);
  } else {
    for (auto it = promo.begin(); it != promo.end(); ++it) {
      std::string to;
      std::string ptr = "/promotion/" + escape_pointer_token(it.key());
      if (c.short_enough(it.key(), ptr) && c.string(it.value(), ptr, to))
        pol.promotion[it.key()] = to;
    }
  }
  c.string(doc["review_target"], "/review_target", pol.review_target);
  parse_budgets(c, doc["budgets"], "/budgets", pol.budgets);
  parse_backoff(c, doc["backoff"], "/backoff", pol.backoff);
  parse_timeouts(c, doc["timeouts"], "/timeouts", pol.timeouts);
  // Optional: documents written before it (message traces) keep the defaults.
  if (doc.contains("no_progress"))
    parse_no_progress(c, doc["no_progress"], "/no_progress", pol.no_progress);
  if (doc.contains("claims"))
    parse_claims(c, doc["claims"], "/claims", pol.claims);
  if (doc.contains("processes"))
    parse_processes(c, doc["processes"], "/processes", pol.processes);
  if (doc.contains("nodes") && c.strings(doc["nodes"], "/nodes", pol.nodes, true)) {
    // The shape only; `run` parses each address when it connects.
    for (std::size_t i = 0; i < pol.nodes.size(); ++i)
      if (!is_node_address(pol.nodes[i]))
        c.fail("/nodes/" + std::to_string(i), "a node address HOST:PORT such as \"10.0.0.7:7300\"",
               &doc["nodes"][i]);
  }
  if (doc.contains("prices"))
    parse_prices(c, doc["prices"], pol.prices);
  if (doc.contains("limits"))
    parse_limits(c, doc["limits"], pol.limits);
  if (doc.contains("notify"))
    parse_notify(c, doc["notify"], pol.notify);
  const json& fps = doc["failure_patterns"];
  if (!fps.is_array()) {
    c.fail("/failure_patterns", "an array of {failure_class, regexes}", &fps);
  } else {
    for (size_t i = 0; i < fps.size(); ++i) {
      std::string p = "/failure_patterns/" + std::to_string(i);
      failure_pattern fp;
      if (!c.object(fps[i], p, {"failure_class", "regexes"}, {"failure_class", "regexes"}))
        continue;
      c.string(fps[i]["failure_class"], p + "/failure_class", fp.failure_class);
      if (c.strings(fps[i]["regexes"], p + "/regexes", fp.regexes, false, pattern_chars))
        c.regexes(fp.regexes, p + "/regexes");
      pol.failure_patterns.push_back(std::move(fp));
    }
  }
  const json& tps = doc["tactical_patterns"];
  if (!tps.is_array()) {
    c.fail("/tactical_patterns", "an array of {id, regexes, instruction}", &tps);
  } else {
    std::set<std::string> ids;
    for (size_t i = 0; i < tps.size(); ++i) {
      std::string p = "/tactical_patterns/" + std::to_string(i);
      tactical_pattern tp;
      if (!c.object(tps[i], p, {"id", "regexes", "instruction"}, {"id", "regexes", "instruction"}))
        continue;
      if (c.string(tps[i]["id"], p + "/id", tp.id) && !ids.insert(tp.id).second)
        c.fail(p + "/id", "a unique tactical pattern id", &tps[i]["id"]);
      if (c.strings(tps[i]["regexes"], p + "/regexes", tp.regexes, false, pattern_chars))
        c.regexes(tp.regexes, p + "/regexes");
      c.string(tps[i]["instruction"], p + "/instruction", tp.instruction, false,
               policy_max_text_chars);
      pol.tactical_patterns.push_back(std::move(tp));
    }
  }
  parse_prompts(c, doc["prompts"], "/prompts", pol.prompts);
  if (c.result().is_ok())
    check_references(c, doc, pol);
  if (auto st = c.result(); !st)
    return st;
  return pol;
}

} // namespace ad::runtime
