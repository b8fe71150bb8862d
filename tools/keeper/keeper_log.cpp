#include "tools/keeper/keeper_log.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "runtime/core/clock.hpp"

namespace ad::keeper {

keeper_log::~keeper_log() {
  if (fd_ >= 0)
    ::close(fd_);
}

runtime::status keeper_log::open(const std::filesystem::path& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    return runtime::status::from_errno("create " + path.string(), errno);
  return runtime::status::ok();
}

void keeper_log::note(std::string_view text) noexcept {
  if (fd_ < 0)
    return;
  try {
    std::string line = runtime::format_utc_iso(runtime::system_clock().now());
    line += ' ';
    line += text;
    line += '\n';
    ssize_t n = ::write(fd_, line.data(), line.size());
    (void) n;
  } catch (...) {
    // Out of memory for a note: drop it.
  }
}

} // namespace ad::keeper
