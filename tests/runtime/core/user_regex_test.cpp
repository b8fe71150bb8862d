#include "runtime/core/user_regex.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ad::runtime {
namespace {

TEST(user_regex, matches_case_insensitively_anywhere_in_the_text) {
  auto re = user_regex::compile(R"(rate limit|\b429\b)");
  ASSERT_TRUE(re.is_ok()) << re.error().message();
  EXPECT_TRUE(re->search("HTTP 429 Too Many Requests"));
  EXPECT_TRUE(re->search("Rate Limit reached"));
  EXPECT_FALSE(re->search("status 4290"));
  EXPECT_EQ(re->source(), R"(rate limit|\b429\b)");
}

TEST(user_regex, expressions_that_make_a_backtracking_engine_spin_end_at_once) {
  // A backtracking engine takes 2^40 steps here; a ctest timeout would end
  // this test before it did.
  auto nested = user_regex::compile("(a+)+$");
  ASSERT_TRUE(nested.is_ok());
  EXPECT_FALSE(nested->search(std::string(40, 'a') + "!"));
  auto alternation = user_regex::compile("(x|xx)*z");
  ASSERT_TRUE(alternation.is_ok());
  EXPECT_FALSE(alternation->search(std::string(4096, 'x')));
  // A long line is matched without recursion (std::regex overflows its
  // stack on a few hundred kilobytes of `(a|b)*`).
  auto star = user_regex::compile("^(a|b)*c");
  ASSERT_TRUE(star.is_ok());
  EXPECT_TRUE(star->search(std::string(1 << 20, 'a') + "c"));
}

TEST(user_regex, too_long_or_too_big_or_invalid_expressions_are_refused) {
  auto longer = user_regex::compile(std::string(user_regex_max_chars + 1, 'a'));
  ASSERT_FALSE(longer.is_ok());
  EXPECT_TRUE(longer.error().is_invalid_argument());
  EXPECT_NE(longer.error().message().find("more than the limit of 2000"), std::string::npos)
    << longer.error().message();
  auto big = user_regex::compile("((a{100}){100}){100}");
  ASSERT_FALSE(big.is_ok());
  EXPECT_FALSE(big.error().message().empty());
  auto unclosed = user_regex::compile("(unclosed");
  ASSERT_FALSE(unclosed.is_ok());
  EXPECT_NE(unclosed.error().message().find("missing )"), std::string::npos)
    << unclosed.error().message();
  EXPECT_FALSE(user_regex::compile(R"((a)\1)").is_ok()) << "no backreferences";
  EXPECT_FALSE(user_regex::compile("a(?=b)").is_ok()) << "no lookahead";
}

TEST(user_regex, each_match_hands_over_its_first_group) {
  auto re = user_regex::compile(R"(File already exists: (\S+))");
  ASSERT_TRUE(re.is_ok());
  std::vector<std::string> seen;
  bool any = re->for_each_match(
    "file already exists: src/a.cpp; File already exists: src/b.cpp",
    [&](std::optional<std::string_view> g) { seen.push_back(g ? std::string(*g) : "-"); });
  EXPECT_TRUE(any);
  EXPECT_EQ(seen, (std::vector<std::string>{"src/a.cpp;", "src/b.cpp"}));

  auto no_group = user_regex::compile("exists");
  ASSERT_TRUE(no_group.is_ok());
  seen.clear();
  no_group->for_each_match("exists exists", [&](std::optional<std::string_view> g) {
    seen.push_back(g ? std::string(*g) : "-");
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"-", "-"}));

  auto optional_group = user_regex::compile("missing( \\S+)?");
  ASSERT_TRUE(optional_group.is_ok());
  seen.clear();
  optional_group->for_each_match("missing", [&](std::optional<std::string_view> g) {
    seen.push_back(g ? std::string(*g) : "-");
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"-"}));
}

TEST(user_regex, empty_matches_move_on_and_the_count_is_capped) {
  auto re = user_regex::compile("x*");
  ASSERT_TRUE(re.is_ok());
  int calls = 0;
  EXPECT_TRUE(re->for_each_match(std::string(1000, 'y'), [&](auto) { ++calls; }, 64));
  EXPECT_EQ(calls, 64);
  calls = 0;
  re->for_each_match("yy", [&](auto) { ++calls; });
  EXPECT_EQ(calls, 3) << "before, between and after the two y";
}

} // namespace
} // namespace ad::runtime
