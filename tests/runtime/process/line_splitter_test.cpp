#include "runtime/process/line_splitter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ad::runtime {
namespace {

struct emitted {
  std::string text;
  line_cut cut;
  uint64_t dropped;
};

struct collector {
  std::vector<emitted> out;
  auto fn() {
    return [this](std::string&& t, line_cut c, uint64_t d) { out.push_back({std::move(t), c, d}); };
  }
};

TEST(line_splitter, splits_lines_across_chunks) {
  line_splitter s(100);
  collector c;
  s.feed("ab", c.fn());
  s.feed("c\nde", c.fn());
  s.feed("\n\nf", c.fn());
  ASSERT_EQ(c.out.size(), 3u);
  EXPECT_EQ(c.out[0].text, "abc");
  EXPECT_EQ(c.out[1].text, "de");
  EXPECT_EQ(c.out[2].text, "");
  EXPECT_TRUE(s.holds_partial_line());
  s.finish(c.fn());
  ASSERT_EQ(c.out.size(), 4u);
  EXPECT_EQ(c.out[3].text, "f");
  EXPECT_EQ(c.out[3].cut, line_cut::whole);
}

TEST(line_splitter, cuts_a_long_line_at_the_cap_and_counts_the_rest) {
  line_splitter s(4);
  collector c;
  s.feed("abcdefg", c.fn());
  s.feed("hij\nok\n", c.fn());
  ASSERT_EQ(c.out.size(), 2u);
  EXPECT_EQ(c.out[0].text, "abcd");
  EXPECT_EQ(c.out[0].cut, line_cut::truncated);
  EXPECT_EQ(c.out[0].dropped, 6u);
  EXPECT_EQ(c.out[1].text, "ok");
  EXPECT_EQ(c.out[1].cut, line_cut::whole);
  EXPECT_EQ(c.out[1].dropped, 0u);
}

TEST(line_splitter, a_line_exactly_at_the_cap_is_whole) {
  line_splitter s(3);
  collector c;
  s.feed("abc\n", c.fn());
  ASSERT_EQ(c.out.size(), 1u);
  EXPECT_EQ(c.out[0].cut, line_cut::whole);
}

TEST(line_splitter, finish_without_partial_line_emits_nothing) {
  line_splitter s(8);
  collector c;
  s.feed("x\n", c.fn());
  s.finish(c.fn());
  EXPECT_EQ(c.out.size(), 1u);
}

TEST(line_splitter, keeps_binary_bytes) {
  line_splitter s(16);
  collector c;
  std::string data("\0\xff\x01\r\n", 5);
  s.feed(data, c.fn());
  ASSERT_EQ(c.out.size(), 1u);
  EXPECT_EQ(c.out[0].text, std::string("\0\xff\x01\r", 4));
}

} // namespace
} // namespace ad::runtime
