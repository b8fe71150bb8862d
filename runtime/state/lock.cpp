#include "runtime/state/lock.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "runtime/core/proc_stat.hpp"
#include "runtime/core/json.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

lock_owner current_lock_owner(const clock& clk) {
  lock_owner me;
  me.pid = ::getpid();
  auto token = process_start_token(::getpid());
  me.start_token = token ? *token : std::string();
  me.started_at = clk.now();
  me.version = AD_VERSION;
  return me;
}

result<state_lock> state_lock::acquire(const fs::path& root, const lock_owner& me) {
  if (auto st = make_directories(root); !st)
    return st;
  fs::path path = root / lock_file_name;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("open lock file " + path.string(), errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err != EWOULDBLOCK)
      return status::from_errno("lock " + path.string(), err);
    std::string owner = "an unknown owner";
    if (auto text = read_file(path, 64 << 10); text) {
      if (auto j = parse_json(*text, path.string()); j && j->is_object()) {
        try {
          owner = "pid " + std::to_string(j->value("pid", int64_t{0})) + " (start token "
                  + j->value("start_token", std::string("?")) + "), started "
                  + format_utc_iso(j->value("started_at", millis{0})) + ", version "
                  + j->value("version", std::string("?"));
        } catch (const std::exception&) {
          // A lock file with odd field types still means a live owner.
        }
      }
    }
    return status::conflict("another dispatcher holds the state lock " + path.string()
                            + ": " + owner + "; wait for it to finish or stop it");
  }
  state_lock lock(fd, path);
  std::string text = dump_json(json{{"pid", me.pid},
                                    {"start_token", me.start_token},
                                    {"started_at", me.started_at},
                                    {"version", me.version}})
                     + "\n";
  if (::ftruncate(fd, 0) != 0)
    return status::from_errno("truncate lock file " + path.string(), errno);
  if (::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    return status::from_errno("write lock file " + path.string(), errno);
  if (::fsync(fd) != 0)
    return status::from_errno("fsync lock file " + path.string(), errno);
  return lock;
}

state_lock::state_lock(state_lock&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

state_lock& state_lock::operator=(state_lock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

state_lock::~state_lock() {
  if (fd_ >= 0)
    ::close(fd_);
}

} // namespace ad::runtime
