#pragma once
// One fuzz target, built two ways from the same body:
// - the libFuzzer build (tools/fuzz.sh, AD_LIBFUZZER defined): the body is
//   the target's LLVMFuzzerTestOneInput;
// - the test suite: the body registers under its name, and fuzz_corpus_test
//   runs it over the target's seeds and kept inputs (tests/fuzz/corpus/).
// A body returns 0 and checks its invariants with fuzz_require, which prints
// what broke and aborts: libFuzzer then keeps the input as a crash, and the
// test suite fails.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

namespace ad::fuzz {

using target_fn = int (*)(std::string_view input);

inline std::map<std::string, target_fn>& registry() {
  static std::map<std::string, target_fn> targets;
  return targets;
}

inline bool register_target(const char* name, target_fn fn) {
  registry()[name] = fn;
  return true;
}

inline void fuzz_require(bool ok, std::string_view what) {
  if (ok)
    return;
  std::fprintf(stderr, "fuzz invariant broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

// An error a person will read names what was wrong in plain words, never
// a library's internal tag ("[json.exception.type_error.302]": the whole
// tag, its kind and its number). An error may quote the input it refuses,
// even twice (a regular expression's value and RE2's fragment of it), so
// the input's text alone is no tag; and a tag counts only when the message
// shows it more often than the input holds it.
inline size_t count_tags(std::string_view text) {
  constexpr std::string_view tag = "[json.exception.";
  auto is_kind = [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; };
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t n = 0;
  for (auto at = text.find(tag); at != std::string_view::npos; at = text.find(tag, at + 1)) {
    size_t i = at + tag.size();
    size_t kind = i;
    while (i < text.size() && is_kind(text[i]))
      ++i;
    if (i == kind || i >= text.size() || text[i] != '.')
      continue;
    size_t number = ++i;
    while (i < text.size() && is_digit(text[i]))
      ++i;
    if (i > number && i < text.size() && text[i] == ']')
      ++n;
  }
  return n;
}

inline void fuzz_require_plain(std::string_view message, std::string_view input) {
  fuzz_require(count_tags(message) <= count_tags(input),
               std::string("an error shows a library's internal tag: ") + std::string(message));
}

} // namespace ad::fuzz

#ifdef AD_LIBFUZZER
#define AD_FUZZ_TARGET(name)                                                            \
  static int ad_fuzz_##name(std::string_view input);                                    \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {             \
    return ad_fuzz_##name(std::string_view(reinterpret_cast<const char*>(data), size)); \
  }                                                                                     \
  static int ad_fuzz_##name(std::string_view input)
#else
#define AD_FUZZ_TARGET(name)                                                      \
  static int ad_fuzz_##name(std::string_view input);                              \
  [[maybe_unused]] static const bool ad_fuzz_registered_##name =                  \
    ::ad::fuzz::register_target(#name, &ad_fuzz_##name);                          \
  static int ad_fuzz_##name(std::string_view input)
#endif
