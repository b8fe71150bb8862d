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

fs::path claude_session_path(const fs::path& home, const fs::path& workspace,
                             std::string_view session_id) {
  return home / ".claude" / "projects" / claude_project_dir_name(workspace)
         / (std::string(session_id) + ".jsonl");
}

fs::path codex_sessions_root(const fs::path& home) { return home / ".codex" / "sessions"; }

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
