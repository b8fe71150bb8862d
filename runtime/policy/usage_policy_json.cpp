// The policy's "prices" and "limits" sections: validation (for
// parse_policy) and their JSON forms (for policy_to_json).
#include <cmath>

#include "runtime/policy/policy_checker.hpp"
#include "runtime/policy/usage_policy.hpp"

namespace ad::runtime {

namespace {

const std::string price_expected = "a price in US dollars per million tokens, 0.."
                                   + format_token_count(static_cast<int64_t>(max_price_per_million));

bool price(policy_checker& c, const json& v, const std::string& ptr, double& out) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0
      || v.get<double>() > max_price_per_million) {
    c.fail(ptr, price_expected, &v);
    return false;
  }
  out = v.get<double>();
  return true;
}

void parse_ceiling(policy_checker& c, const json& v, const std::string& p, usage_ceiling& out) {
  // Unknown keys are reported, and the known ones checked all the same.
  c.object(v, p, {"tokens", "cost_usd"}, {});
  if (!v.is_object())
    return;
  if (v.contains("tokens")) {
    const json& t = v["tokens"];
    // A whole number written without a fraction or an exponent.
    bool whole = t.is_number_unsigned() || (t.is_number_integer() && t.get<int64_t>() >= 0);
    if (!whole || t.get<uint64_t>() < 1 || t.get<uint64_t>() > static_cast<uint64_t>(max_usage_tokens))
      c.fail(p + "/tokens",
             "a whole number of tokens, 1.." + format_token_count(max_usage_tokens)
               + " (input + output + cache reads + cache writes)",
             &t);
    else
      out.tokens = static_cast<int64_t>(t.get<uint64_t>());
  }
  if (v.contains("cost_usd")) {
    const json& d = v["cost_usd"];
    if (!d.is_number() || !std::isfinite(d.get<double>()) || !(d.get<double>() > 0)
        || d.get<double>() > max_usage_cost_usd)
      c.fail(p + "/cost_usd",
             "a number of US dollars above 0, at most "
               + format_token_count(static_cast<int64_t>(max_usage_cost_usd)),
             &d);
    else
      out.cost_usd = d.get<double>();
  }
}

json ceiling_to_json(const usage_ceiling& c) {
  json out = json::object();
  if (c.tokens)
    out["tokens"] = *c.tokens;
  if (c.cost_usd)
    out["cost_usd"] = *c.cost_usd;
  return out;
}

} // namespace

void parse_prices(policy_checker& c, const json& v, std::map<std::string, token_prices>& out) {
  if (!v.is_object()) {
    c.fail("/prices",
           "an object mapping target id to its prices {\"input\", \"output\", \"cache_read\", "
           "\"cache_write\"} in US dollars per million tokens",
           &v);
    return;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::string p = "/prices/" + escape_pointer_token(it.key());
    const json& t = it.value();
    // Unknown and missing keys are reported, and the others checked all the same.
    bool ok = c.object(t, p, {"input", "output", "cache_read", "cache_write"}, {"input", "output"});
    if (!t.is_object())
      continue;
    token_prices prices;
    if (t.contains("input"))
      ok = price(c, t["input"], p + "/input", prices.input) && ok;
    if (t.contains("output"))
      ok = price(c, t["output"], p + "/output", prices.output) && ok;
    for (auto [key, field] : {std::pair{"cache_read", &prices.cache_read},
                              std::pair{"cache_write", &prices.cache_write}}) {
      double d = 0;
      if (!t.contains(key))
        continue;
      if (price(c, t[key], p + "/" + key, d))
        *field = d;
      else
        ok = false;
    }
    if (ok)
      out[it.key()] = prices;
  }
}

void parse_limits(policy_checker& c, const json& v, usage_limits& out) {
  if (!c.object(v, "/limits", {"task", "run"}, {}))
    return;
  if (v.contains("task"))
    parse_ceiling(c, v["task"], "/limits/task", out.task);
  if (v.contains("run"))
    parse_ceiling(c, v["run"], "/limits/run", out.run);
}

json prices_to_json(const std::map<std::string, token_prices>& prices) {
  json out = json::object();
  for (const auto& [target, p] : prices)
    out[target] = to_json(p);
  return out;
}

json to_json(const token_prices& p) {
  json j = {{"input", p.input}, {"output", p.output}};
  if (p.cache_read)
    j["cache_read"] = *p.cache_read;
  if (p.cache_write)
    j["cache_write"] = *p.cache_write;
  return j;
}

result<token_prices> token_prices_from_json(const json& value) {
  // The policy's own check, on a table of this one entry.
  policy_checker c("token prices");
  std::map<std::string, token_prices> one;
  parse_prices(c, json{{"target", value}}, one);
  if (auto st = c.result(); !st)
    return st;
  return one.at("target");
}

json limits_to_json(const usage_limits& limits) {
  json out = json::object();
  if (!limits.task.empty())
    out["task"] = ceiling_to_json(limits.task);
  if (!limits.run.empty())
    out["run"] = ceiling_to_json(limits.run);
  return out;
}

} // namespace ad::runtime
