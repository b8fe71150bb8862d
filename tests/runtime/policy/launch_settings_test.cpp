#include "runtime/policy/launch_settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

using ::testing::ElementsAre;

// A policy with a claude target and the default no-progress rule.
policy with_targets() {
  auto pol = parse_policy(default_policy_json(), "embedded");
  EXPECT_TRUE(pol.is_ok());
  return *pol;
}

route_decision ranked(std::vector<std::string> ids) {
  route_decision d;
  for (auto& id : ids) {
    route_candidate c;
    c.target = id;
    d.candidates.push_back(c);
  }
  return d;
}

TEST(launch_settings, claude_retries_less_while_another_candidate_can_take_over) {
  auto pol = with_targets();
  const policy_target& claude = *pol.find_target("claude-opus");
  auto two = ranked({"claude-opus", "codex-terra"});
  auto s = launch_settings_for(pol, claude, &two, "worker");
  EXPECT_THAT(s.env_additions, ElementsAre("CLAUDE_CODE_MAX_RETRIES=3"));
  EXPECT_TRUE(s.progress.failover_available);
  EXPECT_EQ(s.progress.network_wait_ms, 180'000);
  EXPECT_EQ(s.progress.retrying_ms, 120'000);
  // Alone, or as the fixed review target, claude keeps its own retries.
  auto one = ranked({"claude-opus"});
  EXPECT_TRUE(launch_settings_for(pol, claude, &one, "worker").env_additions.empty());
  EXPECT_FALSE(launch_settings_for(pol, claude, &two, "review").progress.failover_available);
  EXPECT_TRUE(launch_settings_for(pol, claude, nullptr, "worker").env_additions.empty());
}

TEST(launch_settings, the_targets_env_is_passed_and_wins) {
  auto pol = with_targets();
  policy_target claude = *pol.find_target("claude-opus");
  claude.env = {{"IS_SANDBOX", "1"}, {"CLAUDE_CODE_MAX_RETRIES", "7"}};
  auto two = ranked({"claude-opus", "codex-terra"});
  EXPECT_THAT(launch_settings_for(pol, claude, &two, "worker").env_additions,
              ElementsAre("CLAUDE_CODE_MAX_RETRIES=7", "IS_SANDBOX=1"));
  pol.no_progress.cli_max_retries = 0;
  claude.env.erase("CLAUDE_CODE_MAX_RETRIES");
  EXPECT_THAT(launch_settings_for(pol, claude, &two, "worker").env_additions,
              ElementsAre("IS_SANDBOX=1"));
  // Other adapters get no retry variable.
  const policy_target& codex = *pol.find_target("codex-terra");
  EXPECT_TRUE(launch_settings_for(pol, codex, &two, "worker").env_additions.empty());
}

TEST(policy_file, targets_take_env_and_pi_a_provider_and_no_progress_is_validated) {
  json doc = default_policy_json();
  doc["targets"][0]["provider"] = "openai";
  doc["targets"][0]["env"] = {{"PI_CODING_AGENT_DIR", "/srv/pi"}};
  doc["no_progress"] = {{"network_wait_s", 5}, {"retrying_s", 0}, {"cli_max_retries", 1}};
  auto pol = parse_policy(doc, "p.json");
  ASSERT_TRUE(pol.is_ok()) << pol.error().to_string();
  EXPECT_EQ(pol->targets[0].provider, "openai");
  EXPECT_EQ(pol->targets[0].env.at("PI_CODING_AGENT_DIR"), "/srv/pi");
  EXPECT_EQ(pol->no_progress.network_wait_s, 5);
  EXPECT_EQ(pol->no_progress.cli_max_retries, 1);
  auto back = parse_policy(policy_to_json(*pol), "shown");
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  EXPECT_EQ(back->targets[0].env, pol->targets[0].env);
  EXPECT_EQ(back->no_progress.network_wait_s, 5);

  json bad = default_policy_json();
  bad["targets"][4]["provider"] = "openai"; // codex
  bad["targets"][3]["env"] = {{"BAD NAME", "x"}};
  bad["no_progress"] = {{"network_wait_s", -1}, {"speed", 2}};
  auto refused = parse_policy(bad, "bad.json");
  ASSERT_FALSE(refused.is_ok());
  const std::string msg = refused.error().message();
  EXPECT_NE(msg.find("bad.json: /targets/4/provider"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/targets/3/env/BAD NAME"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/no_progress/speed"), std::string::npos) << msg;

  // A document written before no_progress existed keeps its defaults.
  json old = default_policy_json();
  old.erase("no_progress");
  auto older = parse_policy(old, "old.json");
  ASSERT_TRUE(older.is_ok()) << older.error().to_string();
  EXPECT_EQ(older->no_progress.network_wait_s, 180);
}

} // namespace
} // namespace ad::runtime
