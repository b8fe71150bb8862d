#include "runtime/policy/quota.hpp"

#include <gtest/gtest.h>

#include "runtime/core/numbers.hpp"
#include "tests/runtime/policy/test_policy.hpp"

namespace ad::runtime {
namespace {

using test_policy::at;

TEST(plan_quota_probes, runs_each_distinct_probe_once_for_all_admitted_workers) {
  auto pol = test_policy::load();
  std::vector<probe_request> reqs{
    {"g/01_a", {"agy", "claude"}, {}, probe_request::kind::fresh},
    {"g/02_b", {"claude", "codex"}, {}, probe_request::kind::fresh},
    {"g/03_c", {"agy"}, {}, probe_request::kind::fresh},
  };
  auto plan = plan_quota_probes(pol, reqs);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].argv, (std::vector<std::string>{"probe", "agy", "g"}));
  EXPECT_EQ(plan[0].target_ids, std::vector<std::string>{"agy"});
  EXPECT_EQ(plan[1].argv, (std::vector<std::string>{"probe", "claude", "opus"}));
  EXPECT_EQ(plan[2].argv, (std::vector<std::string>{"probe", "codex", "terra"}));
}

TEST(plan_quota_probes, local_candidates_need_none_and_retries_probe_unused_cloud_targets) {
  auto pol = test_policy::load();
  // A fresh local worker stops at its first (local) candidate.
  auto local = plan_quota_probes(pol, {{"g/01_a", {"pi-a", "agy"}, {}, probe_request::kind::fresh}});
  EXPECT_TRUE(local.empty());
  // A targets without a probe is skipped; a retry handoff skips used targets.
  auto retry = plan_quota_probes(
    pol, {{"g/01_a", {"pi-a", "agy", "claude", "reviewer"}, {"agy"}, probe_request::kind::retry_handoff}});
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_EQ(retry[0].target_ids, std::vector<std::string>{"claude"});
}

TEST(parse_quota_probe_output, reads_status_and_reset_and_degrades_to_unknown) {
  const millis now = at("2026-11-29T12:00:00Z");
  auto ok = parse_quota_probe_output("agy", {"p"}, "noise\n{\"status\": \"available\"}\n", 0, now);
  EXPECT_EQ(ok.state, quota_status::available);
  auto ex = parse_quota_probe_output(
    "agy", {"p"}, R"({"status": "exhausted", "reset_at": "2026-11-29T13:00:00Z"})", 0, now);
  EXPECT_EQ(ex.state, quota_status::exhausted);
  ASSERT_TRUE(ex.has_reset_at);
  EXPECT_EQ(ex.reset_at, at("2026-11-29T13:00:00Z"));
  auto after = parse_quota_probe_output("agy", {"p"}, R"({"status": "exhausted", "retry_after_s": 90})",
                                        0, now);
  EXPECT_EQ(after.reset_at, now + 90000);
  auto unk = parse_quota_probe_output("agy", {"p"}, R"({"status": "unknown"})", 0, now);
  EXPECT_EQ(unk.state, quota_status::unknown);
  auto garbage = parse_quota_probe_output("agy", {"p"}, "not json", 0, now);
  EXPECT_EQ(garbage.state, quota_status::unknown);
  EXPECT_NE(garbage.detail.find("not a JSON object"), std::string::npos);
  auto weird = parse_quota_probe_output("agy", {"p"}, R"({"status": "plenty"})", 0, now);
  EXPECT_EQ(weird.state, quota_status::unknown);
  auto failed = parse_quota_probe_output("agy", {"p"}, R"({"status": "available"})", 3, now);
  EXPECT_EQ(failed.state, quota_status::unknown);
  EXPECT_NE(failed.detail.find("code 3"), std::string::npos);
}

class fake_runner : public quota_probe_runner {
public:
  output run(const std::vector<std::string>& argv) override {
    calls.push_back(argv);
    if (argv[1] == "claude")
      return {0, R"({"status": "exhausted", "retry_after_s": 60})"};
    return {0, R"({"status": "available"})"};
  }
  std::vector<std::vector<std::string>> calls;
};

TEST(run_quota_probe_batch, makes_one_snapshot_from_one_run_per_probe) {
  auto pol = test_policy::load();
  auto plan = plan_quota_probes(pol, {{"a", {"agy", "claude"}, {}, probe_request::kind::fresh},
                                      {"b", {"claude"}, {}, probe_request::kind::fresh}});
  fake_runner runner;
  const millis now = at("2026-11-29T12:00:00Z");
  auto snap = run_quota_probe_batch(plan, runner, "batch-1", now);
  EXPECT_EQ(runner.calls.size(), 2u);
  EXPECT_EQ(snap.snapshot_id, "batch-1");
  ASSERT_NE(snap.find("claude"), nullptr);
  EXPECT_EQ(snap.find("claude")->state, quota_status::exhausted);
  EXPECT_EQ(snap.find("agy")->state, quota_status::available);
  auto compact = to_quota_snapshot(snap);
  EXPECT_EQ(compact.taken_at, now);
  EXPECT_EQ(compact.status_by_target.at("claude"), "exhausted");

  auto back = probe_snapshot_from_json(to_json(snap));
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  EXPECT_EQ(back->entries.size(), 2u);
  EXPECT_EQ(back->find("claude")->reset_at, now + 60000);

  target_cooldowns cool;
  cool.mark_exhausted("agy", now - 1000, std::nullopt, 900, "earlier");
  cool.apply_snapshot(snap, 900);
  EXPECT_TRUE(cool.active("claude", now + 59000).has_value());
  EXPECT_FALSE(cool.active("claude", now + 60000).has_value());
  EXPECT_FALSE(cool.active("agy", now).has_value()); // available again
}

// A cool-down of 1e300 s (the policy bounds it below only) was cast to
// milliseconds as a double, undefined behaviour: it is the longest wait, and
// its end is still a time its JSON can hold.
TEST(target_cooldowns, a_cooldown_beyond_any_time_is_the_longest_wait_and_round_trips) {
  const millis now = at("2026-11-29T12:00:00Z");
  target_cooldowns c;
  c.mark_exhausted("pi", now, std::nullopt, 1e300, "forever");
  ASSERT_TRUE(c.active("pi", now).has_value());
  EXPECT_EQ(c.active("pi", now)->until, now + longest_wait_ms);
  auto back = target_cooldowns_from_json(to_json(c));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  ASSERT_TRUE(back->active("pi", now).has_value());
  EXPECT_EQ(back->active("pi", now)->until, now + longest_wait_ms);
}

TEST(target_cooldowns, last_until_the_reset_or_the_policy_cooldown_and_round_trip) {
  const millis now = at("2026-11-29T12:00:00Z");
  target_cooldowns c;
  c.mark_exhausted("agy", now, now + 120000, 900, "reset known");
  c.mark_exhausted("claude", now, std::nullopt, 900, "no reset");
  EXPECT_EQ(c.active("agy", now)->until, now + 120000);
  EXPECT_EQ(c.active("claude", now)->until, now + 900000);
  // A shorter later mark never shortens a cool-down.
  c.mark_exhausted("claude", now + 1000, now + 2000, 900, "short");
  EXPECT_EQ(c.active("claude", now)->until, now + 900000);
  EXPECT_FALSE(c.active("codex", now).has_value());
  auto back = target_cooldowns_from_json(to_json(c));
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back->active("agy", now)->until, now + 120000);
  EXPECT_EQ(back->active("claude", now)->reason, "no reset");
  c.expire(now + 200000);
  EXPECT_EQ(c.entries().size(), 1u);
  EXPECT_FALSE(target_cooldowns_from_json(json::array()).is_ok());
}

} // namespace
} // namespace ad::runtime
