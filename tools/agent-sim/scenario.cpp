#include "tools/agent-sim/scenario.hpp"

#include <csignal>
#include <cstring>
#include <set>

#include "runtime/core/clock.hpp"
#include "runtime/core/files.hpp"

namespace ad::agent_sim {

namespace {

using runtime::json;
using runtime::result;
using runtime::status;
using pointer = json::json_pointer;

struct named_kind {
  std::string_view name;
  action_kind kind;
};
constexpr named_kind action_names[] = {
  {"work", action_kind::work},       {"selfcheck", action_kind::selfcheck},
  {"review", action_kind::review},   {"events", action_kind::events},
  {"silence", action_kind::silence}, {"hang", action_kind::hang},
  {"fail", action_kind::fail},       {"spawn_child", action_kind::spawn_child},
  {"exit", action_kind::exit},       {"write", action_kind::write},
  {"collab_tool", action_kind::collab_tool}, {"retried", action_kind::retried},
  {"wait_file", action_kind::wait_file},
  {"usage", action_kind::usage},
};

// The fields of a usage record (runtime/core/token_usage.hpp).
const std::set<std::string> usage_keys{"input_tokens",       "output_tokens",    "cache_read_tokens",
                                       "cache_write_tokens", "reasoning_tokens", "cost_usd"};

struct named_failure {
  std::string_view name;
  failure_kind kind;
};
constexpr named_failure failure_names[] = {
  {"rate_limit", failure_kind::rate_limit},
  {"resource_exhausted", failure_kind::resource_exhausted},
  {"quota_exceeded", failure_kind::quota_exceeded},
  {"context_length", failure_kind::context_length},
  {"model_overloaded", failure_kind::model_overloaded},
  {"model_unavailable", failure_kind::model_unavailable},
  {"connection_refused", failure_kind::connection_refused},
  {"stream_disconnected", failure_kind::stream_disconnected},
  {"file_exists", failure_kind::file_exists},
  {"file_not_found", failure_kind::file_not_found},
  {"error", failure_kind::error},
  {"usage_limit", failure_kind::usage_limit},
  {"root_refusal", failure_kind::root_refusal},
};

struct named_signal {
  std::string_view name;
  int number;
};
constexpr named_signal signal_names[] = {
  {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
  {"KILL", SIGKILL}, {"SEGV", SIGSEGV}, {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},
  {"TERM", SIGTERM}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
};

status bad(const pointer& where, std::string_view what) {
  return status::invalid_argument((where.empty() ? std::string("(document)") : where.to_string()) + ": " +
                                  std::string(what));
}

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Refuses keys outside `allowed`, naming the first unknown one.
status only_keys(const json& obj, const pointer& where, const std::set<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (!allowed.count(it.key())) return bad(where / it.key(), "unknown key " + in_quotes(it.key()));
  }
  return status::ok();
}

status read_int(const json& obj, const pointer& where, const char* key, int lo, int hi, int& out) {
  if (!obj.contains(key)) return status::ok();
  const json& v = obj.at(key);
  if (!v.is_number_integer()) return bad(where / key, "expected an integer");
  auto n = v.get<long long>();
  if (n < lo || n > hi)
    return bad(where / key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  out = static_cast<int>(n);
  return status::ok();
}

status read_string(const json& obj, const pointer& where, const char* key, std::string& out) {
  if (!obj.contains(key)) return status::ok();
  if (!obj.at(key).is_string()) return bad(where / key, "expected a string");
  out = obj.at(key).get<std::string>();
  return status::ok();
}

status read_optional_int(const json& obj, const pointer& where, const char* key, int lo, int hi,
                         std::optional<int>& out) {
  if (!obj.contains(key)) return status::ok();
  int n = 0;
  if (auto st = read_int(obj, where, key, lo, hi, n); !st) return st;
  out = n;
  return status::ok();
}

// The failure named by "failure" (default "error") and its "variant".
status read_failure(const json& doc, const pointer& where, action& a) {
  std::string fname = "error";
  if (auto st = read_string(doc, where, "failure", fname); !st) return st;
  auto fk = failure_kind_from(fname);
  if (!fk) return bad(where / "failure", "unknown failure " + in_quotes(fname));
  a.failure = *fk;
  if (auto st = read_string(doc, where, "variant", a.variant); !st) return st;
  if (a.variant.empty()) return status::ok();
  std::string known;
  for (auto v : failure_variants(a.failure)) {
    if (v == a.variant) return status::ok();
    known += (known.empty() ? "" : ", ") + in_quotes(v);
  }
  return bad(where / "variant", "unknown variant " + in_quotes(a.variant) + " of failure " + in_quotes(fname) +
                                    (known.empty() ? " (it has none)" : " (expected " + known + ")"));
}

// At most 1,000,000 s (11.6 days): longer than any test waits, and short
// enough that every conversion of it to an integer fits.
status read_seconds(const json& obj, const pointer& where, const char* key, double& out) {
  if (!obj.contains(key)) return status::ok();
  const json& v = obj.at(key);
  if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1e6))
    return bad(where / key, "expected seconds in 0..1000000");
  out = v.get<double>();
  return status::ok();
}

status read_signal(const json& obj, const pointer& where, int& out) {
  if (!obj.contains("signal")) return status::ok();
  const json& v = obj.at("signal");
  std::string text = v.is_string() ? v.get<std::string>()
                     : v.is_number_integer() ? std::to_string(v.get<long long>()) : "";
  auto sig = signal_from(text);
  if (!sig) return bad(where / "signal", "unknown signal " + in_quotes(text));
  out = *sig;
  return status::ok();
}

// The usage fields of obj (the others are the caller's to check).
status read_usage(const json& obj, const pointer& where, runtime::token_usage& out) {
  json fields = json::object();
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (usage_keys.count(it.key())) fields[it.key()] = it.value();
  auto u = runtime::usage_from_json(fields);
  if (!u) {
    // "usage: "cost_usd" is -1, ...": name the key by its pointer.
    std::string msg = u.error().message();
    for (const auto& key : usage_keys)
      if (msg.rfind("usage: \"" + key + "\" ", 0) == 0)
        return bad(where / key, msg.substr(key.size() + 10));
    return bad(where, msg);
  }
  out = *u;
  return status::ok();
}

result<action> parse_action(const json& doc, const pointer& where) {
  if (!doc.is_object()) return bad(where, "expected an object with a \"kind\"");
  if (!doc.contains("kind") || !doc.at("kind").is_string())
    return bad(where / "kind", "missing or not a string");
  std::string name = doc.at("kind").get<std::string>();
  action a;
  bool known = false;
  for (const auto& n : action_names) {
    if (n.name == name) {
      a.kind = n.kind;
      known = true;
    }
  }
  if (!known) return bad(where / "kind", "unknown action " + in_quotes(name));

  std::set<std::string> keys{"kind"};
  status st;
  switch (a.kind) {
    case action_kind::work: {
      keys.insert({"checklist", "mode"});
      std::string fill = "all", mode = "append";
      if (!(st = read_string(doc, where, "checklist", fill))) return st;
      if (!(st = read_string(doc, where, "mode", mode))) return st;
      if (fill == "all") a.checklist = checklist_fill::all;
      else if (fill == "first") a.checklist = checklist_fill::first;
      else if (fill == "none") a.checklist = checklist_fill::none;
      else return bad(where / "checklist", "expected \"all\", \"first\" or \"none\"");
      if (mode == "append") a.mode = write_mode::append;
      else if (mode == "touch") a.mode = write_mode::touch;
      else return bad(where / "mode", "expected \"append\" or \"touch\"");
      break;
    }
    case action_kind::selfcheck:
      break;
    case action_kind::review:
      keys.insert({"verdict", "follow_up"});
      if (!(st = read_string(doc, where, "verdict", a.verdict))) return st;
      if (a.verdict != "PASS" && a.verdict != "WARN" && a.verdict != "FAIL")
        return bad(where / "verdict", "expected \"PASS\", \"WARN\" or \"FAIL\"");
      if (doc.contains("follow_up")) {
        if (!doc.at("follow_up").is_boolean())
          return bad(where / "follow_up", "expected true or false");
        a.follow_up = doc.at("follow_up").get<bool>() ? review_follow_up::next_generation
                                                      : review_follow_up::stop;
      }
      break;
    case action_kind::events:
      keys.insert({"count", "interval_seconds"});
      if (!(st = read_int(doc, where, "count", 0, 100000, a.count))) return st;
      if (!(st = read_seconds(doc, where, "interval_seconds", a.seconds))) return st;
      break;
    case action_kind::silence:
      keys.insert("seconds");
      if (!doc.contains("seconds")) return bad(where / "seconds", "missing");
      if (!(st = read_seconds(doc, where, "seconds", a.seconds))) return st;
      break;
    case action_kind::hang: {
      keys.insert("in");
      std::string place = "idle";
      if (!(st = read_string(doc, where, "in", place))) return st;
      if (place == "idle") a.place = hang_place::idle;
      else if (place == "tool_call") a.place = hang_place::tool_call;
      else return bad(where / "in", "expected \"idle\" or \"tool_call\"");
      break;
    }
    case action_kind::fail: {
      keys.insert({"failure", "variant", "message", "path", "retry_after_seconds", "resets_at",
                   "exit_code", "signal"});
      if (!(st = read_failure(doc, where, a))) return st;
      if (!(st = read_string(doc, where, "message", a.message))) return st;
      if (!(st = read_string(doc, where, "path", a.path))) return st;
      if (!(st = read_string(doc, where, "resets_at", a.resets_at))) return st;
      if (!a.resets_at.empty() && !runtime::parse_utc_iso(a.resets_at))
        return bad(where / "resets_at", "expected an ISO-8601 time");
      if (!(st = read_optional_int(doc, where, "retry_after_seconds", 0, 86400 * 30, a.retry_after_seconds)))
        return st;
      if (!(st = read_optional_int(doc, where, "exit_code", 0, 255, a.exit_code))) return st;
      if (!(st = read_signal(doc, where, a.signal))) return st;
      if ((a.failure == failure_kind::file_exists || a.failure == failure_kind::file_not_found) &&
          a.path.empty() && a.message.empty())
        return bad(where / "path", "required for failure " + in_quotes(to_string(a.failure)));
      break;
    }
    case action_kind::retried: {
      keys.insert({"failure", "variant", "times", "message", "retry_after_seconds"});
      if (!(st = read_failure(doc, where, a))) return st;
      if (!doc.contains("failure")) return bad(where / "failure", "missing");
      bool retryable = a.failure == failure_kind::rate_limit || a.failure == failure_kind::resource_exhausted ||
                       a.failure == failure_kind::model_overloaded ||
                       a.failure == failure_kind::connection_refused ||
                       a.failure == failure_kind::stream_disconnected;
      if (!retryable)
        return bad(where / "failure", "the CLIs do not retry " + in_quotes(to_string(a.failure)) +
                                          " (rate_limit, resource_exhausted, model_overloaded, "
                                          "connection_refused or stream_disconnected)");
      if (!(st = read_int(doc, where, "times", 1, 10, a.count))) return st;
      if (!(st = read_string(doc, where, "message", a.message))) return st;
      if (!(st = read_optional_int(doc, where, "retry_after_seconds", 0, 3600, a.retry_after_seconds)))
        return st;
      break;
    }
    case action_kind::wait_file:
      keys.insert({"path", "seconds"});
      if (!(st = read_string(doc, where, "path", a.path))) return st;
      if (a.path.empty()) return bad(where / "path", "missing");
      if (!(st = read_seconds(doc, where, "seconds", a.seconds))) return st;
      break;
    case action_kind::spawn_child:
      keys.insert("seconds");
      a.seconds = 3600;
      if (!(st = read_seconds(doc, where, "seconds", a.seconds))) return st;
      break;
    case action_kind::exit:
      keys.insert({"code", "signal"});
      if (!(st = read_optional_int(doc, where, "code", 0, 255, a.exit_code))) return st;
      if (!(st = read_signal(doc, where, a.signal))) return st;
      break;
    case action_kind::collab_tool:
      keys.insert("tool");
      if (!(st = read_string(doc, where, "tool", a.tool))) return st;
      if (a.tool.empty()) return bad(where / "tool", "must not be empty");
      break;
    case action_kind::usage:
      keys.insert(usage_keys.begin(), usage_keys.end());
      if (!(st = read_usage(doc, where, a.usage))) return st;
      break;
    case action_kind::write:
      keys.insert({"path", "content"});
      if (!doc.contains("path")) return bad(where / "path", "missing");
      if (!(st = read_string(doc, where, "path", a.path))) return st;
      if (!(st = read_string(doc, where, "content", a.content))) return st;
      break;
  }
  if (!(st = only_keys(doc, where, keys))) return st;
  return a;
}

result<action_list> parse_action_list(const json& doc, const pointer& where) {
  // Either {"actions": [...]} or the bare array.
  const json* arr = &doc;
  pointer at = where;
  if (doc.is_object()) {
    if (auto st = only_keys(doc, where, {"actions"}); !st) return st;
    if (!doc.contains("actions")) return bad(where / "actions", "missing");
    arr = &doc.at("actions");
    at = where / "actions";
  }
  if (!arr->is_array()) return bad(at, "expected an array of actions");
  action_list out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    auto a = parse_action(arr->at(i), at / i);
    if (!a) return a.error();
    // A refusal happens at launch, before the CLI prints anything.
    if (i > 0 && a->kind == action_kind::fail && a->failure == failure_kind::root_refusal)
      return bad(at / i / "failure", "\"root_refusal\" must be the first action");
    out.push_back(std::move(*a));
  }
  return out;
}

bool known_role(std::string_view r) {
  return r == "worker" || r == "selfcheck" || r == "review";
}

result<role_script> parse_role(const json& doc, const pointer& where) {
  if (!doc.is_object()) return bad(where, "expected an object keyed by attempt number or \"default\"");
  role_script out;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& key = it.key();
    auto list = parse_action_list(it.value(), where / key);
    if (!list) return list.error();
    if (key == "default") {
      out.fallback = std::move(*list);
      continue;
    }
    int n = 0;
    bool digits = !key.empty() && key.size() < 7;
    for (char c : key) digits = digits && c >= '0' && c <= '9';
    if (digits) n = std::stoi(key);
    if (!digits || n < 1) return bad(where / key, "expected an attempt number >= 1 or \"default\"");
    out.by_attempt[n] = std::move(*list);
  }
  return out;
}

} // namespace

std::string_view to_string(action_kind k) {
  for (const auto& n : action_names)
    if (n.kind == k) return n.name;
  return "?";
}

std::string_view to_string(failure_kind k) {
  for (const auto& n : failure_names)
    if (n.kind == k) return n.name;
  return "?";
}

std::optional<failure_kind> failure_kind_from(std::string_view name) {
  for (const auto& n : failure_names)
    if (n.name == name) return n.kind;
  return std::nullopt;
}

std::vector<std::string_view> failure_variants(failure_kind k) {
  switch (k) {
    case failure_kind::rate_limit: return {"http", "in_stream"};
    case failure_kind::model_overloaded: return {"capacity", "503", "529"};
    case failure_kind::stream_disconnected: return {"cut", "dropped"};
    default: break;
  }
  return {};
}

std::optional<int> signal_from(std::string_view name) {
  if (name.starts_with("SIG")) name.remove_prefix(3);
  for (const auto& n : signal_names)
    if (n.name == name) return n.number;
  if (!name.empty() && name.size() < 3 && name.find_first_not_of("0123456789") == std::string_view::npos) {
    int n = std::stoi(std::string(name));
    if (n >= 1 && n < 32) return n;
  }
  return std::nullopt;
}

std::string signal_name(int sig) {
  for (const auto& n : signal_names)
    if (n.number == sig) return "SIG" + std::string(n.name);
  return "SIG" + std::to_string(sig);
}

result<scenario> parse_scenario(const json& doc) {
  pointer root;
  if (!doc.is_object()) return bad(root, "a scenario is a JSON object");
  if (auto st = only_keys(doc, root, {"version", "tasks", "defaults", "description", "usage"}); !st) return st;
  if (doc.contains("version") && doc.at("version") != 1)
    return bad(root / "version", "unsupported version (expected 1)");
  scenario out;
  if (doc.contains("usage")) {
    const json& u = doc.at("usage");
    if (!u.is_object()) return bad(root / "usage", "expected an object of usage fields");
    if (auto st = only_keys(u, root / "usage", usage_keys); !st) return st;
    if (auto st = read_usage(u, root / "usage", out.usage); !st) return st;
  }
  if (doc.contains("tasks")) {
    const json& tasks = doc.at("tasks");
    if (!tasks.is_object()) return bad(root / "tasks", "expected an object keyed by task name");
    for (auto t = tasks.begin(); t != tasks.end(); ++t) {
      pointer tp = root / "tasks" / t.key();
      if (t.key().empty()) return bad(tp, "empty task name");
      if (!t.value().is_object()) return bad(tp, "expected an object keyed by role");
      auto& roles = out.tasks[t.key()];
      for (auto r = t.value().begin(); r != t.value().end(); ++r) {
        if (!known_role(r.key()))
          return bad(tp / r.key(), "unknown role " + in_quotes(r.key()) +
                                       " (expected worker, selfcheck or review)");
        auto script = parse_role(r.value(), tp / r.key());
        if (!script) return script.error();
        roles[r.key()] = std::move(*script);
      }
    }
  }
  if (doc.contains("defaults")) {
    const json& defs = doc.at("defaults");
    if (!defs.is_object()) return bad(root / "defaults", "expected an object keyed by role");
    for (auto r = defs.begin(); r != defs.end(); ++r) {
      pointer rp = root / "defaults" / r.key();
      if (!known_role(r.key())) return bad(rp, "unknown role " + in_quotes(r.key()));
      auto list = parse_action_list(r.value(), rp);
      if (!list) return list.error();
      out.defaults[r.key()] = std::move(*list);
    }
  }
  return out;
}

result<scenario> parse_scenario_text(std::string_view text, std::string_view source) {
  auto doc = runtime::parse_json(text, source);
  if (!doc) return doc.error();
  auto s = parse_scenario(*doc);
  if (!s) return s.error().with_context(source);
  return s;
}

result<scenario> load_scenario_file(const std::filesystem::path& path) {
  auto text = runtime::read_file(path, 4u << 20);
  if (!text) return text.error();
  return parse_scenario_text(*text, path.string());
}

action_list competent_actions(std::string_view role) {
  action events;
  events.kind = action_kind::events;
  events.count = 2;
  action main;
  if (role == "review") {
    main.kind = action_kind::review;
    main.verdict = "PASS";
  } else if (role == "selfcheck") {
    main.kind = action_kind::selfcheck;
  } else {
    main.kind = action_kind::work;
  }
  return {events, main};
}

action_list select_actions(const scenario& s, const std::string& task, const std::string& role,
                           int attempt) {
  if (auto t = s.tasks.find(task); t != s.tasks.end()) {
    if (auto r = t->second.find(role); r != t->second.end()) {
      if (auto a = r->second.by_attempt.find(attempt); a != r->second.by_attempt.end())
        return a->second;
      if (r->second.fallback) return *r->second.fallback;
    }
  }
  if (auto d = s.defaults.find(role); d != s.defaults.end()) return d->second;
  return competent_actions(role);
}

} // namespace ad::agent_sim
