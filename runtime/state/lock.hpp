#pragma once
// One dispatcher per workspace: an exclusive flock(2) on <state root>/lock
// held for the life of a state_lock value. The file records the owner (pid,
// process start token from field 22 of /proc/<pid>/stat, start time, version)
// as JSON so a second instance can say who holds it. The kernel lock is the
// truth: a leftover file of a dead owner is simply taken over. A lock whose
// recorded owner no longer runs can still be held for a moment (seen right
// after a SIGKILLed dispatcher was reaped, on a loaded machine): acquire()
// tries again every 10 ms for up to `settle` before it reports the conflict.
// A running owner is reported at once.
// Errors: acquire() returns conflict() naming the owner when another open
// file description holds the lock (the CLI exits 3), io_error when the file
// cannot be opened or written. Never throws; no threads.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <sys/types.h>

#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

struct lock_owner {
  int64_t pid = 0;
  std::string start_token;  // field 22 (starttime) of /proc/<pid>/stat
  millis started_at = 0;
  std::string version;
};

// This process as a lock owner.
lock_owner current_lock_owner(const clock& clk);

inline constexpr const char* lock_file_name = "lock";

class state_lock {
public:
  static result<state_lock> acquire(const std::filesystem::path& root, const lock_owner& me,
                                    std::chrono::milliseconds settle = std::chrono::seconds(2));

  state_lock(state_lock&& other) noexcept;
  state_lock& operator=(state_lock&& other) noexcept;
  state_lock(const state_lock&) = delete;
  state_lock& operator=(const state_lock&) = delete;
  ~state_lock();  // releases the lock (the file stays)

  const std::filesystem::path& path() const { return path_; }

private:
  state_lock(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

} // namespace ad::runtime
