#include "runtime/workspace/checklist.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

TEST(checklist, complete_only_with_boxes_all_filled) {
  auto done = read_checklist("## Implementation Checklist\n\n- [x] a\n-  [X] b\n- [~] c\n");
  EXPECT_EQ(done.state, checklist_state::complete);
  EXPECT_EQ(done.boxes, 3u);

  auto open = read_checklist("## Implementation Checklist\n- [x] a\n- [ ] b\n- [] c\n");
  EXPECT_EQ(open.state, checklist_state::incomplete);
  EXPECT_EQ(open.open, 2u);

  EXPECT_EQ(read_checklist("## Implementation Checklist\n\nnothing here\n").state,
            checklist_state::no_boxes);
  EXPECT_EQ(read_checklist("# Review\n- [x] a\n").state, checklist_state::absent);
  // Duplicated section (English + Korean) counts as absent.
  EXPECT_EQ(read_checklist("## Implementation Checklist\n- [x] a\n## 구현 체크리스트\n- [x] b\n").state,
            checklist_state::absent);
  EXPECT_EQ(read_checklist("## 구현 체크리스트\n- [x] a\n").state, checklist_state::complete);
  // Boxes after the next section do not count.
  EXPECT_EQ(read_checklist("## Implementation Checklist\n- [x] a\n## Notes\n- [ ] later\n").state,
            checklist_state::complete);
  // "-[x]" (no space) and "* [x]" are not checkboxes.
  EXPECT_EQ(read_checklist("## Implementation Checklist\n-[x] a\n* [x] b\n").state,
            checklist_state::no_boxes);
  EXPECT_EQ(read_checklist_file("/nonexistent").state, checklist_state::absent);
}

} // namespace
} // namespace ad::runtime
