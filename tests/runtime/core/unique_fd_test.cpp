#include "runtime/core/unique_fd.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

// A descriptor is closed once, by whoever owns it last: a move hands it on,
// an assignment closes what the target held, release hands it out unclosed.
TEST(unique_fd, closes_what_it_owns_once_and_hands_it_on) {
  int first = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int second = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(first, 0);
  ASSERT_GE(second, 0);
  {
    unique_fd a(first);
    unique_fd b(std::move(a));
    EXPECT_EQ(a.get(), -1);
    EXPECT_EQ(b.get(), first);
    unique_fd c(second);
    c = std::move(b);
    EXPECT_FALSE(is_open(second));
    EXPECT_TRUE(is_open(first));
    EXPECT_EQ(c.get(), first);
  }
  EXPECT_FALSE(is_open(first));

  int third = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  {
    unique_fd d(third);
    EXPECT_EQ(d.release(), third);
    EXPECT_EQ(d.get(), -1);
  }
  EXPECT_TRUE(is_open(third));
  ::close(third);
}

} // namespace
} // namespace ad::runtime
