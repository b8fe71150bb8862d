#pragma once
// Review verdicts (SPEC section 2). A CODE_REVIEW file or review log holds
// exactly one `## Code Review Result` section with exactly one verdict, written
// as a line `Overall Verdict: PASS|WARN|FAIL` (optionally a `- ` list item,
// optionally with the label in `**bold**`) or as a `### Overall Verdict`
// heading followed by the verdict line (optionally bold). The legacy Korean
// schema (`## 코드리뷰 결과` with `종합 판정`) is accepted; a heading accepts
// only its own schema's label. Anything ambiguous is no verdict: two result
// headings, headings of both schemas, two verdicts in the section. Pure
// functions; read_review_verdict_file reads with a cap and reports unreadable
// files as no verdict with a reason.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ad::runtime {

enum class review_verdict : uint8_t { pass, warn, fail };

std::string_view to_string(review_verdict verdict);

// Why a text has no verdict (for diagnostics and tests).
enum class verdict_absence : uint8_t {
  none,              // a verdict was found
  no_section,        // no result heading of either schema
  several_sections,  // a schema's heading twice
  mixed_schemas,     // English and Korean result headings together
  no_verdict_line,   // the section holds no verdict
  several_verdicts,  // the section holds more than one verdict
  unreadable,        // the file could not be read
};

std::string_view to_string(verdict_absence absence);

struct verdict_reading {
  std::optional<review_verdict> verdict;
  verdict_absence absence = verdict_absence::no_section;
};

verdict_reading read_verdict(std::string_view text);

inline constexpr std::size_t max_review_bytes = 4u << 20;
verdict_reading read_review_verdict_file(const std::filesystem::path& path);
// The same for a file of a folder held open as folder_fd (read_file_at; or
// read_listed_file_at when the folder's listing showed a regular file).
verdict_reading read_review_verdict_file_at(int folder_fd, const std::filesystem::path& path,
                                            bool listed_regular = false);

} // namespace ad::runtime
