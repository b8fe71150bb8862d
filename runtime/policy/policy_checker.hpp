#pragma once
// Internal to runtime/policy: the validation error collector parse_policy
// and the parsers of its sections share (policy_json.cpp,
// usage_policy_json.cpp). Each error names the source, the JSON pointer,
// what was expected and what was found, one error per line of the final
// invalid_argument. Never throws; one checker per parse.

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/usage_policy.hpp"

namespace ad::runtime {

// A JSON pointer token for key (RFC 6901 escapes: '~' as "~0", '/' as
// "~1"); a key past 80 characters is shown by its first 80 and "...", so an
// error stays short.
std::string escape_pointer_token(std::string_view key);

class policy_checker {
public:
  explicit policy_checker(std::string_view source) : source_(source) {}

  void fail(const std::string& pointer, std::string_view expected, const json* found);
  void fail_text(const std::string& pointer, std::string_view expected, std::string found);

  // An object with only `allowed` keys and every `required` key.
  bool object(const json& v, const std::string& ptr, std::initializer_list<std::string_view> allowed,
              std::initializer_list<std::string_view> required);
  // A string of at most max_chars bytes (docs/limits.md): names and ids
  // by default, policy_max_text_chars for prompts, argv and values.
  bool string(const json& v, const std::string& ptr, std::string& out, bool allow_empty = false,
              std::size_t max_chars = policy_max_name_chars);
  // A key or string value within max_chars; the error gives its length.
  bool short_enough(std::string_view text, const std::string& ptr,
                    std::size_t max_chars = policy_max_name_chars);
  bool integer(const json& v, const std::string& ptr, int& out, int lo, int hi);
  bool number(const json& v, const std::string& ptr, double& out, double lo, std::string_view what);
  bool boolean(const json& v, const std::string& ptr, bool& out);
  bool strings(const json& v, const std::string& ptr, std::vector<std::string>& out,
               bool allow_empty_list, std::size_t max_chars = policy_max_name_chars);
  bool regexes(const std::vector<std::string>& list, const std::string& ptr);

  // OK, or invalid_argument with every error collected, one per line.
  status result() const;

private:
  std::string source_;
  std::vector<std::string> errors_;
};

// The sections parsed in usage_policy_json.cpp: /prices (target ids are
// checked against /targets by parse_policy) and /limits.
void parse_prices(policy_checker& c, const json& v, std::map<std::string, token_prices>& out);
void parse_limits(policy_checker& c, const json& v, usage_limits& out);
// /notify (notify_policy_json.cpp).
void parse_notify(policy_checker& c, const json& v, policy_notify& out);

} // namespace ad::runtime
