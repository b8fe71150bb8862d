#include "runtime/agents/native_sessions.hpp"

#include <cstdio>
#include <ctime>
#include <sys/stat.h>
#include <unordered_map>

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

} // namespace

std::vector<file_entry> list_files(const fs::path& dir, std::string_view suffix) {
  std::vector<file_entry> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec)
    return out;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    const fs::path& p = it->path();
    if (!ends_with(p.filename().string(), suffix))
      continue;
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    out.push_back({p, static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000
                        + st.st_mtim.tv_nsec});
  }
  return out;
}

std::string claude_project_dir_name(const fs::path& cwd) {
  std::string out = cwd.string();
  for (char& c : out) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum)
      c = '-';
  }
  return out;
}

std::string claude_project_folder(const fs::path& cwd) {
  std::string name = claude_project_dir_name(cwd);
  if (name.size() <= claude_project_name_limit)
    return name;
  // The path's Java-style string hash (h * 31 + c over its UTF-16 code
  // units, 32-bit), its absolute value in base 36.
  const std::string path = cwd.string();
  int32_t h = 0;
  auto add = [&](uint32_t unit) { h = static_cast<int32_t>(static_cast<uint32_t>(h) * 31u + unit); };
  for (size_t i = 0; i < path.size();) {
    unsigned char c = static_cast<unsigned char>(path[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xF0 && i + 3 < path.size()) {
      cp = ((c & 0x07u) << 18) | ((path[i + 1] & 0x3Fu) << 12) | ((path[i + 2] & 0x3Fu) << 6)
           | (path[i + 3] & 0x3Fu);
      len = 4;
    } else if (c >= 0xE0 && i + 2 < path.size()) {
      cp = ((c & 0x0Fu) << 12) | ((path[i + 1] & 0x3Fu) << 6) | (path[i + 2] & 0x3Fu);
      len = 3;
    } else if (c >= 0xC0 && i + 1 < path.size()) {
      cp = ((c & 0x1Fu) << 6) | (path[i + 1] & 0x3Fu);
      len = 2;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800 + (cp >> 10));
      add(0xDC00 + (cp & 0x3FF));
    } else {
      add(cp);
    }
    i += len;
  }
  uint64_t v = h < 0 ? static_cast<uint64_t>(-static_cast<int64_t>(h)) : static_cast<uint64_t>(h);
  std::string digits;
  do {
    digits.insert(digits.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36]);
    v /= 36;
  } while (v > 0);
  return name.substr(0, claude_project_name_limit) + "-" + digits;
}

fs::path claude_projects_root(const fs::path& home, const fs::path& config_dir) {
  if (!config_dir.empty())
    return config_dir / "projects";
  return home / ".claude" / "projects";
}

fs::path claude_session_path(const fs::path& projects_root, const fs::path& workspace,
                             std::string_view session_id) {
  return projects_root / claude_project_folder(workspace) / (std::string(session_id) + ".jsonl");
}

std::optional<fs::path> find_claude_session(const fs::path& projects_root,
                                            const fs::path& workspace,
                                            std::string_view session_id) {
  std::string name = claude_project_dir_name(workspace);
  std::string file = std::string(session_id) + ".jsonl";
  std::error_code ec;
  fs::path expected = projects_root / claude_project_folder(workspace) / file;
  if (fs::is_regular_file(expected, ec))
    return expected;
  if (name.size() <= claude_project_name_limit)
    return std::nullopt;
  // Another release may hash differently: any folder of the cut name.
  std::string prefix = name.substr(0, claude_project_name_limit) + "-";
  fs::directory_iterator it(projects_root, ec);
  if (ec)
    return std::nullopt;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    std::string entry = it->path().filename().string();
    if (!starts_with(entry, prefix) && entry != name)
      continue;
    fs::path p = it->path() / file;
    if (fs::is_regular_file(p, ec))
      return p;
  }
  return std::nullopt;
}

fs::path codex_sessions_root(const fs::path& codex_home) { return codex_home / "sessions"; }

std::vector<fs::path> codex_day_dirs(const fs::path& home, millis from, millis to) {
  constexpr millis day = 86'400'000;
  std::vector<fs::path> out;
  if (to < from)
    to = from;
  if (to - from > 31 * day) // an attempt never runs that long; bound the listing
    from = to - 31 * day;
  auto day_of = [](millis t) { return t >= 0 ? t / day : (t - day + 1) / day; };
  for (millis n = day_of(from) - 1; n <= day_of(to) + 1; ++n) {
    std::time_t secs = static_cast<std::time_t>(n * (day / 1000));
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char y[16], m[16], d[16];
    std::snprintf(y, sizeof y, "%04d", tm.tm_year + 1900);
    std::snprintf(m, sizeof m, "%02d", tm.tm_mon + 1);
    std::snprintf(d, sizeof d, "%02d", tm.tm_mday);
    out.push_back(codex_sessions_root(home) / y / m / d);
  }
  return out;
}

std::optional<fs::path> find_codex_rollout(const std::vector<file_entry>& files,
                                           std::string_view thread_id) {
  if (thread_id.empty())
    return std::nullopt;
  std::string suffix = "-" + std::string(thread_id) + ".jsonl";
  for (const auto& f : files) {
    std::string name = f.path.filename().string();
    if (starts_with(name, "rollout-") && ends_with(name, suffix))
      return f.path;
  }
  return std::nullopt;
}

std::optional<fs::path> find_pi_session(const std::vector<file_entry>& files,
                                        std::string_view session_id) {
  if (session_id.empty())
    return std::nullopt;
  const file_entry* best = nullptr;
  for (const auto& f : files) {
    std::string name = f.path.filename().string();
    if (ends_with(name, ".jsonl") && name.find(session_id) != std::string::npos
        && (best == nullptr || f.mtime_ns > best->mtime_ns))
      best = &f;
  }
  if (best == nullptr)
    return std::nullopt;
  return best->path;
}

std::optional<fs::path> newest_jsonl(const std::vector<file_entry>& files) {
  const file_entry* best = nullptr;
  for (const auto& f : files)
    if (ends_with(f.path.filename().string(), ".jsonl")
        && (best == nullptr || f.mtime_ns > best->mtime_ns))
      best = &f;
  if (best == nullptr)
    return std::nullopt;
  return best->path;
}

fs::path agy_conversations_dir(const fs::path& home) {
  return home / ".gemini" / "antigravity-cli" / "conversations";
}

std::optional<fs::path> newest_changed_agy_conversation(const std::vector<file_entry>& before,
                                                        const std::vector<file_entry>& after) {
  std::unordered_map<std::string, int64_t> old;
  for (const auto& f : before)
    old.emplace(f.path.string(), f.mtime_ns);
  const file_entry* best = nullptr;
  for (const auto& f : after) {
    if (!ends_with(f.path.filename().string(), ".db"))
      continue;
    auto it = old.find(f.path.string());
    bool changed = it == old.end() || it->second != f.mtime_ns;
    if (changed && (best == nullptr || f.mtime_ns > best->mtime_ns))
      best = &f;
  }
  if (best == nullptr)
    return std::nullopt;
  return best->path;
}

} // namespace ad::runtime
