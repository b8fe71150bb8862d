#include "runtime/workspace/plan_header.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(plan_header, parses_the_identity_comment_and_builds_the_work_unit_id) {
  auto h = parse_plan_header("<!-- task=auth/02+01_api plan=3 tag=retry-2 -->\n# PLAN\n");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->task, "auth/02+01_api");
  EXPECT_EQ(h->plan, "3");
  EXPECT_EQ(h->tag, "retry-2");
  EXPECT_EQ(h->work_unit_id(), "auth/02+01_api::plan-3::tag-retry-2");
  auto tight = parse_plan_header("intro\n<!--task=solo plan=1 tag=x-->");
  ASSERT_TRUE(tight);
  EXPECT_EQ(tight->tag, "x");
}

TEST(plan_header, malformed_headers_are_not_headers) {
  for (const char* bad : {"<!-- task=a plan=x tag=t -->", "<!-- task=a tag=t plan=1 -->",
                          "<!-- task=a plan=1 -->", "<!-- task=a plan=1 tag= -->",
                          "<!-- task=a plan=1 tag=t", "task=a plan=1 tag=t", ""})
    EXPECT_FALSE(parse_plan_header(bad)) << bad;
  // A bad comment first does not hide a good one after it.
  EXPECT_TRUE(parse_plan_header("<!-- note -->\n<!-- task=a plan=1 tag=t -->"));
}

TEST(plan_header, must_lie_within_the_first_1024_bytes) {
  std::string header = "<!-- task=a plan=1 tag=t -->";
  EXPECT_TRUE(parse_plan_header(std::string(1024 - header.size(), ' ') + header));
  EXPECT_FALSE(parse_plan_header(std::string(1025 - header.size(), ' ') + header));
}

TEST(plan_header, identity_key_changes_with_the_header_not_the_body) {
  test::temp_dir dir;
  auto a = dir.write("a.md", "<!-- task=a plan=1 tag=t -->\nbody one\n");
  auto b = dir.write("b.md", "<!-- task=a plan=1 tag=t -->\nbody two\n");
  auto c = dir.write("c.md", "<!-- task=a plan=2 tag=t -->\nbody one\n");
  auto d = dir.write("d.md", "no header\n");
  EXPECT_EQ(plan_identity_key(a), plan_identity_key(b));
  EXPECT_NE(plan_identity_key(a), plan_identity_key(c));
  EXPECT_EQ(plan_identity_key(a).rfind("meta:", 0), 0u);
  EXPECT_EQ(plan_identity_key(d).size(), 64u);
  EXPECT_EQ(plan_identity_key(dir.path() / "missing.md"), "none");
  EXPECT_TRUE(read_plan_header_file(dir.path() / "missing.md").error().is_not_found());
}

TEST(plan_header, the_key_of_a_text_read_already_is_the_key_of_its_file) {
  test::temp_dir dir;
  for (std::string text : {"<!-- task=a plan=1 tag=t -->\nbody\n", "no header\n", ""}) {
    auto path = dir.write("p.md", text);
    EXPECT_EQ(plan_identity_key_of(parse_plan_header(text), text), plan_identity_key(path))
      << text;
  }
}

} // namespace
} // namespace ad::runtime
