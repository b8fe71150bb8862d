// The usage record: absent fields stay absent through sums and JSON, the
// reader refuses wrong types and out-of-range numbers, what a token ceiling
// counts, and the texts for people.
#include "runtime/core/token_usage.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

token_usage usage_of(std::string_view text) {
  auto doc = parse_json(text, "test");
  EXPECT_TRUE(doc.is_ok()) << text;
  auto u = usage_from_json(*doc);
  EXPECT_TRUE(u.is_ok()) << u.error().to_string();
  return u.is_ok() ? *u : token_usage{};
}

std::string refusal(std::string_view text) {
  auto doc = parse_json(text, "test");
  EXPECT_TRUE(doc.is_ok()) << text;
  auto u = usage_from_json(*doc);
  EXPECT_FALSE(u.is_ok()) << text;
  return u.is_ok() ? "" : u.error().message();
}

TEST(token_usage, an_empty_record_has_no_fields_and_writes_an_empty_object) {
  token_usage u;
  EXPECT_TRUE(u.empty());
  EXPECT_EQ(usage_to_json(u), json::object());
  EXPECT_EQ(usage_of("{}"), u);
  EXPECT_EQ(counted_tokens(u), std::nullopt);
  EXPECT_EQ(usage_summary(u), "");
}

TEST(token_usage, every_field_round_trips_through_json) {
  token_usage u;
  u.input_tokens = 1200;
  u.output_tokens = 40;
  u.cache_read_tokens = 300;
  u.cache_write_tokens = 7;
  u.reasoning_tokens = 12;
  u.cost_usd = 0.0123;
  json j = usage_to_json(u);
  EXPECT_EQ(dump_json(j), R"({"cache_read_tokens":300,"cache_write_tokens":7,"cost_usd":0.0123,)"
                          R"("input_tokens":1200,"output_tokens":40,"reasoning_tokens":12})");
  auto text = dump_json(j);
  EXPECT_EQ(usage_of(text), u);
}

TEST(token_usage, absent_fields_are_omitted_never_written_as_zero) {
  token_usage u;
  u.output_tokens = 0;
  EXPECT_FALSE(u.empty());
  EXPECT_EQ(dump_json(usage_to_json(u)), R"({"output_tokens":0})");
  auto back = usage_of(R"({"output_tokens":0})");
  EXPECT_EQ(back.output_tokens, 0);
  EXPECT_FALSE(back.input_tokens.has_value());
  EXPECT_FALSE(back.cost_usd.has_value());
}

TEST(token_usage, adding_keeps_absent_plus_absent_absent) {
  token_usage a, b;
  a.input_tokens = 100;
  a.cost_usd = 0.5;
  b.input_tokens = 20;
  b.output_tokens = 3;
  token_usage sum = a + b;
  EXPECT_EQ(sum.input_tokens, 120);
  EXPECT_EQ(sum.output_tokens, 3);       // absent + 3
  EXPECT_EQ(sum.cost_usd, 0.5);          // 0.5 + absent
  EXPECT_FALSE(sum.cache_read_tokens);   // absent + absent
  EXPECT_FALSE(sum.reasoning_tokens);
  EXPECT_EQ(token_usage{} + token_usage{}, token_usage{});
  a += a;
  EXPECT_EQ(a.input_tokens, 200);
  EXPECT_EQ(a.cost_usd, 1.0);
}

TEST(token_usage, sums_saturate_instead_of_overflowing) {
  token_usage big;
  big.input_tokens = max_usage_tokens;
  big.cost_usd = max_usage_cost_usd;
  token_usage sum = big + big;
  EXPECT_EQ(sum.input_tokens, max_usage_tokens);
  EXPECT_EQ(sum.cost_usd, max_usage_cost_usd);
  token_usage more;
  more.output_tokens = max_usage_tokens;
  EXPECT_EQ(counted_tokens(sum + more), max_usage_tokens);
}

TEST(token_usage, the_reader_refuses_wrong_types_and_out_of_range_numbers) {
  EXPECT_EQ(refusal(R"([1, 2])"), "usage: expected an object, found array");
  EXPECT_EQ(refusal(R"({"input_tokens": "12"})"),
            "usage: \"input_tokens\" has the wrong type (string), expected a whole number of tokens");
  EXPECT_EQ(refusal(R"({"input_tokens": null})"),
            "usage: \"input_tokens\" has the wrong type (null), expected a whole number of tokens");
  EXPECT_EQ(refusal(R"({"output_tokens": 1.5})"),
            "usage: \"output_tokens\" holds 1.5 where a whole number of tokens belongs");
  // Written with an exponent: no integer is taken from it (runtime/core/json.hpp).
  EXPECT_EQ(refusal(R"({"output_tokens": 1e3})"),
            "usage: \"output_tokens\" holds 1000.0 where a whole number of tokens belongs");
  EXPECT_EQ(refusal(R"({"cache_read_tokens": -1})"),
            "usage: \"cache_read_tokens\" is -1, a count cannot be negative");
  EXPECT_EQ(refusal(R"({"reasoning_tokens": 1000000000000001})"),
            "usage: \"reasoning_tokens\" is 1000000000000001, more than 1000000000000000");
  EXPECT_EQ(refusal(R"({"cache_write_tokens": 18446744073709551615})"),
            "usage: \"cache_write_tokens\" is 18446744073709551615, more than 1000000000000000");
  EXPECT_EQ(refusal(R"({"cost_usd": "0.1"})"),
            "usage: \"cost_usd\" has the wrong type (string), expected a number of US dollars");
  EXPECT_EQ(refusal(R"({"cost_usd": -0.01})"), "usage: \"cost_usd\" is -0.01, expected 0..1,000,000,000,000 US dollars");
  EXPECT_EQ(refusal(R"({"cost_usd": 1e300})"), "usage: \"cost_usd\" is 1e+300, expected 0..1,000,000,000,000 US dollars");
}

TEST(token_usage, the_reader_takes_the_limits_and_ignores_keys_it_does_not_know) {
  auto u = usage_of(R"({"input_tokens": 1000000000000000, "cost_usd": 3, "cache_write_1h_tokens": 5})");
  EXPECT_EQ(u.input_tokens, max_usage_tokens);
  EXPECT_EQ(u.cost_usd, 3.0);
  EXPECT_EQ(usage_of(R"({"cost_usd": 0})").cost_usd, 0.0);
}

TEST(token_usage, counted_tokens_are_input_output_and_cache_without_reasoning_again) {
  token_usage u;
  u.reasoning_tokens = 50;
  EXPECT_EQ(counted_tokens(u), std::nullopt) << "reasoning is a part of the output, not more tokens";
  u.input_tokens = 1000;
  u.output_tokens = 200;
  EXPECT_EQ(counted_tokens(u), 1200);
  u.cache_read_tokens = 30;
  u.cache_write_tokens = 4;
  EXPECT_EQ(counted_tokens(u), 1234);
}

TEST(token_usage, texts_for_people) {
  EXPECT_EQ(format_token_count(0), "0");
  EXPECT_EQ(format_token_count(999), "999");
  EXPECT_EQ(format_token_count(2041117), "2,041,117");
  EXPECT_EQ(format_token_count(-1200), "-1,200");
  EXPECT_EQ(format_token_count(INT64_MIN), "-9,223,372,036,854,775,808");
  EXPECT_EQ(format_usd(5.02), "$5.02");
  EXPECT_EQ(format_usd(0), "$0.00");
  EXPECT_EQ(format_usd(0.001905), "$0.0019");
  token_usage u;
  u.input_tokens = 1200;
  u.output_tokens = 40;
  u.cache_read_tokens = 300;
  u.cost_usd = 0.0123;
  EXPECT_EQ(usage_summary(u), "1,200 in · 40 out · 300 cache read · $0.0123");
  // A CLI that reports its cache and reasoning counts as 0 says nothing of them.
  u.cache_read_tokens = 0;
  u.cache_write_tokens = 0;
  u.reasoning_tokens = 0;
  u.output_tokens = 0;
  EXPECT_EQ(usage_summary(u), "1,200 in · 0 out · $0.0123");
}

} // namespace
} // namespace ad::runtime
