#include "runtime/policy/selection.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/runtime/policy/test_policy.hpp"

namespace ad::runtime {
namespace {

using test_policy::at;

const millis monday_noon = at("2026-11-30T03:00:00Z"); // 12:00 KST, Monday

selection_request request(std::string lane, int grade, millis now = monday_noon) {
  selection_request r;
  r.work_unit_id = "g/01_x::plan-1::tag-a";
  r.stage = "worker";
  r.lane = std::move(lane);
  r.grade = grade;
  r.now = now;
  return r;
}

std::vector<std::string> ids(const route_decision& d) {
  std::vector<std::string> out;
  for (const auto& c : d.candidates)
    out.push_back(c.target);
  return out;
}

bool has_reason(const route_candidate& c, std::string_view prefix) {
  for (const auto& r : c.reasons)
    if (r.rfind(prefix, 0) == 0)
      return true;
  return false;
}

TEST(match_rule, picks_by_stage_lane_grade_and_time_window) {
  auto pol = test_policy::load();
  auto zone = test_policy::seoul();
  struct row {
    const char* lane;
    int grade;
    const char* when;
    const char* rule;
  } rows[] = {
    {"local", 3, "2026-11-30T03:00:00Z", "local"},
    {"cloud", 3, "2026-11-30T03:00:00Z", "cloud-low"},
    {"cloud", 9, "2026-11-30T03:00:00Z", "cloud-high"},  // Monday noon: outside the window
    {"cloud", 9, "2026-11-30T14:00:00Z", "cloud-night"}, // Monday 23:00 KST
    {"cloud", 9, "2026-11-30T17:00:00Z", "cloud-night"}, // Tuesday 02:00 KST, Monday's night
    {"cloud", 9, "2026-12-01T17:00:00Z", "cloud-night"}, // Wednesday 02:00, Tuesday's night
    {"cloud", 9, "2026-12-02T17:00:00Z", "cloud-high"},  // Thursday 02:00, Wednesday's night
    {"cloud", 9, "2026-11-30T21:00:00Z", "cloud-high"},  // Tuesday 06:00 KST: window ended
  };
  for (const auto& r : rows) {
    auto m = match_rule(pol, zone, "worker", r.lane, r.grade, at(r.when));
    ASSERT_TRUE(m.is_ok()) << r.when;
    EXPECT_EQ((*m)->id, r.rule) << r.lane << " " << r.grade << " " << r.when;
  }
  auto none = match_rule(pol, zone, "selfcheck", "cloud", 3, monday_noon);
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.error().message().find("no_matching_rule"), std::string::npos);
  EXPECT_NE(none.error().message().find("2026-11-30 12:00 Asia/Seoul"), std::string::npos);
}

TEST(select_target, initial_decision_ranks_candidates_with_reasons) {
  auto pol = test_policy::load();
  auto zone = test_policy::seoul();
  auto d = select_target(pol, zone, request("cloud", 7));
  ASSERT_TRUE(d.is_ok()) << d.error().to_string();
  EXPECT_EQ(d->rule_id, "cloud-high");
  EXPECT_EQ(d->priority, 1);
  EXPECT_EQ(d->selected_target, "agy");
  EXPECT_EQ(d->transition, route_transition::initial);
  EXPECT_EQ(d->previous_target, "");
  EXPECT_EQ(d->next_target, "agy");
  EXPECT_EQ(d->evaluated_at, monday_noon);
  EXPECT_EQ(ids(*d), (std::vector<std::string>{"agy", "claude"}));
  EXPECT_TRUE(d->candidates[0].eligible);
  EXPECT_TRUE(has_reason(d->candidates[0], "selected"));
  EXPECT_TRUE(d->candidates[1].eligible);
  EXPECT_TRUE(has_reason(d->candidates[1], "eligible"));
  EXPECT_EQ(d->work_unit_id, "g/01_x::plan-1::tag-a");
  EXPECT_EQ(d->lane, "cloud");
  EXPECT_EQ(d->grade, 7);
  auto lines = describe_decision(*d);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "rule_id=cloud-high priority=1"), lines.end());
}

TEST(select_target, rejects_exhausted_cooling_and_work_unit_exhausted_candidates) {
  auto pol = test_policy::load();
  auto zone = test_policy::seoul();
  quota_snapshot q;
  q.status_by_target["agy"] = "exhausted";
  auto r = request("cloud", 7);
  r.quota = &q;
  auto d = select_target(pol, zone, r);
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->selected_target, "claude");
  EXPECT_FALSE(d->candidates[0].eligible);
  EXPECT_TRUE(has_reason(d->candidates[0], reason_quota_exhausted));

  target_cooldowns cool;
  cool.mark_exhausted("claude", monday_noon, std::nullopt, 900, "quota");
  r.cooldowns = &cool;
  auto none = select_target(pol, zone, r);
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.error().message().find("no_eligible_candidate"), std::string::npos);
  EXPECT_NE(none.error().message().find("cooling_down_until:2026-11-30T03:15:00.000Z"),
            std::string::npos)
    << none.error().message();

  // The cool-down ends; a work-unit exhaustion still rejects agy.
  r.now = monday_noon + 901 * 1000;
  q.status_by_target["agy"] = std::string(quota_exhausted_for_work_unit);
  auto later = select_target(pol, zone, r);
  ASSERT_TRUE(later.is_ok());
  EXPECT_EQ(later->selected_target, "claude");
  EXPECT_TRUE(has_reason(later->candidates[0], reason_exhausted_for_work_unit));
}

TEST(cooldown_wait_of, names_the_first_free_target_only_when_cool_downs_alone_block) {
  auto pol = test_policy::load();
  auto zone = test_policy::seoul();
  auto r = request("cloud", 7); // candidates agy, claude
  EXPECT_EQ(cooldown_wait_of(pol, zone, r).until, 0) << "no cool-downs: nothing to wait for";

  target_cooldowns cool;
  cool.mark_exhausted("agy", monday_noon, std::nullopt, 900, "quota");
  cool.mark_exhausted("claude", monday_noon, std::nullopt, 600, "quota");
  r.cooldowns = &cool;
  ASSERT_FALSE(select_target(pol, zone, r).is_ok());
  EXPECT_EQ(cooldown_wait_of(pol, zone, r).until, monday_noon + 600 * 1000);
  EXPECT_EQ(cooldown_wait_of(pol, zone, r).target, "claude");

  // The probe says claude is out of quota: only agy's cool-down counts.
  quota_snapshot q;
  q.status_by_target["claude"] = "exhausted";
  r.quota = &q;
  EXPECT_EQ(cooldown_wait_of(pol, zone, r).until, monday_noon + 900 * 1000);
  EXPECT_EQ(cooldown_wait_of(pol, zone, r).target, "agy");

  // Both exhausted by the probe: waiting on the cool-downs would not help.
  q.status_by_target["agy"] = "exhausted";
  EXPECT_EQ(cooldown_wait_of(pol, zone, r).until, 0);
  EXPECT_EQ(cooldown_wait_of(pol, zone, r).target, "");
}

TEST(select_target, failover_skips_used_targets_and_reports_when_none_is_left) {
  auto pol = test_policy::load();
  auto zone = test_policy::seoul();
  auto first = select_target(pol, zone, request("cloud", 7));
  ASSERT_TRUE(first.is_ok());
  auto r = request("cloud", 7, monday_noon + 1000);
  r.transition = route_transition::failover;
  r.prior = &*first;
  r.failure_class = "provider-quota";
  auto next = select_target(pol, zone, r);
  ASSERT_TRUE(next.is_ok()) << next.error().to_string();
  EXPECT_EQ(next->selected_target, "claude");
  EXPECT_EQ(next->transition, route_transition::failover);
  EXPECT_EQ(next->previous_target, "agy");
  EXPECT_EQ(next->next_target, "claude");
  EXPECT_TRUE(has_reason(next->candidates[0], reason_already_used));
  auto& codes = next->reason_codes;
  EXPECT_NE(std::find(codes.begin(), codes.end(), "failure_class:provider-quota"), codes.end());

  r.prior = &*next;
  r.used_targets = {"agy"};
  auto none = select_target(pol, zone, r);
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.error().message().rfind("no_failover_candidate", 0), 0u);
}

TEST(select_target, promotion_follows_the_chain_to_its_end) {
  auto pol = test_policy::load();
  auto zone = test_policy::seoul();
  auto first = select_target(pol, zone, request("cloud", 3));
  ASSERT_TRUE(first.is_ok());
  EXPECT_EQ(first->selected_target, "agy");
  auto r = request("cloud", 3);
  r.transition = route_transition::promotion;
  r.prior = &*first;
  auto second = select_target(pol, zone, r);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second->selected_target, "claude");
  EXPECT_EQ(second->rule_id, "cloud-low");
  r.prior = &*second;
  auto third = select_target(pol, zone, r);
  ASSERT_TRUE(third.is_ok());
  EXPECT_EQ(third->selected_target, "codex");
  EXPECT_EQ(third->previous_target, "claude");
  r.prior = &*third;
  auto end = select_target(pol, zone, r);
  ASSERT_FALSE(end.is_ok());
  EXPECT_EQ(end.error().message().rfind("no_promotion_target", 0), 0u);

  // A cooling promotion target is skipped for the next one on the chain.
  target_cooldowns cool;
  cool.mark_exhausted("claude", monday_noon, std::nullopt, 900, "quota");
  r.prior = &*first;
  r.cooldowns = &cool;
  auto skip = select_target(pol, zone, r);
  ASSERT_TRUE(skip.is_ok());
  EXPECT_EQ(skip->selected_target, "codex");
  EXPECT_FALSE(skip->candidates[0].eligible);
}

TEST(select_target, reviews_always_use_the_fixed_review_target) {
  auto pol = test_policy::load();
  auto r = request("cloud", 9, at("2026-11-30T14:00:00Z"));
  r.stage = "review";
  auto d = select_target(pol, test_policy::seoul(), r);
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->selected_target, "reviewer");
  EXPECT_EQ(d->rule_id, "review_target");
  EXPECT_EQ(ids(*d), std::vector<std::string>{"reviewer"});
}

TEST(select_target, selfcheck_is_pinned_to_the_completing_target) {
  auto pol = test_policy::load();
  auto r = request("local", 3);
  r.stage = "selfcheck";
  r.pinned_target = "pi-b";
  auto d = select_target(pol, test_policy::seoul(), r);
  ASSERT_TRUE(d.is_ok());
  EXPECT_EQ(d->selected_target, "pi-b");
  EXPECT_TRUE(revalidate_decision(*d, pol, test_policy::seoul(), r.work_unit_id).is_ok());
}

TEST(revalidate_decision, accepts_a_valid_decision_and_blocks_a_stale_one_with_the_reason) {
  auto pol = test_policy::load();
  auto zone = test_policy::seoul();
  auto d = select_target(pol, zone, request("cloud", 3));
  ASSERT_TRUE(d.is_ok());
  const std::string wu = "g/01_x::plan-1::tag-a";
  EXPECT_TRUE(revalidate_decision(*d, pol, zone, wu).is_ok());

  auto st = revalidate_decision(*d, pol, zone, "g/01_x::plan-2::tag-b");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("belongs to work unit"), std::string::npos);

  policy changed = pol;
  changed.rules[1].candidates = {"claude"};
  st = revalidate_decision(*d, changed, zone, wu);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("neither a candidate"), std::string::npos) << st.message();

  changed = pol;
  changed.rules.erase(changed.rules.begin() + 1);
  st = revalidate_decision(*d, changed, zone, wu);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("rule cloud-low is not in the policy"), std::string::npos);

  changed = pol;
  changed.targets.erase(changed.targets.begin() + 2); // agy
  st = revalidate_decision(*d, changed, zone, wu);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("selected target agy is not in the policy"), std::string::npos);

  // A promoted decision stays valid while the chain still reaches its target.
  auto r = request("cloud", 3);
  r.transition = route_transition::promotion;
  r.prior = &*d;
  auto promoted = select_target(pol, zone, r);
  ASSERT_TRUE(promoted.is_ok());
  EXPECT_TRUE(revalidate_decision(*promoted, pol, zone, wu).is_ok());
  changed = pol;
  changed.promotion.erase("agy");
  EXPECT_FALSE(revalidate_decision(*promoted, changed, zone, wu).is_ok());

  // Resume re-validates; an invalid prior fails the selection.
  r.transition = route_transition::resume;
  r.prior = &*d;
  auto resumed = select_target(pol, zone, r);
  ASSERT_TRUE(resumed.is_ok());
  EXPECT_EQ(resumed->transition, route_transition::resume);
  EXPECT_EQ(resumed->previous_target, "agy");
  r.work_unit_id = "other";
  EXPECT_FALSE(select_target(pol, zone, r).is_ok());
}

TEST(used_targets, come_from_the_route_history_of_the_current_work_unit_and_stage) {
  task_state t;
  t.work_unit_id = "wu-2";
  route_decision a;
  a.work_unit_id = "wu-1";
  a.stage = "worker";
  a.selected_target = "agy";
  route_decision b = a;
  b.work_unit_id = "wu-2";
  b.selected_target = "claude";
  route_decision c = b;
  c.stage = "review";
  c.selected_target = "reviewer";
  t.route_history = {a, b, c, b};
  EXPECT_EQ(used_targets(t, "worker"), std::vector<std::string>{"claude"});
  EXPECT_EQ(used_targets(t, "review"), std::vector<std::string>{"reviewer"});
}

} // namespace
} // namespace ad::runtime
