#pragma once
// The names of the files an agent's keeper (ad-keeper, docs/keeper.md) writes
// in its attempt folder, shared by the keeper and by every dispatcher that
// follows it. Names only: no state, no I/O, nothing that can fail.

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace ad::runtime {

inline constexpr std::string_view keeper_record_file = "keeper.json"; // written once, after the start
inline constexpr std::string_view keeper_exit_file = "exit.json";    // written once, at the end
inline constexpr std::string_view keeper_log_file = "keeper.log";    // the keeper's own notes
inline constexpr std::string_view keeper_stream_file = "stream.log"; // the agent's output

// The variable that carries the attempt's marker in the agent's environment
// (the same as the dispatcher's AGENT_DISPATCH_EXECUTION_ID).
inline constexpr std::string_view keeper_marker_variable = "AGENT_DISPATCH_EXECUTION_ID";

// The newest (age 0, "stream.log.tail") and the older (age 1,
// "stream.log.tail.1") tail segment of a retained spool, and the rotation
// index beside them ("stream.log.tail.index").
std::filesystem::path spool_segment_path(const std::filesystem::path& log, int age);
std::filesystem::path spool_index_path(const std::filesystem::path& log);

// What a change to the file `name` in an attempt folder (an inotify event's
// name) means to the reader that follows the keeper there
// (runtime/process/reactor_kept.cpp):
// - spool: the agent's output grew or rotated (stream.log, its tail
//   segments and their index), or the keeper recorded its end (exit.json);
// - record: the keeper's record appeared (keeper.json, renamed into place);
// - none: nothing that reader reads: the dispatcher's own files there
//   (locator.json, heartbeat.log, normalized-output.log), the keeper's notes
//   (keeper.log) and the temporary files of an atomic write. Waking for
//   them would only repeat a read that finds nothing new.
enum class kept_file_change : uint8_t { none, spool, record };
kept_file_change classify_kept_file(std::string_view name);

} // namespace ad::runtime
