#include "runtime/core/status.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

TEST(status, ok_is_cheap_and_has_no_message) {
  status st;
  EXPECT_TRUE(st.is_ok());
  EXPECT_EQ(st.message(), "");
  EXPECT_EQ(st.to_string(), "ok");
}

TEST(status, named_factories_set_predicates) {
  EXPECT_TRUE(status::corruption("x").is_corruption());
  EXPECT_TRUE(status::not_found("x").is_not_found());
  EXPECT_TRUE(status::from_errno("open a", ENOENT).is_not_found());
  EXPECT_TRUE(status::from_errno("open a", EACCES).is_io_error());
  EXPECT_EQ(status::invalid_argument("bad").with_context("plan.md").message(), "plan.md: bad");
}

TEST(result, holds_value_or_error) {
  result<int> good = 4;
  ASSERT_TRUE(good.is_ok());
  EXPECT_EQ(*good, 4);
  result<int> bad = status::conflict("held");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_TRUE(bad.error().is_conflict());
  result<int> misuse = status::ok();
  EXPECT_TRUE(misuse.error().is_internal());
}

} // namespace
} // namespace ad::runtime
