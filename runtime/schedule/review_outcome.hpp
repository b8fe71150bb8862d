#pragma once
// Classifies what an official review did to its task (SPEC section 3), from an
// observation of the task's folder (or, once it moved, its archive folders)
// after the review and the verdict sources seen before it. The newest review
// log or CODE_REVIEW file with a verdict not seen before decides:
//   archived              it sits in an archive folder (with complete.log)
//   user-review           its folder holds USER_REVIEW.md
//   complete-finalization its folder holds complete.log, not yet archived
//   finalization-pending  the verdict is in the active CODE_REVIEW file itself
//   follow-up             a review log, next to a new CODE_REVIEW generation
//   changed               anything else, including no new verdict at all
// settle_review() turns that into what the task does next: PASS+archived
// completes, a non-PASS archive and a missing verdict are errors. Pure
// functions over values (review_observe.hpp reads them from disk); no throws.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/workspace/review_verdict.hpp"

namespace ad::runtime {

// "PASS", "WARN", "FAIL", or "UNKNOWN" for no verdict.
std::string verdict_label(const std::optional<review_verdict>& v);

enum class review_source_kind : uint8_t {
  review_log,  // code_review_<lane>_G<grade>_<n>.log
  review_file, // CODE_REVIEW-<lane>-G<grade>.md (the active review file)
};

struct review_source {
  std::string path;   // resolved absolute path
  std::string sha256; // of the content
  int64_t mtime_ns = 0;
  review_source_kind kind = review_source_kind::review_log;
  std::optional<review_verdict> verdict; // none: no single verdict
};

enum class review_folder_place : uint8_t { active, archive };

struct review_folder {
  std::string path;
  review_folder_place place = review_folder_place::active;
  bool has_user_review = false; // USER_REVIEW.md
  bool has_complete_log = false;
  std::vector<review_source> sources; // logs first, then review files, each by name
};

// The task folder while it exists; otherwise its archive folders holding
// complete.log. Never both.
struct review_observation {
  std::vector<review_folder> folders;
};

// Identity of a verdict source already seen: (path, content hash).
struct seen_source {
  std::string path;
  std::string sha256;
  friend auto operator<=>(const seen_source&, const seen_source&) = default;
};

using seen_sources = std::set<seen_source>;

// Every review log and review file of the observation, verdict or not.
seen_sources collect_seen_sources(const review_observation& obs);

enum class review_outcome_kind : uint8_t {
  archived,
  user_review,
  complete_finalization,
  finalization_pending,
  follow_up,
  changed,
};

// "archived", "user-review", "complete-finalization", "finalization-pending",
// "follow-up", "changed".
std::string_view to_string(review_outcome_kind kind);

struct review_outcome {
  review_outcome_kind kind = review_outcome_kind::changed;
  std::optional<review_verdict> verdict; // none: UNKNOWN
  std::string folder;     // folder of the deciding source, else task_folder
  std::string review_log; // the deciding source, or "unknown"
};

// Ties in mtime keep the first source in observation order.
review_outcome classify_review_outcome(const review_observation& after,
                                       const seen_sources& before,
                                       std::string_view task_folder);

enum class review_next : uint8_t {
  complete, // PASS and archived: the task is done
  rescan,   // the folder moved on (follow-up, user review, finalization)
  error,    // no verdict, or a non-PASS verdict archived: block the task
};

struct review_settlement {
  review_next next = review_next::error;
  std::string reason; // one line, for error; empty otherwise
};

review_settlement settle_review(const review_outcome& outcome);

} // namespace ad::runtime
