#pragma once
// Logging setup for the command line: spdlog's default logger gets two sinks,
// a rotating debug log in the state root (<state root>/logs/agent-dispatch.log,
// 5 MB x 3 files, everything from debug up) and stderr for people, at warn by
// default, info with -v and debug with -vv. Call once from the CLI before
// actors start; later spdlog calls from any thread are safe (the sinks are
// the thread-safe _mt kinds). Error contract: returns io_error naming the
// path when the log folder or file cannot be made; the console sink is
// installed either way, so logging keeps working without the file.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <spdlog/common.h>

#include "runtime/core/status.hpp"

namespace ad::runtime {

struct logging_options {
  int verbosity = 0;  // count of -v flags
  size_t max_file_bytes = 5u << 20;
  size_t max_files = 3;
};

inline constexpr const char* log_folder_name = "logs";
inline constexpr const char* log_file_name = "agent-dispatch.log";

// warn (0), info (1), debug (2 or more).
spdlog::level::level_enum console_level(int verbosity);

// <state root>/logs/agent-dispatch.log
std::filesystem::path log_file_path(const std::filesystem::path& state_root);

// Installs the default logger. An empty state_root means console only.
status setup_logging(const std::filesystem::path& state_root, const logging_options& options);

// While the terminal board is on the screen, a message written to stderr
// lands inside its frame, and the next redraw, which moves back over the
// lines it drew, leaves it and old frame lines behind. hold_console(true)
// keeps the console's messages instead ("warning: node n1: ...", at most
// max_held_console_lines, the oldest dropped) for the board to show
// (take_held_console_lines); hold_console(false) writes what is still held
// to stderr and lets later messages through. The log file gets every
// message either way. Thread-safe; without setup_logging, nothing is held.
inline constexpr std::size_t max_held_console_lines = 100;
void hold_console(bool hold);
std::vector<std::string> take_held_console_lines();

} // namespace ad::runtime
