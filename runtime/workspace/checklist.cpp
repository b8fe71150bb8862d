#include "runtime/workspace/checklist.hpp"

#include "runtime/core/files.hpp"
#include "runtime/workspace/markdown.hpp"
#include "runtime/workspace/review_verdict.hpp"

namespace ad::runtime {

std::string_view to_string(checklist_state state) {
  switch (state) {
  case checklist_state::absent: return "absent";
  case checklist_state::no_boxes: return "no-boxes";
  case checklist_state::incomplete: return "incomplete";
  case checklist_state::complete: return "complete";
  }
  return "?";
}

checklist_reading read_checklist(std::string_view review_text) {
  checklist_reading out;
  auto sections = find_sections(review_text, {"Implementation Checklist", "구현 체크리스트"});
  if (sections.size() != 1)
    return out;
  for (const auto& line : sections.front().body) {
    // ^-\s+\[([^\]\r\n]*)\]
    std::string_view s = line.text;
    if (!s.starts_with("-") || s.size() < 2 || !is_space(s[1]))
      continue;
    s.remove_prefix(1);
    while (!s.empty() && is_space(s.front()))
      s.remove_prefix(1);
    if (!s.starts_with("["))
      continue;
    auto close = s.find(']');
    if (close == std::string_view::npos)
      continue;
    auto inside = s.substr(1, close - 1);
    if (inside.find('\r') != std::string_view::npos)
      continue;
    ++out.boxes;
    if (trim(inside).empty())
      ++out.open;
  }
  out.state = out.boxes == 0  ? checklist_state::no_boxes
              : out.open > 0 ? checklist_state::incomplete
                             : checklist_state::complete;
  return out;
}

checklist_reading read_checklist_file(const std::filesystem::path& review) {
  auto text = read_file(review, max_review_bytes);
  if (!text.is_ok())
    return {};
  return read_checklist(*text);
}

} // namespace ad::runtime
