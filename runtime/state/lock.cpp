#include "runtime/state/lock.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <thread>

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

namespace {

struct recorded_owner {
  std::string text = "an unknown owner";
  bool running = true; // unknown owners count as running
};

// The owner named in the lock file, and whether that process still runs
// (same pid and start token).
recorded_owner read_owner(const fs::path& path) {
  recorded_owner out;
  auto text = read_file(path, 64 << 10);
  if (!text)
    return out;
  auto j = parse_json(*text, path.string());
  if (!j || !j->is_object())
    return out;
  try {
    auto pid = j->value("pid", int64_t{0});
    auto token = j->value("start_token", std::string("?"));
    out.text = "pid " + std::to_string(pid) + " (start token " + token + "), started " +
               format_utc_iso(j->value("started_at", millis{0})) + ", version " +
               j->value("version", std::string("?"));
    auto now_token = pid > 0 ? process_start_token(static_cast<int>(pid))
                             : result<std::string>(status::not_found("no pid"));
    out.running = now_token.is_ok() && (token.empty() || token == "?" || *now_token == token);
  } catch (const std::exception&) {
    // A lock file with odd field types still means a live owner.
  }
  return out;
}

} // namespace

result<state_lock> state_lock::acquire(const fs::path& root, const lock_owner& me,
                                       std::chrono::milliseconds settle) {
  if (auto st = make_directories(root); !st)
    return st;
  fs::path path = root / lock_file_name;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("open lock file " + path.string(), errno);
  auto give_up = std::chrono::steady_clock::now() + settle;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    if (err != EWOULDBLOCK) {
      ::close(fd);
      return status::from_errno("lock " + path.string(), err);
    }
    auto owner = read_owner(path);
    if (owner.running || std::chrono::steady_clock::now() >= give_up) {
      ::close(fd);
      std::string gone = owner.running ? "" : " (no longer running, yet the lock stayed held for " +
                                                std::to_string(settle.count()) +
                                                " ms: a process it started may hold it)";
      return status::conflict("another dispatcher holds the state lock " + path.string() + ": " +
                              owner.text + gone + "; wait for it to finish or stop it");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  state_lock lock(fd, path);
  std::string text = dump_json(json{{"pid", me.pid},
                                    {"start_token", me.start_token},
                                    {"started_at", me.started_at},
                                    {"version", me.version}})
                     + "\n";
  if (::ftruncate(fd, 0) != 0)
    return status::from_errno("truncate lock file " + path.string(), errno);
  // Not synced: the record only names a live owner to a second dispatcher,
  // and after a crash of the machine no one holds the lock it describes.
  if (::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
    return status::from_errno("write lock file " + path.string(), errno);
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
