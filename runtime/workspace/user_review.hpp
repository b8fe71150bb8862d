#pragma once
// The USER_REVIEW.md stop contract (SPEC section 2). The file stops a task for
// a human only when it is a complete stop request:
//   ## Status            `USER_REVIEW`
//   ## Reason            `- Type: milestone-lock|external-execution` (exactly one)
//                        `- Target: <concrete linked target>`; for milestone-lock
//                        a path under agent-roadmap/.../milestones/...md
//   ## Evidence          `- Evidence: <concrete evidence>`
//   ## Required Action   at least one unresolved `- [ ] <concrete action>`
//   ## Resume Condition  at least one concrete line
// The legacy Korean names are accepted: 상태, 사유 (유형, 연결 대상), 차단 근거
// (차단 판단 근거), 사용자 조치 또는 결정 or 연결 결정 필요 (not both), 재개 조건.
// A section named twice (in either language) counts as absent. An incomplete
// file is a task error; the reading lists every missing part. Pure functions;
// the file variant reads with a cap and reports read failures as a missing part.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ad::runtime {

enum class user_review_part : uint8_t {
  file,            // cannot be read
  status,          // Status is not USER_REVIEW
  type,            // not exactly one supported type
  target,          // no concrete linked target
  milestone_path,  // milestone-lock target is not agent-roadmap/.../milestones/...md
  evidence,        // no concrete evidence line
  action_duplicated,
  action,          // no unresolved concrete `- [ ]` item
  resume,          // no concrete resume condition
};

std::string_view to_string(user_review_part part);
// A sentence saying what is missing, e.g. "no concrete resume condition".
std::string_view describe(user_review_part part);

enum class user_review_type : uint8_t { none, milestone_lock, external_execution };
std::string_view to_string(user_review_type type);

struct user_review_reading {
  user_review_type type = user_review_type::none;
  std::string target;
  std::vector<std::string> actions; // unresolved concrete actions
  std::vector<user_review_part> missing;
  std::string read_error;           // set with user_review_part::file

  bool is_stop_request() const { return missing.empty(); }
  // "missing: no concrete linked target; no concrete resume condition"
  std::string missing_summary() const;
};

user_review_reading read_user_review(std::string_view text);

inline constexpr std::size_t max_user_review_bytes = 1u << 20;
user_review_reading read_user_review_file(const std::filesystem::path& path);

} // namespace ad::runtime
