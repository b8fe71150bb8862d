#pragma once
// Regular expressions that come from user data (the policy's failure and
// tactical patterns), and the fixed ones the code matches against agent
// output (reset times, diagnostics: fixed_regex). They run on RE2:
// matching takes time linear in the text and uses no recursion, so no
// pattern, however written, can hang the dispatcher or overflow its stack
// (a backtracking engine spins for ever on `(a+)+$` against forty `a`s and a
// `!`). The syntax is RE2's (docs/policy.md): what ECMAScript and RE2 share,
// without backreferences or lookaround. Matching is case-insensitive.
// A pattern longer than user_regex_max_chars, or whose compiled program
// needs more than user_regex_max_memory, is refused (docs/limits.md).
// Errors: compile returns invalid_argument naming what is wrong. A compiled
// expression is immutable and may be shared between threads.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace re2 {
class RE2;
}

namespace ad::runtime {

inline constexpr std::size_t user_regex_max_chars = 2000;
inline constexpr int64_t user_regex_max_memory = 1 << 20; // bytes for the compiled program

class user_regex {
public:
  static result<user_regex> compile(std::string_view source);

  // Whether the expression matches somewhere in text.
  bool search(std::string_view text) const;
  // Calls on_match for each match, left to right and not overlapping, at
  // most max_matches times, with the text of capture group 1 (nullopt when
  // the expression has no group 1 or it did not take part). Returns whether
  // there was a match.
  bool for_each_match(std::string_view text,
                      const std::function<void(std::optional<std::string_view>)>& on_match,
                      std::size_t max_matches = 64) const;

  enum class anchor : uint8_t { anywhere, at_start };
  // Every capture group of the first match that starts at `from` or later
  // (at `from` exactly with anchor::at_start); element 0 is the whole
  // match, element i nullopt when group i took no part. Empty when nothing
  // matches. A `^` in the expression matches only at the start of text.
  std::vector<std::optional<std::string_view>> match(std::string_view text, std::size_t from = 0,
                                                     anchor where = anchor::anywhere) const;

  const std::string& source() const { return source_; }

private:
  std::shared_ptr<const re2::RE2> re_;
  std::string source_;
};

// A fixed expression of the code (not user data), compiled once; one that
// does not compile is a programming error and aborts at first use.
user_regex fixed_regex(std::string_view source);

} // namespace ad::runtime
