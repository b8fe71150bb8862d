#pragma once
// The two records an agent's keeper leaves in its attempt folder
// (docs/keeper.md): keeper.json, written once right after the agent
// started (who runs: the keeper's and the agent's pid and start token, the
// marker), and exit.json, written once at the end (how the agent ended, who
// stopped it, what its output spool holds). Both are replaced atomically
// and durably (write_file_atomic), so a reader sees a whole record or none.
// Codecs and readers for both sides; no state, no threads. Error contract:
// a reader refuses anything but a regular file of at most 64 KiB and
// returns invalid_argument naming the file and the member for a malformed
// record (bad JSON, wrong format or version, missing or mistyped member,
// out-of-range number); read_keeper_record returns not_found when there is
// no keeper.json; read_exit_record returns a distinct not_ended result when
// there is no exit.json yet; nothing throws.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/keeper/containment.hpp"
#include "runtime/keeper/stream_spool.hpp"

#include "runtime/core/signals.hpp"

namespace ad::runtime {

inline constexpr std::string_view keeper_record_format = "agent-dispatch-keeper";
inline constexpr std::string_view keeper_exit_format = "agent-dispatch-keeper-exit";
inline constexpr std::size_t keeper_record_max_bytes = 64 << 10;

struct keeper_record {
  int keeper_pid = 0;
  std::string keeper_start_token; // field 22 of /proc/<pid>/stat
  int agent_pid = 0;
  int agent_pgid = 0; // the agent leads its own process group
  std::string agent_start_token;
  std::string marker; // AGENT_DISPATCH_EXECUTION_ID of the agent
  std::string argv0;
  millis started_at_ms = 0;
  // The spool's shape, for a follower and a sealer that did not start it.
  uint64_t line_cap = spool_default_line_cap;
  uint64_t head_bytes = spool_default_retention.head_bytes;
  uint64_t tail_bytes = spool_default_retention.tail_bytes;
  // How the attempt's processes are contained; the cgroup's folder ("" for
  // subreaper). Records of keepers that predate containment have neither:
  // read as subreaper.
  containment_kind containment = containment_kind::subreaper;
  std::string cgroup;
  friend bool operator==(const keeper_record&, const keeper_record&) = default;
};

enum class keeper_end : uint8_t { exited, signaled, launch_failed };
enum class keeper_initiator : uint8_t { none, dispatcher, lease };

const char* to_string(keeper_end end) noexcept;
const char* to_string(keeper_initiator initiator) noexcept;

struct keeper_termination {
  keeper_initiator initiator = keeper_initiator::none;
  int signal = 0; // the strongest signal the keeper sent the group (SIGTERM, SIGKILL); 0: none
  friend bool operator==(const keeper_termination&, const keeper_termination&) = default;
};

// A process the agent started that was still there at the agent's end.
struct leftover_process {
  int pid = 0;
  std::string name; // argv[0]'s file name, else the kernel's name
  friend bool operator==(const leftover_process&, const leftover_process&) = default;
};

// What the keeper did with what the agent left (docs/keeper.md).
struct containment_report {
  containment_kind kind = containment_kind::subreaper;
  std::string cgroup;
  std::vector<leftover_process> ended; // ended by the keeper (SIGTERM, then SIGKILL)
  std::vector<leftover_process> kept;  // left alive: named by --keep-alive
  bool gave_up = false;                // some would not die (uninterruptible)
  cgroup_usage usage;                  // the cgroup's, when there was one
  friend bool operator==(const containment_report&, const containment_report&) = default;
};

// The exit code an attempt whose command could not start is recorded with
// (the shell's "command not found"), by its keeper, in its locator, its
// work-log row and its end; the failure classifier reads it back as a
// launch failure.
inline constexpr int launch_failure_exit_code = 127;

struct keeper_exit_record {
  keeper_end end = keeper_end::exited;
  int exit_code = 0; // 128 + signal when signaled, launch_failure_exit_code when the launch failed
  int signal = 0;    // signaled only
  std::string reason; // launch_failed: "command not found: <argv0>", ...; else empty
  keeper_termination termination;
  stream_counts stream;
  millis ended_at_ms = 0;
  containment_report containment; // absent in records of older keepers: the default
  friend bool operator==(const keeper_exit_record&, const keeper_exit_record&) = default;
};

json keeper_record_to_json(const keeper_record& record);
result<keeper_record> keeper_record_from_json(const json& j, std::string_view source);
json exit_record_to_json(const keeper_exit_record& record);
result<keeper_exit_record> exit_record_from_json(const json& j, std::string_view source);


// Write <dir>/keeper.json and <dir>/exit.json (durably).
status write_keeper_record(const std::filesystem::path& dir, const keeper_record& record);
status write_exit_record(const std::filesystem::path& dir, const keeper_exit_record& record);

result<keeper_record> read_keeper_record(const std::filesystem::path& dir);

enum class keeper_exit_state : uint8_t { not_ended, ended };

struct exit_lookup {
  keeper_exit_state state = keeper_exit_state::not_ended;
  keeper_exit_record record; // ended only
};

result<exit_lookup> read_exit_record(const std::filesystem::path& dir);

} // namespace ad::runtime
