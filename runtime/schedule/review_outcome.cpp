#include "runtime/schedule/review_outcome.hpp"

#include <algorithm>

namespace ad::runtime {

std::string verdict_label(const std::optional<review_verdict>& v) {
  if (!v)
    return "UNKNOWN";
  switch (*v) {
    case review_verdict::pass: return "PASS";
    case review_verdict::warn: return "WARN";
    case review_verdict::fail: return "FAIL";
  }
  return "UNKNOWN";
}

std::string_view to_string(review_outcome_kind kind) {
  switch (kind) {
    case review_outcome_kind::archived: return "archived";
    case review_outcome_kind::user_review: return "user-review";
    case review_outcome_kind::complete_finalization: return "complete-finalization";
    case review_outcome_kind::finalization_pending: return "finalization-pending";
    case review_outcome_kind::follow_up: return "follow-up";
    case review_outcome_kind::changed: return "changed";
  }
  return "changed";
}

seen_sources collect_seen_sources(const review_observation& obs) {
  seen_sources out;
  for (const auto& f : obs.folders)
    for (const auto& s : f.sources)
      out.insert({s.path, s.sha256});
  return out;
}

review_outcome classify_review_outcome(const review_observation& after,
                                       const seen_sources& before,
                                       std::string_view task_folder) {
  const review_folder* newest_folder = nullptr;
  const review_source* newest = nullptr;
  for (const auto& f : after.folders) {
    for (const auto& s : f.sources) {
      if (!s.verdict)
        continue;
      if (before.count({s.path, s.sha256}) != 0)
        continue;
      if (newest == nullptr || s.mtime_ns > newest->mtime_ns) {
        newest = &s;
        newest_folder = &f;
      }
    }
  }

  review_outcome out;
  out.folder = newest_folder ? newest_folder->path : std::string(task_folder);
  out.review_log = newest ? newest->path : "unknown";
  if (newest)
    out.verdict = newest->verdict;
  if (newest_folder == nullptr) {
    out.kind = review_outcome_kind::changed;
    return out;
  }
  auto has_review_file = std::any_of(
      newest_folder->sources.begin(), newest_folder->sources.end(),
      [](const review_source& s) { return s.kind == review_source_kind::review_file; });
  if (newest_folder->place == review_folder_place::archive)
    out.kind = review_outcome_kind::archived;
  else if (newest_folder->has_user_review)
    out.kind = review_outcome_kind::user_review;
  else if (newest_folder->has_complete_log)
    out.kind = review_outcome_kind::complete_finalization;
  else if (newest->kind == review_source_kind::review_file)
    out.kind = review_outcome_kind::finalization_pending;
  else if (has_review_file)
    out.kind = review_outcome_kind::follow_up;
  else
    out.kind = review_outcome_kind::changed;
  return out;
}

review_settlement settle_review(const review_outcome& outcome) {
  if (outcome.verdict == review_verdict::pass &&
      outcome.kind == review_outcome_kind::archived)
    return {review_next::complete, {}};
  if (!outcome.verdict ||
      outcome.kind == review_outcome_kind::changed)
    return {review_next::error,
            "the review left no new verdict and no next folder state (outcome " +
                std::string(to_string(outcome.kind)) + ", verdict " +
                verdict_label(outcome.verdict) + ")"};
  if (outcome.kind == review_outcome_kind::archived)
    return {review_next::error, "a review with verdict " + verdict_label(outcome.verdict) +
                                    " moved the task to the archive: " + outcome.folder};
  return {review_next::rescan, {}};
}

} // namespace ad::runtime
