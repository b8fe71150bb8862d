#include "runtime/core/token_usage.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace ad::runtime {

namespace {

using count_field = std::optional<int64_t> token_usage::*;

struct named_count {
  const char* key;
  count_field field;
  const char* label; // usage_summary
};

constexpr std::array<named_count, 5> count_fields{{
  {"input_tokens", &token_usage::input_tokens, "in"},
  {"output_tokens", &token_usage::output_tokens, "out"},
  {"cache_read_tokens", &token_usage::cache_read_tokens, "cache read"},
  {"cache_write_tokens", &token_usage::cache_write_tokens, "cache write"},
  {"reasoning_tokens", &token_usage::reasoning_tokens, "reasoning"},
}};

// Both operands are in 0..max_usage_tokens, so the sum cannot overflow.
int64_t add_counts(int64_t a, int64_t b) { return std::min(a + b, max_usage_tokens); }

double add_costs(double a, double b) { return std::min(a + b, max_usage_cost_usd); }

template <class T, class Add>
void add_field(std::optional<T>& to, const std::optional<T>& from, Add add) {
  if (!from)
    return;
  to = to ? add(*to, *from) : *from;
}

result<int64_t> count_of(const json& v, const char* key) {
  auto bad = [&](const std::string& what) {
    return status::invalid_argument(std::string("usage: \"") + key + "\" " + what);
  };
  // A number with a fraction or an exponent is no count (runtime/core/json.hpp).
  if (v.is_number_unsigned()) {
    auto n = v.get<uint64_t>();
    if (n > static_cast<uint64_t>(max_usage_tokens))
      return bad("is " + v.dump() + ", more than " + std::to_string(max_usage_tokens));
    return static_cast<int64_t>(n);
  }
  if (v.is_number_integer()) {
    auto n = v.get<int64_t>();
    if (n < 0)
      return bad("is " + v.dump() + ", a count cannot be negative");
    return n;
  }
  if (v.is_number_float())
    return bad("holds " + v.dump() + " where a whole number of tokens belongs");
  return bad(std::string("has the wrong type (") + v.type_name() + "), expected a whole number of tokens");
}

result<double> cost_of(const json& v) {
  if (!v.is_number())
    return status::invalid_argument(std::string("usage: \"cost_usd\" has the wrong type (") + v.type_name()
                                    + "), expected a number of US dollars");
  double d = v.get<double>();
  if (!std::isfinite(d) || d < 0 || d > max_usage_cost_usd)
    return status::invalid_argument("usage: \"cost_usd\" is " + v.dump() + ", expected 0.."
                                    + format_token_count(static_cast<int64_t>(max_usage_cost_usd))
                                    + " US dollars");
  return d;
}

} // namespace

bool token_usage::empty() const noexcept {
  for (const auto& f : count_fields)
    if (this->*f.field)
      return false;
  return !cost_usd;
}

token_usage& token_usage::operator+=(const token_usage& other) noexcept {
  for (const auto& f : count_fields)
    add_field(this->*f.field, other.*f.field, add_counts);
  add_field(cost_usd, other.cost_usd, add_costs);
  return *this;
}

std::optional<int64_t> counted_tokens(const token_usage& u) noexcept {
  std::optional<int64_t> sum;
  for (const auto* f : {&u.input_tokens, &u.output_tokens, &u.cache_read_tokens, &u.cache_write_tokens})
    add_field(sum, *f, add_counts);
  return sum;
}

json usage_to_json(const token_usage& u) {
  json out = json::object();
  for (const auto& f : count_fields)
    if (u.*f.field)
      out[f.key] = *(u.*f.field);
  if (u.cost_usd)
    out["cost_usd"] = *u.cost_usd;
  return out;
}

result<token_usage> usage_from_json(const json& value) {
  if (!value.is_object())
    return status::invalid_argument(std::string("usage: expected an object, found ") + value.type_name());
  token_usage u;
  for (const auto& f : count_fields) {
    auto it = value.find(f.key);
    if (it == value.end())
      continue;
    auto n = count_of(*it, f.key);
    if (!n)
      return n.error();
    u.*f.field = *n;
  }
  if (auto it = value.find("cost_usd"); it != value.end()) {
    auto c = cost_of(*it);
    if (!c)
      return c.error();
    u.cost_usd = *c;
  }
  return u;
}

std::string format_token_count(int64_t n) {
  // Through the unsigned value, so that the most negative number has a text too.
  uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_usd(double usd) {
  char buf[64];
  std::snprintf(buf, sizeof buf, usd >= 1 || usd == 0 ? "$%.2f" : "$%.4f", usd);
  return buf;
}

std::string usage_summary(const token_usage& u) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : " · ") + part; };
  for (const auto& f : count_fields)
    // Tokens in and out as reported; the cache and reasoning counts only
    // when there are some (a CLI that reports them as 0 says nothing).
    if (u.*f.field && (*(u.*f.field) != 0 || f.field == &token_usage::input_tokens ||
                       f.field == &token_usage::output_tokens))
      add(format_token_count(*(u.*f.field)) + " " + f.label);
  if (u.cost_usd)
    add(format_usd(*u.cost_usd));
  return out;
}

} // namespace ad::runtime
