#pragma once
// The command that retries a blocked task of a workspace, as the board and
// the dashboard show it (the group is added per task by
// runtime::retry_command_for): `agent-dispatch run --workspace <ws>
// --retry-blocked`, with `agent-dispatch` when that name on PATH is this
// program (else its path) and the workspace relative to the current folder
// when it lies under it. Reads /proc/self/exe and PATH; never throws.

#include <filesystem>
#include <string>

namespace ad::cli {

std::string retry_command(const std::filesystem::path& workspace);

} // namespace ad::cli
