#pragma once
// The folders directly inside a folder (symlinks followed). A listing error
// part-way keeps what was read before it. Reads the file system; never
// throws.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ad::runtime {

// Their paths, sorted; none when the folder cannot be listed.
std::vector<std::filesystem::path> subfolders(const std::filesystem::path& dir);

// A folder inside a listed folder, and whether a given file exists in it.
struct subfolder_holding {
  std::string name;
  bool holds = false;
};

// The folders inside dir (links followed) by name, sorted, each with whether
// `file` exists inside it (links followed, as std::filesystem::exists); none
// when dir cannot be listed. The files are looked up from the listed
// folder's handle, so dir's own path is not walked again for each.
std::vector<subfolder_holding> subfolders_holding(const std::filesystem::path& dir,
                                                  std::string_view file);

// A folder inside a listed folder (links followed), whether its entry is a
// link, and (once looked up) what a given file inside it is.
struct listed_folder {
  enum class file_kind : uint8_t { none, regular, linked };  // linked: a link to a regular file
  std::string name;
  bool link = false;
  file_kind file = file_kind::none;
};

// The folders inside dir by name, sorted, each with whether it is a link;
// none when dir cannot be listed. The kinds come from the listing where it
// says them (a stat only for a link or a file system that does not say).
std::optional<std::vector<listed_folder>> listed_folders(const std::filesystem::path& dir);

// Sets each folder's `file` to what `file` inside it is, looked up from one
// handle of dir, so neither dir's path nor the folder's is walked again.
void look_up_file(const std::filesystem::path& dir, std::string_view file,
                  std::vector<listed_folder>& folders);

// Calls on(name) for each entry of dir but "." and "..", whatever its kind,
// in the listing's order; false when dir cannot be listed.
bool each_entry_name(const std::filesystem::path& dir,
                     const std::function<void(std::string_view)>& on);

// Their names; nullopt when the folder cannot be listed (it is gone or
// unreadable), so a caller can tell that from an empty folder.
std::optional<std::set<std::string>> subfolder_names(const std::filesystem::path& dir);

// The month folders of a task root's archive, agent-task/archive/<year>/<month>
// (SPEC section 9), sorted.
std::vector<std::filesystem::path> archive_months(const std::filesystem::path& task_root);

} // namespace ad::runtime
