#include "runtime/claims/process_marker.hpp"

#include <cctype>
#include <charconv>
#include <unistd.h>
#include <utility>
#include <vector>

#include "runtime/claims/process_lineage.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/proc_stat.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

bool parse_stat_fields(std::string_view text, stat_fields& out) {
  auto fields = stat_fields_after_name(text);
  // Element k is field k + 3: ppid is field 4, the start token field 22.
  if (!fields || fields->size() < 20)
    return false;
  auto ppid = (*fields)[4 - 3];
  auto [end, ec] = std::from_chars(ppid.data(), ppid.data() + ppid.size(), out.ppid);
  if (ec != std::errc() || end != ppid.data() + ppid.size())
    return false;
  auto token = (*fields)[22 - 3];
  for (char c : token)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  out.start_token.assign(token);
  return !token.empty();
}

std::string_view marker_in_environ(std::string_view env) {
  while (!env.empty()) {
    auto end = env.find('\0');
    std::string_view entry = env.substr(0, end);
    if (entry.size() > attempt_marker_variable.size()
        && entry.compare(0, attempt_marker_variable.size(), attempt_marker_variable) == 0
        && entry[attempt_marker_variable.size()] == '=')
      return entry.substr(attempt_marker_variable.size() + 1);
    if (end == std::string_view::npos)
      break;
    env.remove_prefix(end + 1);
  }
  return {};
}

marker_resolver::marker_resolver(fs::path proc_root, int self_pid, std::size_t cache_cap)
    : proc_root_(std::move(proc_root)),
      self_pid_(self_pid < 0 ? static_cast<int>(::getpid()) : self_pid),
      cache_cap_(cache_cap == 0 ? 1 : cache_cap) {}

namespace {

bool read_stat(const fs::path& proc_root, int pid, stat_fields& f) {
  auto text = read_file(proc_root / std::to_string(pid) / "stat", 64 << 10);
  return text && parse_stat_fields(*text, f);
}

} // namespace

void marker_resolver::cache(int pid, std::string token, const std::string& marker,
                            const pid_parents* forks) {
  if (cache_.size() >= cache_cap_ && cache_.find(pid) == cache_.end())
    cache_.clear();
  cache_[pid] = {std::move(token), marker, forks != nullptr ? forks->last_seq() : 0};
}

bool marker_resolver::remember(int pid, std::string_view marker, const pid_parents* forks) {
  stat_fields f;
  if (marker.empty() || !read_stat(proc_root_, pid, f))
    return false;
  cache(pid, std::move(f.start_token), std::string(marker), forks);
  return true;
}

std::string marker_resolver::resolve(int pid, const pid_parents* forks) {
  std::vector<std::pair<int, std::string>> chain; // (pid, start token) walked
  std::string marker;
  for (int level = 0; level < max_levels && pid > 1 && pid != self_pid_; ++level) {
    stat_fields f;
    if (!read_stat(proc_root_, pid, f)) {
      // Gone. Its cached marker holds unless the pid was forked again since.
      if (auto it = cache_.find(pid); it != cache_.end()) {
        if (forks == nullptr || forks->seq_of(pid) <= it->second.fork_seq) {
          marker = it->second.marker;
          break;
        }
        cache_.erase(it);
      }
      // Else go on from the parent it was forked by, when that is known.
      int parent = forks != nullptr ? forks->parent_of(pid) : 0;
      if (parent <= 0 || parent == pid)
        break;
      pid = parent;
      continue;
    }
    if (auto it = cache_.find(pid); it != cache_.end()) {
      if (it->second.start_token == f.start_token) {
        marker = it->second.marker;
        break;
      }
      cache_.erase(it); // the pid now names a later process
    }
    auto env = read_file(proc_root_ / std::to_string(pid) / "environ", 8u << 20);
    // The environment read must belong to the process whose stat was read.
    stat_fields again;
    if (!read_stat(proc_root_, pid, again) || again.start_token != f.start_token)
      break;
    chain.emplace_back(pid, f.start_token);
    if (env) {
      if (auto m = marker_in_environ(*env); !m.empty()) {
        marker.assign(m);
        break;
      }
    }
    pid = f.ppid;
  }
  if (!marker.empty())
    for (auto& [p, token] : chain)
      cache(p, std::move(token), marker, forks);
  return marker;
}

} // namespace ad::runtime
