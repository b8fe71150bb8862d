#pragma once
// The implementation checklist of a CODE_REVIEW file (SPEC section 2): the one
// `## Implementation Checklist` section (legacy Korean `## 구현 체크리스트`) is
// complete when it holds at least one `- [..]` checkbox and none is blank
// (`- [ ]` or `- []`). The self-check stage uses this to decide whether another
// round is needed. Pure functions; never fails (an unreadable file reads as
// an absent checklist).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace ad::runtime {

enum class checklist_state : uint8_t {
  absent,      // no section, or the section is duplicated
  no_boxes,    // a section without checkboxes
  incomplete,  // at least one blank box
  complete,
};

std::string_view to_string(checklist_state state);

struct checklist_reading {
  checklist_state state = checklist_state::absent;
  std::size_t boxes = 0;
  std::size_t open = 0; // blank boxes
};

checklist_reading read_checklist(std::string_view review_text);
checklist_reading read_checklist_file(const std::filesystem::path& review);

} // namespace ad::runtime
