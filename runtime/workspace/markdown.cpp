#include "runtime/workspace/markdown.hpp"

#include <array>

namespace ad::runtime {

std::vector<text_line> split_lines(std::string_view text) {
  std::vector<text_line> out;
  std::size_t start = 0;
  std::size_t number = 1;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) {
      out.push_back({text.substr(start), number});
      break;
    }
    out.push_back({text.substr(start, end - start), number});
    start = end + 1;
    ++number;
  }
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::string_view trim_trailing_blank(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string to_lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool is_section_heading(std::string_view line, std::string_view name) {
  if (!line.starts_with("##"))
    return false;
  line.remove_prefix(2);
  while (!line.empty() && is_space(line.front()))
    line.remove_prefix(1);
  if (!line.starts_with(name))
    return false;
  line.remove_prefix(name.size());
  return trim_trailing_blank(line).empty();
}

bool starts_new_section(std::string_view line) {
  return line.size() >= 3 && line.starts_with("##") && is_space(line[2]);
}

std::vector<markdown_section_span> find_sections(std::string_view text,
                                                 const std::vector<std::string_view>& names) {
  auto lines = split_lines(text);
  std::vector<markdown_section_span> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    bool match = false;
    for (auto name : names)
      match = match || is_section_heading(lines[i].text, name);
    if (!match)
      continue;
    markdown_section_span span;
    span.heading_line = lines[i].number;
    for (std::size_t j = i + 1; j < lines.size() && !starts_new_section(lines[j].text); ++j)
      span.body.push_back(lines[j]);
    out.push_back(std::move(span));
  }
  return out;
}

std::string section_text(std::string_view text, const std::vector<std::string_view>& names) {
  auto sections = find_sections(text, names);
  if (sections.size() != 1)
    return {};
  std::string body;
  for (const auto& line : sections.front().body) {
    body.append(line.text);
    body.push_back('\n');
  }
  return std::string(trim(body));
}

bool is_concrete_value(std::string_view value) {
  auto v = trim(value);
  while (!v.empty() && v.front() == '`')
    v.remove_prefix(1);
  while (!v.empty() && v.back() == '`')
    v.remove_suffix(1);
  v = trim(v);
  if (!v.empty() && v.front() == '-') {
    v.remove_prefix(1);
    v = trim(v);
  }
  if (v.empty())
    return false;
  // A template placeholder: "<...>" or "{...}" with something inside.
  for (auto [open, close] : std::array<std::pair<char, char>, 2>{{{'<', '>'}, {'{', '}'}}}) {
    auto at = v.find(open);
    while (at != std::string_view::npos) {
      auto end = v.find(close, at + 1);
      if (end != std::string_view::npos && end > at + 1)
        return false;
      at = v.find(open, at + 1);
    }
  }
  static constexpr std::array<std::string_view, 8> empty_words = {
      "-", "n/a", "na", "none", "unknown", "미정", "없음", "해당 없음"};
  auto lower = to_lower_ascii(v);
  for (auto word : empty_words)
    if (lower == word)
      return false;
  return true;
}

} // namespace ad::runtime
