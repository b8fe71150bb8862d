#pragma once
// What the policy says about notifications (docs/policy.md, "notify";
// docs/notify.md): rules that name the run events a person wants to hear
// about (a task blocked, a user review needed, a quota wait longer than N
// minutes, a write outside a claim, the run's end) and how each is sent: a
// command (an argv, never a shell string; the event JSON on its stdin)
// and/or an HTTP POST of the event JSON to a URL. The settings bound every
// delivery: its time, its retries and the grace a run's end gives pending
// notifications. Which event fires which rule is decided in
// runtime/notify/notify_decision.hpp. Pure values: no I/O, never throw,
// safe to share between threads.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"

namespace ad::runtime {

enum class notify_event : uint8_t {
  task_blocked,     // a task_blocked run event of any stage but user-review
  user_review,      // a task stopped for a user review (task_blocked at stage user-review)
  quota_wait,       // a supervisor_wait (quota reset or cool-down) longer than the rule's minutes
  claim_violation,  // a claim_violation run event
  run_finished,     // the run's summary
};

// The names the policy uses: "task_blocked", "user_review", "quota_wait",
// "claim_violation", "run_finished".
std::string_view to_string(notify_event e);
std::optional<notify_event> parse_notify_event(std::string_view name);
inline constexpr std::string_view notify_event_names =
  "task_blocked, user_review, quota_wait, claim_violation, run_finished";

struct notify_rule {
  std::string id;
  std::vector<notify_event> events;  // non-empty, each once
  // quota_wait fires only for a wait longer than this (0: every wait).
  double quota_wait_minutes = 0;
  std::vector<std::string> command;  // argv; empty: no command
  std::string url;                   // http:// or https://; empty: no POST
};

// The bounds of every notification, with their defaults.
struct notify_settings {
  double timeout_s = 10;  // one try of one delivery (a command's run, a POST's connect/send/answer)
  int retries = 2;        // tries after the first failed one
  double backoff_s = 1;   // before the n-th retry: backoff_s * 2^n, at most 60 s
  double grace_s = 5;     // at the run's end, how long pending notifications may still take
  int queue = 256;        // notifications waiting to be sent; more are dropped with a warning
};

struct policy_notify {
  std::vector<notify_rule> rules;
  notify_settings settings;
  bool empty() const { return rules.empty(); }
};

// A URL's parts as an HTTP client takes them: "http://host:port" and the
// path with its query ("/" when none). nullopt unless the URL starts with
// http:// or https://, has a host, and holds no white space or control
// character.
struct url_parts {
  std::string origin;
  std::string path;
  bool https = false;
};
std::optional<url_parts> split_url(std::string_view url);

// The delay before retry n (0 for the first): backoff_s * 2^n, capped at 60 s.
double notify_retry_delay_s(const notify_settings& s, int n);

// The "notify" section as policy_to_json writes it (`policy show`).
json notify_to_json(const policy_notify& n);
// One line per rule for `policy check`: "<id>: <events> -> <command>, <url>".
std::vector<std::string> describe_notify(const policy_notify& n);

} // namespace ad::runtime
