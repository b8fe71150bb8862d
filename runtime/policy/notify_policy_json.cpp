// The policy's "notify" section: validation (for parse_policy), its JSON
// form (for policy_to_json) and the URL shape shared with the sender.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "runtime/policy/notify_policy.hpp"
#include "runtime/policy/policy_checker.hpp"

namespace ad::runtime {

namespace {

constexpr std::pair<notify_event, std::string_view> event_names[] = {
  {notify_event::task_blocked, "task_blocked"},
  {notify_event::user_review, "user_review"},
  {notify_event::quota_wait, "quota_wait"},
  {notify_event::claim_violation, "claim_violation"},
  {notify_event::run_finished, "run_finished"},
};

constexpr double max_timeout_s = 300;
constexpr double max_backoff_s = 60;
constexpr double max_grace_s = 60;
constexpr int max_retries = 10;
constexpr int max_queue = 10000;
constexpr double max_quota_wait_minutes = 60 * 24 * 7;

// A number in [lo, hi] (lo excluded when above_lo).
void bounded(policy_checker& c, const json& v, const std::string& ptr, double& out, double lo,
             double hi, bool above_lo, std::string_view what) {
  double d = 0;
  if (!c.number(v, ptr, d, lo, what))
    return;
  if (d > hi || (above_lo && !(d > lo))) {
    c.fail(ptr, what, &v);
    return;
  }
  out = d;
}

// 30, 0.5, 10080: as a person writes it.
std::string number_text(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

void parse_rule(policy_checker& c, const json& v, const std::string& p, notify_rule& r) {
  if (!c.object(v, p, {"id", "events", "quota_wait_minutes", "command", "url"}, {"id", "events"}))
    return;
  c.string(v["id"], p + "/id", r.id);
  std::vector<std::string> names;
  if (c.strings(v["events"], p + "/events", names, false)) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto e = parse_notify_event(names[i]);
      std::string ptr = p + "/events/" + std::to_string(i);
      if (!e)
        c.fail(ptr, "one of " + std::string(notify_event_names), &v["events"][i]);
      else if (std::find(r.events.begin(), r.events.end(), *e) != r.events.end())
        c.fail(ptr, "each event once", &v["events"][i]);
      else
        r.events.push_back(*e);
    }
  }
  if (v.contains("quota_wait_minutes")) {
    bool quota = std::find(r.events.begin(), r.events.end(), notify_event::quota_wait)
                 != r.events.end();
    if (!quota)
      c.fail(p + "/quota_wait_minutes",
             "no quota_wait_minutes (it goes with the quota_wait event in /events)",
             &v["quota_wait_minutes"]);
    else
      bounded(c, v["quota_wait_minutes"], p + "/quota_wait_minutes", r.quota_wait_minutes, 0,
              max_quota_wait_minutes, false,
              "a number of minutes from 0 to " + number_text(max_quota_wait_minutes));
  }
  if (v.contains("command"))
    c.strings(v["command"], p + "/command", r.command, false, policy_max_text_chars);
  if (v.contains("url") && c.string(v["url"], p + "/url", r.url, false, policy_max_text_chars)
      && !split_url(r.url)) {
    c.fail(p + "/url",
           "an http:// or https:// URL with a host and without spaces, such as "
           "\"http://127.0.0.1:9000/hook\"",
           &v["url"]);
    r.url.clear();
  }
  if (!v.contains("command") && !v.contains("url"))
    c.fail(p, "a command, a url or both (what the rule sends)", nullptr);
}

} // namespace

std::string_view to_string(notify_event e) {
  for (const auto& [value, name] : event_names)
    if (value == e)
      return name;
  return "unknown";
}

std::optional<notify_event> parse_notify_event(std::string_view name) {
  for (const auto& [value, text] : event_names)
    if (text == name)
      return value;
  return std::nullopt;
}

std::optional<url_parts> split_url(std::string_view url) {
  url_parts out;
  std::string_view rest;
  if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else if (url.starts_with("https://")) {
    rest = url.substr(8);
    out.https = true;
  } else {
    return std::nullopt;
  }
  if (std::any_of(url.begin(), url.end(),
                  [](char ch) { return static_cast<unsigned char>(ch) <= ' ' || ch == 0x7f; }))
    return std::nullopt;
  auto slash = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, slash);
  // No user info: credentials in a URL end up in logs.
  if (authority.empty() || authority.front() == ':' || authority.find('@') != std::string_view::npos)
    return std::nullopt;
  out.origin = std::string(url.substr(0, url.size() - rest.size())) + std::string(authority);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (auto hash = path.find('#'); hash != std::string_view::npos)
    path = path.substr(0, hash);
  out.path = path.empty() ? "/" : path.front() == '?' ? "/" + std::string(path) : std::string(path);
  return out;
}

double notify_retry_delay_s(const notify_settings& s, int n) {
  return std::min(max_backoff_s, s.backoff_s * std::pow(2.0, std::min(n, 16)));
}

void parse_notify(policy_checker& c, const json& v, policy_notify& out) {
  const std::string p = "/notify";
  if (!c.object(v, p, {"rules", "timeout_s", "retries", "backoff_s", "grace_s", "queue"},
                {"rules"}))
    return;
  auto& s = out.settings;
  if (v.contains("timeout_s"))
    bounded(c, v["timeout_s"], p + "/timeout_s", s.timeout_s, 0, max_timeout_s, true,
            "a number of seconds above 0, at most " + number_text(max_timeout_s));
  if (v.contains("retries"))
    c.integer(v["retries"], p + "/retries", s.retries, 0, max_retries);
  if (v.contains("backoff_s"))
    bounded(c, v["backoff_s"], p + "/backoff_s", s.backoff_s, 0, max_backoff_s, false,
            "a number of seconds from 0 to " + number_text(max_backoff_s));
  if (v.contains("grace_s"))
    bounded(c, v["grace_s"], p + "/grace_s", s.grace_s, 0, max_grace_s, false,
            "a number of seconds from 0 to " + number_text(max_grace_s));
  if (v.contains("queue"))
    c.integer(v["queue"], p + "/queue", s.queue, 1, max_queue);
  const json& rules = v["rules"];
  if (!rules.is_array()) {
    c.fail(p + "/rules", "an array of rules {id, events, command, url}", &rules);
    return;
  }
  std::set<std::string> ids;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    std::string rp = p + "/rules/" + std::to_string(i);
    notify_rule r;
    parse_rule(c, rules[i], rp, r);
    if (!r.id.empty() && !ids.insert(r.id).second)
      c.fail(rp + "/id", "a unique notify rule id", &rules[i]["id"]);
    out.rules.push_back(std::move(r));
  }
}

json notify_to_json(const policy_notify& n) {
  json rules = json::array();
  for (const auto& r : n.rules) {
    json events = json::array();
    for (auto e : r.events)
      events.push_back(std::string(to_string(e)));
    json j = {{"id", r.id}, {"events", events}};
    if (std::find(r.events.begin(), r.events.end(), notify_event::quota_wait) != r.events.end())
      j["quota_wait_minutes"] = r.quota_wait_minutes;
    if (!r.command.empty())
      j["command"] = r.command;
    if (!r.url.empty())
      j["url"] = r.url;
    rules.push_back(std::move(j));
  }
  const auto& s = n.settings;
  return {{"rules", rules},          {"timeout_s", s.timeout_s}, {"retries", s.retries},
          {"backoff_s", s.backoff_s}, {"grace_s", s.grace_s},     {"queue", s.queue}};
}

std::vector<std::string> describe_notify(const policy_notify& n) {
  std::vector<std::string> out;
  for (const auto& r : n.rules) {
    std::string events;
    for (auto e : r.events) {
      events += (events.empty() ? "" : ", ") + std::string(to_string(e));
      if (e == notify_event::quota_wait && r.quota_wait_minutes > 0)
        events += " over " + number_text(r.quota_wait_minutes) + " min";
    }
    std::string how;
    if (!r.command.empty()) {
      json argv = r.command;
      how = "run " + dump_json(argv);
    }
    if (!r.url.empty())
      how += (how.empty() ? "" : " and ") + std::string("POST to ") + r.url;
    out.push_back(r.id + ": " + events + " -> " + how);
  }
  return out;
}

} // namespace ad::runtime
