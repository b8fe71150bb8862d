#pragma once
// What the policy says about spending (docs/policy.md, "prices" and
// "limits"): per target, the prices that turn a usage record into a cost
// when the CLI reported none, and the ceilings on what a task and the whole
// run may spend. check_ceiling is the one decision about them: whether a new
// attempt may start, given what its scope has spent so far; it never stops
// an attempt that is running. "tokens" in a ceiling are counted_tokens
// (runtime/core/token_usage.hpp): input, output, cache reads and cache
// writes, every token the model read or wrote. Pure values and functions:
// no I/O, never throw, safe to share between threads.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/token_usage.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

// US dollars per million tokens of each kind. The cache prices are optional;
// a usage with cache tokens of a kind whose price is missing gets no cost.
// Reasoning is part of the output and priced as output.
struct token_prices {
  double input = 0;
  double output = 0;
  std::optional<double> cache_read;
  std::optional<double> cache_write;
  friend bool operator==(const token_prices&, const token_prices&) = default;
};

// The highest price a policy may set (USD per million tokens).
inline constexpr double max_price_per_million = 1e6;

// The cost of u at prices p: nullopt when u lacks input or output tokens,
// or has cache tokens of a kind p has no price for. Saturates at
// max_usage_cost_usd.
std::optional<double> cost_from_prices(const token_usage& u, const token_prices& p);

// u with cost_usd from prices when the CLI reported none (a CLI's own figure
// always wins); u unchanged when prices is null or the cost cannot be made.
token_usage priced_usage(token_usage u, const token_prices* prices);

// A ceiling: either part may be unset.
struct usage_ceiling {
  std::optional<int64_t> tokens;  // 1..max_usage_tokens
  std::optional<double> cost_usd; // > 0, at most max_usage_cost_usd
  bool empty() const noexcept { return !tokens && !cost_usd; }
  friend bool operator==(const usage_ceiling&, const usage_ceiling&) = default;
};

// `limits`: what one task (all its attempts, every stage) and the whole run
// (every task, across restarts) may spend.
struct usage_limits {
  usage_ceiling task;
  usage_ceiling run;
  bool empty() const noexcept { return task.empty() && run.empty(); }
  friend bool operator==(const usage_limits&, const usage_limits&) = default;
};

enum class limit_scope : uint8_t { task, run };
// "task", "run".
std::string_view to_string(limit_scope s);

struct ceiling_check {
  bool may_start = true;
  // When it may not: the policy setting that was reached ("/limits/task/tokens",
  // "/limits/run/cost_usd") and the reason for people, naming the ceiling,
  // the amount spent and how to go on.
  std::string setting;
  std::string reason;
  // A cost ceiling is set, tokens were spent and no cost is known for them
  // (the CLI reports none and the policy has no prices for its target): the
  // ceiling cannot see them. Worth a warning; it stops nothing.
  bool cost_unknown = false;
};

// Whether a new attempt of the scope may start, given what the scope has
// spent (the task's totals for limit_scope::task, the run's for run). It
// may not once a ceiling is reached (spent >= ceiling); tokens are checked
// before cost. A run's ceiling is checked before a task's by the caller: a
// reached run ceiling starts nothing more anywhere.
ceiling_check check_ceiling(const usage_limits& limits, limit_scope scope, const token_usage& spent);

// The ceilings for people: "task 2,000,000 tokens or $5.00, run $100.00";
// "" when there are none.
std::string describe_limits(const usage_limits& limits);

// The policy's JSON forms (policy_to_json): {"<target id>": {"input": 3,
// "output": 15, "cache_read": 0.3}} and {"task": {"tokens": N}, "run":
// {"cost_usd": X}}, the set fields only. Parsing is parse_policy's.
json prices_to_json(const std::map<std::string, token_prices>& prices);
// One target's prices, {"input": 3, "output": 15, "cache_read": 0.3}, and
// back (invalid_argument naming the field; the bounds are parse_policy's).
json to_json(const token_prices& prices);
result<token_prices> token_prices_from_json(const json& value);
json limits_to_json(const usage_limits& limits);

} // namespace ad::runtime
