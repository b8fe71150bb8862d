#pragma once
// The folders directly inside a folder (symlinks followed). A listing error
// part-way keeps what was read before it. Reads the file system; never
// throws.

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ad::runtime {

// Their paths, sorted; none when the folder cannot be listed.
std::vector<std::filesystem::path> subfolders(const std::filesystem::path& dir);

// Their names; nullopt when the folder cannot be listed (it is gone or
// unreadable), so a caller can tell that from an empty folder.
std::optional<std::set<std::string>> subfolder_names(const std::filesystem::path& dir);

// The month folders of a task root's archive, agent-task/archive/<year>/<month>
// (SPEC section 9), sorted.
std::vector<std::filesystem::path> archive_months(const std::filesystem::path& task_root);

} // namespace ad::runtime
