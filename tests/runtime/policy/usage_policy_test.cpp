// The policy's prices and limits: parsing, validation messages, what
// `policy show` prints, the cost made from prices, and the ceiling
// decision a new attempt waits on.
#include "runtime/policy/usage_policy.hpp"

#include <gtest/gtest.h>

#include "runtime/policy/policy.hpp"

namespace ad::runtime {
namespace {

token_usage tokens(int64_t in, int64_t out, std::optional<int64_t> cache_read = std::nullopt,
                   std::optional<int64_t> cache_write = std::nullopt, std::optional<double> cost = std::nullopt) {
  token_usage u;
  u.input_tokens = in;
  u.output_tokens = out;
  u.cache_read_tokens = cache_read;
  u.cache_write_tokens = cache_write;
  u.cost_usd = cost;
  return u;
}

constexpr const char* spending = R"({
  "prices": {"claude-opus": {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25},
             "codex-terra": {"input": 1.25, "output": 10}},
  "limits": {"task": {"tokens": 2000000, "cost_usd": 5}, "run": {"cost_usd": 100}}
})";

TEST(usage_policy, prices_and_limits_are_read_and_shown_back) {
  auto loaded = parse_policy_text(spending, "p.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  const policy& p = loaded->value;
  ASSERT_NE(p.find_prices("claude-opus"), nullptr);
  EXPECT_EQ(*p.find_prices("claude-opus"), (token_prices{5, 25, 0.5, 6.25}));
  EXPECT_EQ(*p.find_prices("codex-terra"), (token_prices{1.25, 10, std::nullopt, std::nullopt}));
  EXPECT_EQ(p.find_prices("pi-laguna-s"), nullptr);
  EXPECT_EQ(p.limits.task.tokens, 2000000);
  EXPECT_EQ(p.limits.task.cost_usd, 5.0);
  EXPECT_FALSE(p.limits.run.tokens);
  EXPECT_EQ(p.limits.run.cost_usd, 100.0);
  // `policy show` prints them as written, and reads back the same.
  json shown = policy_to_json(p);
  EXPECT_EQ(shown["prices"], json::parse(R"({"claude-opus": {"input": 5.0, "output": 25.0, "cache_read": 0.5,
    "cache_write": 6.25}, "codex-terra": {"input": 1.25, "output": 10.0}})"));
  EXPECT_EQ(shown["limits"], json::parse(R"({"task": {"tokens": 2000000, "cost_usd": 5.0}, "run": {"cost_usd": 100.0}})"));
  auto again = parse_policy(shown, "shown");
  ASSERT_TRUE(again.is_ok()) << again.error().to_string();
  EXPECT_EQ(policy_to_json(*again), shown);
}

TEST(usage_policy, the_ceilings_are_described_for_people) {
  EXPECT_EQ(describe_limits(parse_policy_text(spending, "p.json")->value.limits),
            "task 2,000,000 tokens or $5.00, run $100.00");
  EXPECT_EQ(describe_limits(usage_limits{}), "");
  usage_limits run_tokens;
  run_tokens.run.tokens = 50000000;
  EXPECT_EQ(describe_limits(run_tokens), "run 50,000,000 tokens");
}

TEST(usage_policy, without_them_nothing_is_priced_or_limited_and_nothing_is_shown) {
  auto pol = parse_policy(default_policy_json(), "embedded");
  ASSERT_TRUE(pol.is_ok());
  EXPECT_TRUE(pol->prices.empty());
  EXPECT_TRUE(pol->limits.empty());
  json shown = policy_to_json(*pol);
  EXPECT_FALSE(shown.contains("prices"));
  EXPECT_FALSE(shown.contains("limits"));
  // An empty ceiling is no ceiling.
  auto loaded = parse_policy_text(R"({"limits": {"task": {}}})", "p.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  EXPECT_TRUE(loaded->value.limits.empty());
}

TEST(usage_policy, a_command_target_may_name_the_format_its_usage_is_printed_in) {
  auto loaded = parse_policy_text(R"({"targets": [
      {"id": "wrapped", "adapter": "command", "model": "m", "execution_class": "cloud_model",
       "argv": ["my-claude-wrapper", "{prompt}"], "usage_reader": "claude"},
      {"id": "plain", "adapter": "command", "model": "m", "execution_class": "cloud_model",
       "argv": ["my-agent", "{prompt}"]},
      {"id": "pi", "adapter": "pi", "model": "m", "execution_class": "local_model"}],
    "rules": [], "promotion": {}, "review_target": "wrapped"})",
                                  "p.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  const policy& p = loaded->value;
  EXPECT_EQ(usage_format_of(*p.find_target("wrapped")), usage_format::claude);
  EXPECT_EQ(usage_format_of(*p.find_target("plain")), usage_format::none);
  EXPECT_EQ(usage_format_of(*p.find_target("pi")), usage_format::pi);
  json shown = policy_to_json(p);
  EXPECT_EQ(shown["targets"][0]["usage_reader"], "claude");
  EXPECT_FALSE(shown["targets"][1].contains("usage_reader"));
}

struct bad_case {
  const char* name;
  const char* text;
  const char* pointer;
  const char* expected;
  const char* found;
};

class usage_policy_validation : public ::testing::TestWithParam<bad_case> {};

TEST_P(usage_policy_validation, names_the_key_what_is_wrong_and_what_is_allowed) {
  const auto& c = GetParam();
  auto loaded = parse_policy_text(c.text, "/etc/my-policy.json");
  ASSERT_FALSE(loaded.is_ok()) << c.name;
  const std::string msg = loaded.error().message();
  EXPECT_TRUE(loaded.error().is_invalid_argument());
  EXPECT_NE(msg.find(std::string("/etc/my-policy.json: ") + c.pointer + ": expected " + c.expected),
            std::string::npos)
    << msg;
  EXPECT_NE(msg.find(std::string(", found ") + c.found), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
  cases, usage_policy_validation,
  ::testing::Values(
    bad_case{"prices_not_an_object", R"({"prices": [1]})", "/prices",
             "an object mapping target id to its prices", "array [1]"},
    bad_case{"prices_of_an_unknown_target", R"({"prices": {"ghost": {"input": 1, "output": 2}}})",
             "/prices/ghost", "a key naming a target in /targets", "key \"ghost\""},
    bad_case{"price_missing_output", R"({"prices": {"claude-opus": {"input": 1}}})",
             "/prices/claude-opus/output", "a value (required key)", "nothing (the key is missing)"},
    bad_case{"negative_price", R"({"prices": {"claude-opus": {"input": -1, "output": 2}}})",
             "/prices/claude-opus/input", "a price in US dollars per million tokens, 0..1,000,000", "number -1"},
    bad_case{"price_as_text", R"({"prices": {"claude-opus": {"input": 1, "output": 2, "cache_read": "0.1"}}})",
             "/prices/claude-opus/cache_read", "a price in US dollars per million tokens", "string \"0.1\""},
    bad_case{"unknown_price_key", R"({"prices": {"claude-opus": {"input": 1, "output": 2, "reasoning": 3}}})",
             "/prices/claude-opus/reasoning",
             "no unknown key (allowed: input, output, cache_read, cache_write)", "number 3"},
    bad_case{"unknown_scope", R"({"limits": {"stage": {"tokens": 5}}})", "/limits/stage",
             "no unknown key (allowed: task, run)", "object"},
    bad_case{"unknown_ceiling_key", R"({"limits": {"run": {"dollars": 5}}})", "/limits/run/dollars",
             "no unknown key (allowed: tokens, cost_usd)", "number 5"},
    bad_case{"zero_tokens", R"({"limits": {"task": {"tokens": 0}}})", "/limits/task/tokens",
             "a whole number of tokens, 1..1,000,000,000,000,000 (input + output + cache reads + cache writes)",
             "number 0"},
    bad_case{"fractional_tokens", R"({"limits": {"task": {"tokens": 1.5e6}}})", "/limits/task/tokens",
             "a whole number of tokens", "number 1500000.0"},
    bad_case{"too_many_tokens", R"({"limits": {"run": {"tokens": 1000000000000000001}}})", "/limits/run/tokens",
             "a whole number of tokens", "number 1000000000000000001"},
    bad_case{"zero_cost", R"({"limits": {"run": {"cost_usd": 0}}})", "/limits/run/cost_usd",
             "a number of US dollars above 0, at most 1,000,000,000,000", "number 0"},
    bad_case{"cost_as_text", R"({"limits": {"task": {"cost_usd": "5"}}})", "/limits/task/cost_usd",
             "a number of US dollars above 0", "string \"5\""},
    bad_case{"limits_not_an_object", R"({"limits": 5})", "/limits", "an object", "number 5"},
    bad_case{"usage_reader_on_a_cli_target",
             R"({"targets": [{"id": "a", "adapter": "codex", "model": "m", "execution_class": "cloud_model",
                 "usage_reader": "codex"}], "rules": [], "promotion": {}, "review_target": "a"})",
             "/targets/0/usage_reader", "no usage_reader (codex, claude and pi targets read their own CLI's usage",
             "string \"codex\""},
    bad_case{"unknown_usage_reader",
             R"({"targets": [{"id": "a", "adapter": "command", "model": "m", "execution_class": "cloud_model",
                 "argv": ["x"], "usage_reader": "agy"}], "rules": [], "promotion": {}, "review_target": "a"})",
             "/targets/0/usage_reader", "codex, claude or pi (the CLI format the command prints its usage in)",
             "string \"agy\""}),
  [](const auto& info) { return std::string(info.param.name); });

TEST(usage_policy, every_wrong_field_is_reported_not_only_the_first_of_a_section) {
  auto loaded = parse_policy_text(R"({"prices": {"codex-terra": {"input": -1, "colour": 1}},
      "limits": {"task": {"tokens": "lots", "budget": 3}, "run": {"cost_usd": 0}}})",
                                  "bad.json");
  ASSERT_FALSE(loaded.is_ok());
  const std::string msg = loaded.error().message();
  for (const char* pointer : {"/prices/codex-terra/input", "/prices/codex-terra/output", "/prices/codex-terra/colour",
                              "/limits/task/tokens", "/limits/task/budget", "/limits/run/cost_usd"})
    EXPECT_NE(msg.find(std::string("bad.json: ") + pointer + ": expected"), std::string::npos) << pointer << "\n" << msg;
}

TEST(usage_policy, prices_give_a_cost_only_when_every_counted_kind_has_one) {
  token_prices claude{5, 25, 0.5, 6.25};
  // 321 in and 12 out at $5 / $25 per million: claude's own $0.001905.
  EXPECT_DOUBLE_EQ(*cost_from_prices(tokens(321, 12), claude), 0.001905);
  EXPECT_DOUBLE_EQ(*cost_from_prices(tokens(1000000, 0, 2000000, 1000000), claude), 5 + 1 + 6.25);
  token_prices codex{1.25, 10, std::nullopt, std::nullopt};
  EXPECT_DOUBLE_EQ(*cost_from_prices(tokens(2400, 80, 0, 0), codex), 0.0038);
  EXPECT_EQ(cost_from_prices(tokens(2400, 80, 300, 0), codex), std::nullopt) << "no cache_read price";
  token_usage no_output;
  no_output.input_tokens = 5;
  EXPECT_EQ(cost_from_prices(no_output, codex), std::nullopt) << "never guessed from half a record";
  EXPECT_EQ(cost_from_prices(tokens(max_usage_tokens, max_usage_tokens), token_prices{1e6, 1e6, std::nullopt, std::nullopt}),
            max_usage_cost_usd);
}

TEST(usage_policy, a_clis_own_cost_wins_over_the_prices) {
  token_prices p{5, 25, std::nullopt, std::nullopt};
  EXPECT_EQ(priced_usage(tokens(321, 12, std::nullopt, std::nullopt, 0.5), &p).cost_usd, 0.5);
  EXPECT_DOUBLE_EQ(*priced_usage(tokens(321, 12), &p).cost_usd, 0.001905);
  EXPECT_EQ(priced_usage(tokens(321, 12), nullptr), tokens(321, 12));
  EXPECT_EQ(priced_usage(token_usage{}, &p), token_usage{});
}

usage_limits limits_of(const char* text) {
  auto loaded = parse_policy_text(text, "p.json");
  EXPECT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  return loaded.is_ok() ? loaded->value.limits : usage_limits{};
}

TEST(usage_ceiling, an_attempt_may_start_while_the_scope_is_below_its_ceilings) {
  auto limits = limits_of(spending);
  auto ok = check_ceiling(limits, limit_scope::task, tokens(1999000, 999, 0, 0, 4.99));
  EXPECT_TRUE(ok.may_start);
  EXPECT_TRUE(ok.reason.empty());
  EXPECT_TRUE(check_ceiling(limits, limit_scope::task, token_usage{}).may_start);
  EXPECT_TRUE(check_ceiling(usage_limits{}, limit_scope::run, tokens(max_usage_tokens, 0, 0, 0, 1e9)).may_start);
}

TEST(usage_ceiling, a_reached_token_ceiling_names_itself_the_amount_and_the_setting) {
  auto limits = limits_of(spending);
  // 2,000,000 counted tokens: input, output and cache reads and writes.
  auto c = check_ceiling(limits, limit_scope::task, tokens(1500000, 100000, 390000, 10000, 1.0));
  EXPECT_FALSE(c.may_start);
  EXPECT_EQ(c.setting, "/limits/task/tokens");
  EXPECT_EQ(c.reason,
            "task token ceiling reached: 2,000,000 tokens spent, /limits/task/tokens is 2,000,000; raise "
            "/limits/task/tokens in the policy (agent-dispatch.json or --policy), then run again with "
            "--retry-blocked");
}

TEST(usage_ceiling, a_reached_cost_ceiling_names_itself_the_amount_and_the_setting) {
  auto limits = limits_of(spending);
  auto task = check_ceiling(limits, limit_scope::task, tokens(100, 10, 0, 0, 5.02));
  EXPECT_FALSE(task.may_start);
  EXPECT_EQ(task.setting, "/limits/task/cost_usd");
  EXPECT_EQ(task.reason, "task cost ceiling reached: $5.02 spent, /limits/task/cost_usd is $5.00; raise "
                         "/limits/task/cost_usd in the policy (agent-dispatch.json or --policy), then run "
                         "again with --retry-blocked");
  auto run = check_ceiling(limits, limit_scope::run, tokens(100, 10, 0, 0, 100));
  EXPECT_FALSE(run.may_start);
  EXPECT_EQ(run.setting, "/limits/run/cost_usd");
  EXPECT_EQ(run.reason, "run cost ceiling reached: $100.00 spent, /limits/run/cost_usd is $100.00; raise "
                        "/limits/run/cost_usd in the policy (agent-dispatch.json or --policy), then run "
                        "again (with --retry-blocked for the tasks it blocked)");
  // The run's tokens are not limited: only its cost is.
  EXPECT_TRUE(check_ceiling(limits, limit_scope::run, tokens(max_usage_tokens, 0, 0, 0, 99)).may_start);
}

TEST(usage_ceiling, tokens_whose_cost_nobody_reported_are_flagged_not_blocked) {
  auto limits = limits_of(R"({"limits": {"task": {"cost_usd": 1}}})");
  auto c = check_ceiling(limits, limit_scope::task, tokens(5000000, 1000));
  EXPECT_TRUE(c.may_start);
  EXPECT_TRUE(c.cost_unknown);
  EXPECT_FALSE(check_ceiling(limits, limit_scope::task, token_usage{}).cost_unknown);
  EXPECT_FALSE(check_ceiling(limits, limit_scope::task, tokens(5, 1, 0, 0, 0.1)).cost_unknown);
  EXPECT_FALSE(check_ceiling(limits_of(R"({"limits": {"task": {"tokens": 10}}})"), limit_scope::task,
                             tokens(5, 1))
                 .cost_unknown)
    << "no cost ceiling to be blind to";
}

} // namespace
} // namespace ad::runtime
