#include "runtime/core/shared_value.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

using names = shared_value<std::vector<std::string>>;

TEST(shared_value, an_empty_holder_reads_as_an_empty_value) {
  names none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_EQ(none, names(std::vector<std::string>{}));
}

// Copies share one value; a change through one holder copies it first, so
// the other keeps what it had, and the two are no longer the same value.
TEST(shared_value, copies_share_the_value_until_one_changes_it) {
  names a{std::string("x"), std::string("y")};
  names b = a;
  EXPECT_TRUE(b.shares_with(a));
  EXPECT_EQ(&a.get(), &b.get());

  b.modify().push_back("z");
  EXPECT_FALSE(b.shares_with(a));
  EXPECT_EQ(a.get(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.get(), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_NE(a, b);
  EXPECT_EQ(b.back(), "z");
  EXPECT_EQ(b[0], "x");
  EXPECT_EQ(b.at(1), "y");
  EXPECT_THROW((void)b.at(3), std::out_of_range);
}

// Equal by content, whether or not the two hold the same value.
TEST(shared_value, holders_compare_by_their_values) {
  names a{std::string("x")};
  names b{std::string("x")};
  EXPECT_FALSE(a.shares_with(b));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<std::string>{"x"}));
  b = std::vector<std::string>{"w"};
  EXPECT_NE(a, b);
  const std::vector<std::string>& seen = a;
  EXPECT_EQ(seen.front(), "x");
}

} // namespace
} // namespace ad::runtime
