#include "runtime/policy/usage_policy.hpp"

#include <algorithm>

namespace ad::runtime {

namespace {

// Cost of n tokens at a price per million; a price is required only for a
// count above zero.
bool add_cost(double& sum, const std::optional<int64_t>& n, const std::optional<double>& price) {
  if (!n || *n == 0)
    return true;
  if (!price)
    return false;
  sum += static_cast<double>(*n) / 1e6 * *price;
  return true;
}

std::string pointer_of(limit_scope scope, std::string_view what) {
  return "/limits/" + std::string(to_string(scope)) + "/" + std::string(what);
}

std::string how_to_go_on(limit_scope scope, const std::string& setting) {
  std::string out = "raise " + setting + " in the policy (agent-dispatch.json or --policy)";
  out += scope == limit_scope::task ? ", then run again with --retry-blocked"
                                    : ", then run again (with --retry-blocked for the tasks it blocked)";
  return out;
}

} // namespace

std::optional<double> cost_from_prices(const token_usage& u, const token_prices& p) {
  if (!u.input_tokens || !u.output_tokens)
    return std::nullopt;
  double sum = 0;
  if (!add_cost(sum, u.input_tokens, p.input) || !add_cost(sum, u.output_tokens, p.output)
      || !add_cost(sum, u.cache_read_tokens, p.cache_read)
      || !add_cost(sum, u.cache_write_tokens, p.cache_write))
    return std::nullopt;
  return std::min(sum, max_usage_cost_usd);
}

token_usage priced_usage(token_usage u, const token_prices* prices) {
  if (u.cost_usd || prices == nullptr)
    return u;
  u.cost_usd = cost_from_prices(u, *prices);
  return u;
}

std::string_view to_string(limit_scope s) { return s == limit_scope::run ? "run" : "task"; }

std::string describe_limits(const usage_limits& limits) {
  std::string out;
  for (auto scope : {limit_scope::task, limit_scope::run}) {
    const usage_ceiling& c = scope == limit_scope::run ? limits.run : limits.task;
    if (c.empty())
      continue;
    std::string text(to_string(scope));
    if (c.tokens)
      text += " " + format_token_count(*c.tokens) + " tokens";
    if (c.cost_usd)
      text += (c.tokens ? " or " : " ") + format_usd(*c.cost_usd);
    out += (out.empty() ? "" : ", ") + text;
  }
  return out;
}

ceiling_check check_ceiling(const usage_limits& limits, limit_scope scope, const token_usage& spent) {
  const usage_ceiling& ceiling = scope == limit_scope::run ? limits.run : limits.task;
  ceiling_check out;
  std::string_view who = to_string(scope);
  auto tokens = counted_tokens(spent);
  if (ceiling.tokens && tokens && *tokens >= *ceiling.tokens) {
    out.may_start = false;
    out.setting = pointer_of(scope, "tokens");
    out.reason = std::string(who) + " token ceiling reached: " + format_token_count(*tokens)
                 + " tokens spent, " + out.setting + " is " + format_token_count(*ceiling.tokens) + "; "
                 + how_to_go_on(scope, out.setting);
    return out;
  }
  if (ceiling.cost_usd) {
    if (spent.cost_usd && *spent.cost_usd >= *ceiling.cost_usd) {
      out.may_start = false;
      out.setting = pointer_of(scope, "cost_usd");
      out.reason = std::string(who) + " cost ceiling reached: " + format_usd(*spent.cost_usd) + " spent, "
                   + out.setting + " is " + format_usd(*ceiling.cost_usd) + "; "
                   + how_to_go_on(scope, out.setting);
      return out;
    }
    out.cost_unknown = !spent.cost_usd && tokens && *tokens > 0;
  }
  return out;
}

} // namespace ad::runtime
