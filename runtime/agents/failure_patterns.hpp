#pragma once
// The failure pattern table as data: each entry names a failure class and the
// regular expressions (RE2 syntax, runtime/core/user_regex.hpp: linear-time,
// matched case-insensitively against one terminal diagnostic line) that put a failed attempt into that class.
// Table order is priority order: for one line, the first class with a
// matching expression wins. The policy module loads overrides from JSON into
// std::vector<failure_pattern>; compile_failure_patterns turns a table into
// precompiled matchers once, so classification never compiles a regex.
// Errors: compile_failure_patterns returns invalid_argument naming the class
// and the expression that does not compile (or an empty class name). A
// compiled table is immutable and may be shared between threads.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/core/user_regex.hpp"

namespace ad::runtime {

struct failure_pattern {
  std::string failure_class;
  std::vector<std::string> regexes;
};

// The five classes of SPEC section 6, in priority order: context-limit,
// provider-quota, model-unavailable, provider-connection,
// provider-stream-disconnect.
std::vector<failure_pattern> default_failure_patterns();

struct pattern_match {
  std::string failure_class;
  std::string regex; // the expression that matched
};

class compiled_failure_patterns {
public:
  compiled_failure_patterns() = default;
  // First class (in table order) with an expression matching line.
  std::optional<pattern_match> match(std::string_view line) const;
  // Whether one named class matches line.
  bool matches_class(std::string_view failure_class, std::string_view line) const;
  // Class names in table order.
  std::vector<std::string> classes() const;
  bool empty() const { return entries_.empty(); }

private:
  friend result<compiled_failure_patterns> compile_failure_patterns(
    const std::vector<failure_pattern>& table);
  struct entry {
    std::string failure_class;
    std::vector<user_regex> regexes;
  };
  std::vector<entry> entries_;
};

result<compiled_failure_patterns> compile_failure_patterns(
  const std::vector<failure_pattern>& table);

// The compiled default table (compiled once, on first use).
const compiled_failure_patterns& default_compiled_failure_patterns();

// The table a run classifies with, as the policy gives it: an empty table
// is the default one; any other is compiled (compile_failure_patterns'
// errors). One decision for `run` and `replay`.
result<compiled_failure_patterns> policy_failure_patterns(const std::vector<failure_pattern>& table);

} // namespace ad::runtime
