// The policy's "notify" section: parsing, every error with its JSON
// pointer, what `policy show` and `policy check` print, and the URL shape.
#include "runtime/policy/notify_policy.hpp"

#include <gtest/gtest.h>

#include "runtime/policy/policy.hpp"

namespace ad::runtime {
namespace {

constexpr const char* notifying = R"({
  "notify": {
    "timeout_s": 3, "retries": 1, "backoff_s": 0.5, "grace_s": 2, "queue": 16,
    "rules": [
      {"id": "ops", "events": ["task_blocked", "user_review", "run_finished"],
       "command": ["/usr/local/bin/page", "--quiet"], "url": "http://127.0.0.1:9000/hook?x=1"},
      {"id": "quota", "events": ["quota_wait", "claim_violation"], "quota_wait_minutes": 30,
       "url": "https://hooks.example.com/agent"}
    ]
  }
})";

std::string errors_of(const std::string& notify_json) {
  auto loaded = parse_policy_text("{\"notify\": " + notify_json + "}", "p.json");
  return loaded.is_ok() ? "" : loaded.error().message();
}

TEST(notify_policy, rules_and_settings_are_read_and_shown_back) {
  auto loaded = parse_policy_text(notifying, "p.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  const auto& n = loaded->value.notify;
  ASSERT_EQ(n.rules.size(), 2u);
  EXPECT_EQ(n.rules[0].id, "ops");
  EXPECT_EQ(n.rules[0].events, (std::vector<notify_event>{notify_event::task_blocked,
                                                          notify_event::user_review,
                                                          notify_event::run_finished}));
  EXPECT_EQ(n.rules[0].command, (std::vector<std::string>{"/usr/local/bin/page", "--quiet"}));
  EXPECT_EQ(n.rules[0].url, "http://127.0.0.1:9000/hook?x=1");
  EXPECT_EQ(n.rules[1].quota_wait_minutes, 30);
  EXPECT_TRUE(n.rules[1].command.empty());
  EXPECT_EQ(n.settings.timeout_s, 3);
  EXPECT_EQ(n.settings.retries, 1);
  EXPECT_EQ(n.settings.backoff_s, 0.5);
  EXPECT_EQ(n.settings.grace_s, 2);
  EXPECT_EQ(n.settings.queue, 16);
  json shown = policy_to_json(loaded->value);
  EXPECT_EQ(shown["notify"]["rules"][1],
            json::parse(R"({"id": "quota", "events": ["quota_wait", "claim_violation"],
                            "quota_wait_minutes": 30.0, "url": "https://hooks.example.com/agent"})"));
  auto again = parse_policy(shown, "shown");
  ASSERT_TRUE(again.is_ok()) << again.error().to_string();
  EXPECT_EQ(policy_to_json(*again), shown);
  EXPECT_EQ(describe_notify(n),
            (std::vector<std::string>{
              "ops: task_blocked, user_review, run_finished -> run [\"/usr/local/bin/page\",\"--quiet\"] "
              "and POST to http://127.0.0.1:9000/hook?x=1",
              "quota: quota_wait over 30 min, claim_violation -> POST to https://hooks.example.com/agent"}));
}

TEST(notify_policy, without_the_section_nothing_is_sent_and_show_leaves_it_out) {
  auto loaded = parse_policy_text("{}", "p.json");
  ASSERT_TRUE(loaded.is_ok());
  EXPECT_TRUE(loaded->value.notify.empty());
  EXPECT_EQ(loaded->value.notify.settings.timeout_s, 10);
  EXPECT_EQ(loaded->value.notify.settings.grace_s, 5);
  EXPECT_FALSE(policy_to_json(loaded->value).contains("notify"));
}

TEST(notify_policy, bad_rules_name_their_pointer_and_what_was_expected) {
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["task_blocked"]}]})"),
            "p.json: /notify/rules/0: expected a command, a url or both (what the rule sends), "
            "found nothing (the key is missing)");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["blocked"], "url": "http://h/"}]})"),
            "p.json: /notify/rules/0/events/0: expected one of task_blocked, user_review, "
            "quota_wait, claim_violation, run_finished, found string \"blocked\"");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["run_finished", "run_finished"],
                                      "url": "http://h/"}]})"),
            "p.json: /notify/rules/0/events/1: expected each event once, found string \"run_finished\"");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": [], "url": "http://h/"}]})"),
            "p.json: /notify/rules/0/events: expected a non-empty array of strings, found array []");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["run_finished"], "url": "ftp://h/x"}]})"),
            "p.json: /notify/rules/0/url: expected an http:// or https:// URL with a host and "
            "without spaces, such as \"http://127.0.0.1:9000/hook\", found string \"ftp://h/x\"");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["run_finished"], "command": "notify-send done"}]})"),
            "p.json: /notify/rules/0/command: expected a non-empty array of strings, found string "
            "\"notify-send done\"");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["run_finished"], "quota_wait_minutes": 5,
                                      "url": "http://h/"}]})"),
            "p.json: /notify/rules/0/quota_wait_minutes: expected no quota_wait_minutes (it goes "
            "with the quota_wait event in /events), found number 5");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["quota_wait"], "quota_wait_minutes": -1,
                                      "url": "http://h/"}]})"),
            "p.json: /notify/rules/0/quota_wait_minutes: expected a number of minutes from 0 to "
            "10080, found number -1");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["run_finished"], "url": "http://h/"},
                                     {"id": "a", "events": ["run_finished"], "url": "http://g/"}]})"),
            "p.json: /notify/rules/1/id: expected a unique notify rule id, found string \"a\"");
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["run_finished"], "url": "http://h/",
                                      "shell": "x"}]})"),
            "p.json: /notify/rules/0/shell: expected no unknown key (allowed: id, events, "
            "quota_wait_minutes, command, url), found string \"x\"");
}

TEST(notify_policy, bad_settings_name_their_bounds) {
  EXPECT_EQ(errors_of(R"({"rules": [], "timeout_s": 0})"),
            "p.json: /notify/timeout_s: expected a number of seconds above 0, at most 300, found number 0");
  EXPECT_EQ(errors_of(R"({"rules": [], "retries": 11})"),
            "p.json: /notify/retries: expected an integer in 0..10, found number 11");
  EXPECT_EQ(errors_of(R"({"rules": [], "grace_s": 61})"),
            "p.json: /notify/grace_s: expected a number of seconds from 0 to 60, found number 61");
  EXPECT_EQ(errors_of(R"({"rules": [], "queue": 0})"),
            "p.json: /notify/queue: expected an integer in 1..10000, found number 0");
  EXPECT_EQ(errors_of(R"({"timeout_s": 1})"),
            "p.json: /notify/rules: expected a value (required key), found nothing (the key is missing)");
}

TEST(notify_policy, long_strings_are_refused_with_their_length) {
  std::string url = "http://h/" + std::string(policy_max_text_chars, 'a');
  EXPECT_EQ(errors_of(R"({"rules": [{"id": "a", "events": ["run_finished"], "url": ")" + url + "\"}]}"),
            "p.json: /notify/rules/0/url: expected at most 65536 characters, found a string of "
              + std::to_string(url.size()) + " characters");
  std::string id(policy_max_name_chars + 1, 'i');
  EXPECT_EQ(errors_of(R"({"rules": [{"id": ")" + id + R"(", "events": ["run_finished"], "url": "http://h/"}]})"),
            "p.json: /notify/rules/0/id: expected at most 256 characters, found a string of 257 characters");
}

TEST(notify_policy, urls_split_into_origin_and_path) {
  auto u = split_url("http://127.0.0.1:9000/hook?x=1#frag");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->origin, "http://127.0.0.1:9000");
  EXPECT_EQ(u->path, "/hook?x=1");
  EXPECT_FALSE(u->https);
  u = split_url("https://example.com");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->origin, "https://example.com");
  EXPECT_EQ(u->path, "/");
  EXPECT_TRUE(u->https);
  EXPECT_EQ(split_url("http://[::1]:8080?q")->path, "/?q");
  EXPECT_FALSE(split_url("http://"));
  EXPECT_FALSE(split_url("http:///x"));
  EXPECT_FALSE(split_url("http://a b/"));
  EXPECT_FALSE(split_url("http://user:pw@h/"));
  EXPECT_FALSE(split_url("HTTP://h/"));
}

TEST(notify_policy, retries_back_off_doubling_up_to_a_minute) {
  notify_settings s;
  s.backoff_s = 0.5;
  EXPECT_EQ(notify_retry_delay_s(s, 0), 0.5);
  EXPECT_EQ(notify_retry_delay_s(s, 1), 1.0);
  EXPECT_EQ(notify_retry_delay_s(s, 3), 4.0);
  EXPECT_EQ(notify_retry_delay_s(s, 10), 60.0);
}

} // namespace
} // namespace ad::runtime
