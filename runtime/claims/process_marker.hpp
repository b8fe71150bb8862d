#pragma once
// Which attempt a process works for: the value of AGENT_DISPATCH_EXECUTION_ID
// in its environment, or in the nearest ancestor's (an agent's tools and
// shells are its descendants and may drop the variable). A marker_resolver
// reads /proc/<pid>/environ, then walks the parent chain through
// /proc/<pid>/stat (field 4) up to 64 levels, stopping at pid 1 and at the
// resolver's own process (the dispatcher is no agent). Markers found are
// cached per pid together with the process start token (field 22), so a pid
// reused by a later process is read afresh; only found markers are cached,
// and the cache is cleared when it outgrows its cap. The caller may seed it
// with remember() (an agent it just started). A process already gone from
// /proc keeps its cached marker unless a later fork of its pid was recorded
// in the caller's pid_parents (process_lineage.hpp); otherwise the walk goes
// on from the parent recorded there. A process that exited, was never
// cached and has no recorded parent yields "": unknown. A zombie still shows
// its parent. Single owner, not thread-safe, reads /proc only; never throws,
// never fails.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/core/proc_scan.hpp" // attempt_marker_variable

namespace ad::runtime {

class pid_parents;

struct stat_fields {
  int ppid = 0;
  std::string start_token; // field 22
};

// Parses the ppid and start token of a /proc/<pid>/stat line (after the last
// ')', so a command name holding spaces or ')' cannot shift the fields);
// false when the text is malformed.
bool parse_stat_fields(std::string_view stat_text, stat_fields& out);

// The marker value in a NUL-separated environment block; "" when absent.
std::string_view marker_in_environ(std::string_view environ_block);

class marker_resolver {
public:
  static constexpr int max_levels = 64;

  explicit marker_resolver(std::filesystem::path proc_root = "/proc", int self_pid = -1,
                           std::size_t cache_cap = 4096);

  // The marker of the attempt `pid` belongs to; "" when unknown. `forks`
  // may be null.
  std::string resolve(int pid, const pid_parents* forks = nullptr);
  // Caches `marker` for the live process `pid` (false when it is gone).
  bool remember(int pid, std::string_view marker, const pid_parents* forks = nullptr);
  std::size_t cached() const { return cache_.size(); }

private:
  struct cached_marker {
    std::string start_token;
    std::string marker;
    uint64_t fork_seq; // pid_parents::last_seq() when cached
  };

  void cache(int pid, std::string token, const std::string& marker, const pid_parents* forks);

  std::filesystem::path proc_root_;
  int self_pid_;
  std::size_t cache_cap_;
  std::unordered_map<int, cached_marker> cache_;
};

} // namespace ad::runtime
