#pragma once
// The identity of a running process as Linux reports it: the start time
// (field 22 of /proc/<pid>/stat), which together with the pid tells a live
// process from a later one that reuses its pid. Used by the state lock (the
// lock owner) and by the liveness probes of agents and dispatchers. Reads
// /proc only; never throws; no state.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// The fields of a /proc/<pid>/stat line after the command name, found
// after the last ')' so a command name holding spaces or ')' cannot shift
// them: element 0 is field 3 (state), element k field k + 3. None when the
// text has no ')'. The views point into stat_text.
std::optional<std::vector<std::string_view>> stat_fields_after_name(std::string_view stat_text);

// Field 22 (starttime, in clock ticks since boot) of a /proc/<pid>/stat
// line, found after the last ')' so a command name holding spaces or ')'
// cannot shift the fields. invalid_argument when the text is malformed.
result<std::string> parse_start_token(std::string_view stat_text);

// The start token of a live (or zombie) process; not_found when there is no
// such process. proc_root is "/proc" outside tests.
result<std::string> process_start_token(int pid,
                                        const std::filesystem::path& proc_root = "/proc");

} // namespace ad::runtime
