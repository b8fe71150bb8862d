#include "runtime/workspace/review_verdict.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/workspace/fixtures.hpp"

namespace ad::runtime {
namespace {

struct verdict_case {
  const char* file;
  std::optional<review_verdict> verdict;
  verdict_absence absence;
};

TEST(review_verdict, fixture_files_follow_the_schema_and_ambiguity_rules) {
  const verdict_case cases[] = {
      {"inline_pass.md", review_verdict::pass, verdict_absence::none},
      {"list_bold_warn.md", review_verdict::warn, verdict_absence::none},
      {"bold_label_fail.md", review_verdict::fail, verdict_absence::none},
      {"heading_block.md", review_verdict::pass, verdict_absence::none},
      {"korean_inline.md", review_verdict::fail, verdict_absence::none},
      {"korean_block.md", review_verdict::warn, verdict_absence::none},
      {"none_no_section.md", std::nullopt, verdict_absence::no_section},
      {"none_two_headings.md", std::nullopt, verdict_absence::several_sections},
      {"none_two_verdicts.md", std::nullopt, verdict_absence::several_verdicts},
      {"none_inline_and_block.md", std::nullopt, verdict_absence::several_verdicts},
      {"none_mixed_schemas.md", std::nullopt, verdict_absence::mixed_schemas},
      {"none_wrong_label_for_schema.md", std::nullopt, verdict_absence::no_verdict_line},
      {"none_lowercase_verdict.md", std::nullopt, verdict_absence::no_verdict_line},
      {"none_trailing_text.md", std::nullopt, verdict_absence::no_verdict_line},
      {"none_block_indented.md", std::nullopt, verdict_absence::no_verdict_line},
      {"none_pending.md", std::nullopt, verdict_absence::no_verdict_line},
  };
  for (const auto& c : cases) {
    auto r = read_review_verdict_file(fixture("verdicts") / c.file);
    EXPECT_EQ(r.verdict, c.verdict) << c.file;
    EXPECT_EQ(r.absence, c.absence) << c.file << ": " << to_string(r.absence);
  }
}

TEST(review_verdict, verdict_outside_the_section_does_not_count) {
  auto r = read_verdict("Overall Verdict: PASS\n\n## Code Review Result\n\nOverall Verdict: FAIL\n");
  EXPECT_EQ(r.verdict, review_verdict::fail);
  auto sub = read_verdict("## Code Review Result\n### Notes\nOverall Verdict: PASS\n## Next\n");
  EXPECT_EQ(sub.verdict, review_verdict::pass);
}

TEST(review_verdict, unreadable_and_binary_input) {
  EXPECT_EQ(read_review_verdict_file("/nonexistent/review.md").absence,
            verdict_absence::unreadable);
  EXPECT_FALSE(read_verdict(std::string("\xff\xfe## Code Review Result\n\0\0", 26)).verdict);
  EXPECT_EQ(read_verdict("## Code Review Result\n\xff Overall Verdict: PASS\n").absence,
            verdict_absence::no_verdict_line);
}

} // namespace
} // namespace ad::runtime
