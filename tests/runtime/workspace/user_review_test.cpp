#include "runtime/workspace/user_review.hpp"

#include "runtime/workspace/markdown.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/workspace/fixtures.hpp"

namespace ad::runtime {
namespace {

TEST(user_review, complete_stop_requests_in_both_languages) {
  auto en = read_user_review_file(fixture("user_review/complete_english.md"));
  EXPECT_TRUE(en.is_stop_request()) << en.missing_summary();
  EXPECT_EQ(en.type, user_review_type::milestone_lock);
  EXPECT_EQ(en.target, "agent-roadmap/2026/milestones/m3.md");
  ASSERT_EQ(en.actions.size(), 1u);

  auto ko = read_user_review_file(fixture("user_review/complete_korean.md"));
  EXPECT_TRUE(ko.is_stop_request()) << ko.missing_summary();
  EXPECT_EQ(ko.type, user_review_type::external_execution);
}

TEST(user_review, each_missing_part_is_named) {
  const std::pair<const char*, user_review_part> cases[] = {
      {"missing_status.md", user_review_part::status},
      {"duplicated_status.md", user_review_part::status},
      {"missing_type.md", user_review_part::type},
      {"two_types.md", user_review_part::type},
      {"missing_target.md", user_review_part::target},
      {"milestone_not_roadmap.md", user_review_part::milestone_path},
      {"missing_evidence.md", user_review_part::evidence},
      {"missing_action.md", user_review_part::action},
      {"duplicated_action.md", user_review_part::action_duplicated},
      {"missing_resume.md", user_review_part::resume},
  };
  for (const auto& [file, part] : cases) {
    auto r = read_user_review_file(fixture("user_review") / file);
    ASSERT_EQ(r.missing.size(), 1u) << file << ": " << r.missing_summary();
    EXPECT_EQ(r.missing.front(), part) << file;
    EXPECT_FALSE(r.is_stop_request());
    EXPECT_EQ(r.missing_summary(), describe(part)) << file;
  }
}

TEST(user_review, concrete_values) {
  for (const char* v : {"", " ", "-", "n/a", "N/A", "none", "Unknown", "`none`", "- ", "<target>",
                        "{path}", "미정", "없음", "해당 없음"})
    EXPECT_FALSE(is_concrete_value(v)) << v;
  for (const char* v : {"deploy/prod.sh", "- run the job", "a < b", "{}", "`x`"})
    EXPECT_TRUE(is_concrete_value(v)) << v;
}

TEST(user_review, empty_and_unreadable_files_list_what_is_missing) {
  auto empty = read_user_review("");
  EXPECT_EQ(empty.missing.size(), 6u) << empty.missing_summary();
  auto unreadable = read_user_review_file("/nonexistent/USER_REVIEW.md");
  ASSERT_EQ(unreadable.missing.size(), 1u);
  EXPECT_EQ(unreadable.missing.front(), user_review_part::file);
  EXPECT_NE(unreadable.missing_summary().find("cannot be read"), std::string::npos);
}

} // namespace
} // namespace ad::runtime
