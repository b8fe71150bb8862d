#include "runtime/workspace/subfolders.hpp"

#include <algorithm>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

// Calls on(path) for each folder inside dir; false when dir cannot be listed.
template <class F>
bool each_subfolder(const fs::path& dir, F&& on) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec)
    return false;
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    // The entry's type as the listing gave it: a stat only for a link (which
    // is followed) or a file system that does not say.
    std::error_code kind;
    if (it->is_directory(kind))
      on(it->path());
  }
  return true;
}

} // namespace

std::vector<fs::path> subfolders(const fs::path& dir) {
  std::vector<fs::path> out;
  each_subfolder(dir, [&](const fs::path& p) { out.push_back(p); });
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// Calls on(fd, entry) for each entry of dir but "." and ".."; false when dir
// cannot be listed.
template <class F>
bool each_listed_entry(const fs::path& dir, F&& on) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return false;
  DIR* listing = ::fdopendir(fd);
  if (listing == nullptr) {
    ::close(fd);
    return false;
  }
  while (const dirent* e = ::readdir(listing)) {
    std::string_view name = e->d_name;
    if (name != "." && name != "..")
      on(fd, *e);
  }
  ::closedir(listing);
  return true;
}

// Whether a listed entry is a folder, links followed; `link` says whether
// the entry itself is one. The listing's own type where it gives one: a
// stat only for a link or a file system that does not say.
bool is_listed_folder(int fd, const dirent& e, bool& link) {
  struct stat st {};
  link = e.d_type == DT_LNK;
  if (e.d_type == DT_UNKNOWN) {
    if (::fstatat(fd, e.d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
      return false;
    link = S_ISLNK(st.st_mode);
    if (!link)
      return S_ISDIR(st.st_mode);
  } else if (!link) {
    return e.d_type == DT_DIR;
  }
  return ::fstatat(fd, e.d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

} // namespace

std::vector<subfolder_holding> subfolders_holding(const fs::path& dir, std::string_view file) {
  std::vector<subfolder_holding> out;
  std::string inside;
  struct stat st {};
  bool link = false;
  each_listed_entry(dir, [&](int fd, const dirent& e) {
    if (!is_listed_folder(fd, e, link))
      return;
    inside.assign(e.d_name);
    inside += '/';
    inside.append(file);
    out.push_back({e.d_name, ::fstatat(fd, inside.c_str(), &st, 0) == 0});
  });
  std::sort(out.begin(), out.end(),
            [](const subfolder_holding& a, const subfolder_holding& b) { return a.name < b.name; });
  return out;
}

std::optional<std::vector<listed_folder>> listed_folders(const fs::path& dir) {
  std::vector<listed_folder> out;
  bool listed = each_listed_entry(dir, [&](int fd, const dirent& e) {
    listed_folder f{e.d_name};
    if (is_listed_folder(fd, e, f.link))
      out.push_back(std::move(f));
  });
  if (!listed)
    return std::nullopt;
  std::sort(out.begin(), out.end(),
            [](const listed_folder& a, const listed_folder& b) { return a.name < b.name; });
  return out;
}

void look_up_file(const fs::path& dir, std::string_view file, std::vector<listed_folder>& folders) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::string inside;
  struct stat st {};
  for (auto& f : folders) {
    f.file = listed_folder::file_kind::none;
    if (fd < 0)
      continue;
    inside.assign(f.name);
    inside += '/';
    inside.append(file);
    if (::fstatat(fd, inside.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
      f.file = listed_folder::file_kind::regular;
    else if (::fstatat(fd, inside.c_str(), &st, 0) == 0 && S_ISREG(st.st_mode))
      f.file = listed_folder::file_kind::linked;
  }
  if (fd >= 0)
    ::close(fd);
}

bool each_entry_name(const fs::path& dir, const std::function<void(std::string_view)>& on) {
  return each_listed_entry(dir, [&](int, const dirent& e) { on(e.d_name); });
}

std::optional<std::set<std::string>> subfolder_names(const fs::path& dir) {
  std::set<std::string> out;
  if (!each_subfolder(dir, [&](const fs::path& p) { out.insert(p.filename().string()); }))
    return std::nullopt;
  return out;
}

std::vector<fs::path> archive_months(const fs::path& task_root) {
  std::vector<fs::path> out;
  for (const auto& year : subfolders(task_root / "archive"))
    for (auto& month : subfolders(year))
      out.push_back(std::move(month));
  return out;
}

} // namespace ad::runtime
