#pragma once
// keeper.log: the few notes ad-keeper leaves about itself in the attempt
// folder (start, stop requests, the agent's end, errors), one line each,
// "<ISO time> <text>", appended with one write. The keeper's own stdout and
// stderr belong to whoever started it and may be gone, so its diagnostics
// go here. A note that cannot be written is dropped (the log is help for a
// person, not state).

#include <filesystem>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::keeper {

class keeper_log {
public:
  keeper_log() = default;
  keeper_log(const keeper_log&) = delete;
  keeper_log& operator=(const keeper_log&) = delete;
  ~keeper_log();

  // Opens (appends to) the log; io_error naming it when it cannot.
  runtime::status open(const std::filesystem::path& path);
  void note(std::string_view text) noexcept;

private:
  int fd_ = -1;
};

} // namespace ad::keeper
