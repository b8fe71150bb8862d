#pragma once
// What one attempt (or a task, a target, a run) spent on its model, as the
// agent CLI itself reported it: one record of token counts and a cost, every
// field optional. An absent field means nobody reported it; it is never
// guessed and never read as zero (a CLI that reports no cache figures has no
// cache_read_tokens, not zero of them). The fields, in the meaning every
// reader (usage_reader.hpp) maps its CLI onto:
//   input_tokens        input read neither from nor into the provider's cache
//   output_tokens       everything the model wrote, reasoning included
//   cache_read_tokens   input served from the cache
//   cache_write_tokens  input written into the cache
//   reasoning_tokens    of output_tokens, the part that was reasoning (a
//                       breakdown: never added to the other counts)
//   cost_usd            US dollars, as the CLI reported them or as the
//                       policy's prices make them (runtime/policy/usage_policy.hpp)
// Adding two records adds each field; a field absent in both stays absent,
// present in one is that value. Counts saturate at max_usage_tokens and
// costs at max_usage_cost_usd, so a sum never overflows.
// The JSON form is an object holding only the present fields:
// {"input_tokens": 1200, "output_tokens": 40, "cost_usd": 0.0123}.
// usage_from_json refuses a wrong type, a count that is not a whole number in
// 0..max_usage_tokens and a cost that is not a number in
// 0..max_usage_cost_usd, naming the field (invalid_argument); keys it does not
// know are ignored, so a newer writer's fields do not break an older reader.
// A plain value: no I/O, never throws.

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

// 10^15 tokens: beyond any real spend, exact as a double and in every JSON
// reader's integer range.
inline constexpr int64_t max_usage_tokens = 1'000'000'000'000'000;
// 10^12 US dollars.
inline constexpr double max_usage_cost_usd = 1e12;

struct token_usage {
  std::optional<int64_t> input_tokens;
  std::optional<int64_t> output_tokens;
  std::optional<int64_t> cache_read_tokens;
  std::optional<int64_t> cache_write_tokens;
  std::optional<int64_t> reasoning_tokens;
  std::optional<double> cost_usd;

  // No field is present.
  bool empty() const noexcept;

  token_usage& operator+=(const token_usage& other) noexcept;
  friend token_usage operator+(token_usage a, const token_usage& b) noexcept { return a += b; }
  friend bool operator==(const token_usage&, const token_usage&) = default;
};

// What a token ceiling counts (docs/policy.md, "limits"): input + output +
// cache reads + cache writes, every token the model read or wrote, as the
// providers' own totals count them (reasoning is inside output). Absent
// fields add nothing; nullopt when all four are absent.
std::optional<int64_t> counted_tokens(const token_usage& u) noexcept;

// The JSON object of the present fields ({} when empty).
json usage_to_json(const token_usage& u);
// Reads usage_to_json's form; invalid_argument naming the field otherwise.
result<token_usage> usage_from_json(const json& value);

// One line for people: "1,200 in · 40 out · 300 cache read · $0.0123", the
// present fields only; "" when empty.
std::string usage_summary(const token_usage& u);
// "2,041,117".
std::string format_token_count(int64_t n);
// "$5.02" from one dollar up (and "$0.00"), "$0.0019" below.
std::string format_usd(double usd);

} // namespace ad::runtime
