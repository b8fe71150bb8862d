#pragma once
// Line-level markdown helpers shared by the workspace parsers (PLAN, CODE_REVIEW,
// USER_REVIEW): splitting text into lines, finding a `## Heading` section, and
// the "concrete value" test. Everything here is a pure function over bytes:
// no file access, no state, no threads. Non-UTF-8 bytes are carried through
// untouched (they simply never match an ASCII marker). Nothing here fails.
//
// Matching follows the documented contract: a section heading is a line
// `##<spaces><name><spaces or tabs>` (exactly two hashes; `###` is a
// sub-heading and does not end a section); a section runs to the next line
// that starts with `##` followed by whitespace.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ad::runtime {

// One line of a text: its content without the '\n' and its 1-based number.
struct text_line {
  std::string_view text;
  std::size_t number = 0;
};

// Splits on '\n'. A final line without '\n' is kept; a trailing '\n' does not
// add an empty line.
std::vector<text_line> split_lines(std::string_view text);

// ASCII whitespace (space, \t, \n, \v, \f, \r).
bool is_space(char c);
std::string_view trim(std::string_view s);
std::string_view trim_trailing_blank(std::string_view s); // strips only ' ' and '\t'
std::string to_lower_ascii(std::string_view s);

// If `line` is a `## name` heading for `name`, true.
bool is_section_heading(std::string_view line, std::string_view name);
// True when `line` ends a section: it starts with "##" followed by whitespace.
bool starts_new_section(std::string_view line);

// Where a `##` section sits in a text.
struct markdown_section_span {
  std::size_t heading_line = 0;  // 1-based line number of the heading
  std::vector<text_line> body;   // the lines after the heading up to the next section
};

// Every section whose heading is one of `names`, in text order.
std::vector<markdown_section_span> find_sections(std::string_view text,
                                                 const std::vector<std::string_view>& names);

// The body of the one section named by any of `names`, trimmed; empty when
// there is none or more than one (an ambiguous section counts as absent).
std::string section_text(std::string_view text, const std::vector<std::string_view>& names);

// A value a human actually filled in: not empty, not `-`, `n/a`, `na`, `none`,
// `unknown` (or the Korean 미정/없음/해당 없음), no `<...>` or `{...}` template
// placeholder. Surrounding backticks and a leading list dash are ignored.
bool is_concrete_value(std::string_view value);

} // namespace ad::runtime
