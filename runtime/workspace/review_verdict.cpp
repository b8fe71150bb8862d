#include "runtime/workspace/review_verdict.hpp"

#include <array>
#include <fcntl.h>
#include <vector>

#include "runtime/core/files.hpp"
#include "runtime/core/text.hpp"
#include "runtime/workspace/markdown.hpp"

namespace ad::runtime {

namespace {

struct verdict_schema {
  std::string_view heading;
  std::string_view label;
};

constexpr std::array<verdict_schema, 2> schemas = {{
    {"Code Review Result", "Overall Verdict"},
    {"코드리뷰 결과", "종합 판정"},
}};

void skip_ws(std::string_view& s) { // \s*: may cross line ends
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
}

std::optional<review_verdict> eat_verdict(std::string_view& s) {
  if (eat(s, "PASS"))
    return review_verdict::pass;
  if (eat(s, "WARN"))
    return review_verdict::warn;
  if (eat(s, "FAIL"))
    return review_verdict::fail;
  return std::nullopt;
}

// `[ \t]*` then end of line or end of text.
bool at_line_end(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  return s.empty() || s.front() == '\n';
}

// `(-\s*)?(\*\*)?<label>(\*\*)?\s*:\s*(PASS|WARN|FAIL)[ \t]*$` at the start of s.
std::optional<review_verdict> inline_verdict_at(std::string_view s, std::string_view label) {
  if (eat(s, "-"))
    skip_ws(s);
  eat(s, "**");
  if (!eat(s, label))
    return std::nullopt;
  eat(s, "**");
  skip_ws(s);
  if (!eat(s, ":"))
    return std::nullopt;
  skip_ws(s);
  auto verdict = eat_verdict(s);
  if (!verdict || !at_line_end(s))
    return std::nullopt;
  return verdict;
}

// `###\s+<label>[ \t]*$\s*^(\*\*)?(PASS|WARN|FAIL)(\*\*)?[ \t]*$` at the start of s.
std::optional<review_verdict> block_verdict_at(std::string_view s, std::string_view label) {
  if (!eat(s, "###") || s.empty() || !is_space(s.front()))
    return std::nullopt;
  skip_ws(s);
  if (!eat(s, label) || !at_line_end(s))
    return std::nullopt;
  // Skip to the first line that is not blank; it must be the verdict line.
  while (true) {
    auto nl = s.find('\n');
    if (nl == std::string_view::npos)
      return std::nullopt;
    s.remove_prefix(nl + 1);
    if (!trim(s.substr(0, s.find('\n'))).empty())
      break;
  }
  eat(s, "**");
  auto verdict = eat_verdict(s);
  if (!verdict)
    return std::nullopt;
  eat(s, "**");
  if (!at_line_end(s))
    return std::nullopt;
  return verdict;
}

} // namespace

std::string_view to_string(review_verdict verdict) {
  switch (verdict) {
  case review_verdict::pass: return "PASS";
  case review_verdict::warn: return "WARN";
  case review_verdict::fail: return "FAIL";
  }
  return "?";
}

std::string_view to_string(verdict_absence absence) {
  switch (absence) {
  case verdict_absence::none: return "verdict present";
  case verdict_absence::no_section: return "no Code Review Result section";
  case verdict_absence::several_sections: return "more than one Code Review Result section";
  case verdict_absence::mixed_schemas: return "English and Korean result sections mixed";
  case verdict_absence::no_verdict_line: return "no verdict line in the Code Review Result section";
  case verdict_absence::several_verdicts: return "more than one verdict in the Code Review Result section";
  case verdict_absence::unreadable: return "review file unreadable";
  }
  return "?";
}

verdict_reading read_verdict(std::string_view text) {
  verdict_reading out;
  const verdict_schema* selected = nullptr;
  std::vector<markdown_section_span> found;
  for (const auto& schema : schemas) {
    auto sections = find_sections(text, {schema.heading});
    if (sections.empty())
      continue;
    if (selected != nullptr) {
      out.absence = verdict_absence::mixed_schemas;
      return out;
    }
    if (sections.size() != 1) {
      out.absence = verdict_absence::several_sections;
      return out;
    }
    selected = &schema;
    found = std::move(sections);
  }
  if (selected == nullptr)
    return out;

  // Rebuild the section body as contiguous text so multi-line forms match.
  const auto& body = found.front().body;
  std::vector<review_verdict> verdicts;
  if (!body.empty()) {
    const char* begin = body.front().text.data();
    const char* end = body.back().text.data() + body.back().text.size();
    std::string_view section(begin, static_cast<std::size_t>(end - begin));
    std::size_t at = 0;
    while (at <= section.size()) {
      auto rest = section.substr(at);
      if (auto v = inline_verdict_at(rest, selected->label))
        verdicts.push_back(*v);
      else if (auto b = block_verdict_at(rest, selected->label))
        verdicts.push_back(*b);
      auto nl = section.find('\n', at);
      if (nl == std::string_view::npos)
        break;
      at = nl + 1;
    }
  }
  if (verdicts.size() == 1) {
    out.verdict = verdicts.front();
    out.absence = verdict_absence::none;
  } else {
    out.absence = verdicts.empty() ? verdict_absence::no_verdict_line
                                   : verdict_absence::several_verdicts;
  }
  return out;
}

verdict_reading read_review_verdict_file(const std::filesystem::path& path) {
  return read_review_verdict_file_at(AT_FDCWD, path);
}

verdict_reading read_review_verdict_file_at(int folder_fd, const std::filesystem::path& path,
                                            bool listed_regular) {
  auto text = listed_regular ? read_listed_file_at(folder_fd, path, max_review_bytes)
                             : read_file_at(folder_fd, path, max_review_bytes);
  if (!text.is_ok())
    return {std::nullopt, verdict_absence::unreadable};
  return read_verdict(*text);
}

} // namespace ad::runtime
