#pragma once
// Containing an attempt's processes (docs/keeper.md, "Containment"): when
// the attempt ends, every process its agent started ends too, also those
// that left its process group (setsid, a double fork). The keeper is always
// the child subreaper of its agent's tree (orphans are re-parented to it,
// not to init) and finds what is left as its own descendants and as the
// processes that carry the attempt's marker. Where a writable cgroup v2
// hierarchy exists it also puts the agent into a cgroup of its own, which
// no descendant leaves without privilege, kills it as one
// (cgroup.kill) and reads its CPU time and peak memory.
//
// This file holds what both sides need: the mechanism's name and how it is
// chosen, the parsing of /proc/self/mountinfo and /proc/self/cgroup, the
// cgroup's name, the keep-alive rule, and the cgroup operations the keeper
// and the dispatcher (killing what a dead keeper left) carry out. Plain
// C++; reads and writes /proc and the cgroup file system only; no state,
// no threads. Error contract: never throws; a cgroup operation that fails
// returns io_error (or not_found when there is no writable hierarchy)
// naming the path.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class containment_kind : uint8_t {
  cgroup,    // a cgroup v2 per attempt, plus the subreaper and the marker
  subreaper, // the keeper as child subreaper plus the marker scan
};

const char* to_string(containment_kind k) noexcept;
result<containment_kind> parse_containment_kind(std::string_view text);

// What the keeper is asked for: the cgroup where it can (automatic), or the
// fallback always (--containment subreaper, or AD_KEEPER_CONTAINMENT=
// subreaper in its environment, for tests of the fallback).
enum class containment_request : uint8_t { automatic, subreaper };
inline constexpr std::string_view containment_env_variable = "AD_KEEPER_CONTAINMENT";

// --- pure ---------------------------------------------------------------------

// The mount point of the cgroup v2 hierarchy in /proc/self/mountinfo text
// (the first line whose file system type is cgroup2): /sys/fs/cgroup on a
// pure v2 machine, /sys/fs/cgroup/unified on a hybrid one; nullopt when
// there is none.
std::optional<std::filesystem::path> cgroup2_mount_of(std::string_view mountinfo);

// This process's cgroup in the v2 hierarchy from /proc/self/cgroup text
// (the "0::<path>" line), e.g. "/user.slice/session-2.scope"; nullopt when
// there is none.
std::optional<std::string> cgroup2_path_of(std::string_view proc_self_cgroup);

// The folder name of an attempt's cgroup: "agent-dispatch-" and the marker
// with every character but letters, digits, '.', '_' and '-' made '_', at
// most 200 bytes.
std::string attempt_cgroup_name(std::string_view marker);

// Whether a process left by an agent may outlive the attempt: its name (the
// kernel's, at most 15 bytes) or the file name of its argv[0] is one of
// keep_alive.
bool kept_alive_by_name(std::string_view comm, std::string_view argv0,
                        const std::vector<std::string>& keep_alive);

struct cgroup_usage {
  std::optional<uint64_t> cpu_usec;          // cpu.stat usage_usec
  std::optional<uint64_t> memory_peak_bytes; // memory.peak (with the memory controller)
  friend bool operator==(const cgroup_usage&, const cgroup_usage&) = default;
};

// usage_usec of a cpu.stat text.
std::optional<uint64_t> cpu_usec_of(std::string_view cpu_stat);

// --- the cgroup file system ---------------------------------------------------

// The folder under which this process may create cgroups: its own cgroup
// in the v2 hierarchy, when that hierarchy is mounted read-write and the
// folder is writable. not_found saying why otherwise.
result<std::filesystem::path> writable_cgroup2_parent(const std::filesystem::path& proc_self = "/proc/self");

// Creates <parent>/<name> (an existing empty one of that name is reused).
result<std::filesystem::path> create_cgroup(const std::filesystem::path& parent, std::string_view name);

// The pids in a cgroup (cgroup.procs); empty when it cannot be read.
std::vector<int> cgroup_members(const std::filesystem::path& cgroup);

// Whether any process is in the cgroup (cgroup.events "populated 1"); a
// cgroup that cannot be read counts as empty.
bool cgroup_populated(const std::filesystem::path& cgroup);

// SIGKILL to every process in the cgroup at once (cgroup.kill, Linux 5.14),
// else to each member in turn.
status kill_cgroup(const std::filesystem::path& cgroup);

cgroup_usage read_cgroup_usage(const std::filesystem::path& cgroup);

// Removes an empty cgroup folder.
status remove_cgroup(const std::filesystem::path& cgroup);

} // namespace ad::runtime
