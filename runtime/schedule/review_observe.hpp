#pragma once
// Reads the review observation of one task from disk: its folder while it
// exists, else its archive folders with complete.log
// (agent-task/archive/<YYYY>/<MM>/<group>/<subtask>[_<k>]/). Review logs are
// `code_review_*.log`, review files `CODE_REVIEW-<local|cloud>-G<01..10>.md`;
// each is hashed (SHA-256) and its verdict read with the workspace's review
// verdict parser, or an injected reader (tests, replay). Synchronous
// file-system reads; no state, no threads. Errors: io_error or not_found
// naming the path when a listed file cannot be read; never throws.

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/schedule/review_outcome.hpp"

namespace ad::runtime {

// Reads a file's single review verdict; nullopt when it has none or an
// ambiguous one.
using review_verdict_reader =
    std::function<std::optional<review_verdict>(const std::filesystem::path&)>;

// Archive folders of `task_name` ("group/NN_slug" or "group") under
// <agent_task_root>/archive that hold complete.log, sorted.
std::vector<std::filesystem::path> find_archived_task_folders(
    const std::filesystem::path& agent_task_root, std::string_view task_name);

// The same for many tasks at once, with each archive folder listed once: by
// task name, the tasks with at least one such folder.
std::map<std::string, std::vector<std::filesystem::path>> find_archived_task_folders(
    const std::filesystem::path& agent_task_root, const std::vector<std::string>& task_names);

// True for code_review_*.log and CODE_REVIEW-<lane>-G<grade>.md names.
bool is_review_log_name(std::string_view name);
bool is_review_file_name(std::string_view name);

// An empty reader means read_review_verdict_file (workspace/review_verdict.hpp).
result<review_observation> observe_review(const std::filesystem::path& agent_task_root,
                                          std::string_view task_name,
                                          const review_verdict_reader& read_verdict = {});

} // namespace ad::runtime
