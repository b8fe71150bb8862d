#include "runtime/claims/write_watch.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <unistd.h>
#include <utility>

namespace ad::runtime {

namespace {

constexpr uint64_t data_mask = FAN_MODIFY | FAN_CLOSE_WRITE;
// FAN_ONDIR: folder creates, removals and moves too; drain() reads them only
// to place entry events whose folder is gone (write_watch.hpp).
constexpr uint64_t entry_mask =
    FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ATTRIB | FAN_ONDIR;
constexpr unsigned group_flags = FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK;
constexpr unsigned event_open_flags = O_RDONLY | O_LARGEFILE;

std::string hint_for(int err) {
  switch (err) {
    case EPERM: return " (needs root or CAP_SYS_ADMIN)";
    case ENOSYS: return " (kernel built without fanotify)";
    case EINVAL: return " (the kernel does not know these flags)";
    case ENODEV:
    case EOPNOTSUPP:
    case EXDEV: return " (the file system does not support this mark)";
    default: return "";
  }
}

status refusal(const std::string& what, int err) {
  std::string msg = what + ": " + std::strerror(err) + hint_for(err);
  switch (err) {
    case EPERM:
    case ENOSYS:
    case EINVAL:
    case ENODEV:
    case EOPNOTSUPP:
    case EXDEV: return status::unsupported(std::move(msg));
    default: return status::io_error(std::move(msg));
  }
}

std::string errno_text(std::string_view what, int err) {
  return std::string(what) + ": " + std::strerror(err) + hint_for(err);
}

void close_fd(int& fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

// Whether open_by_handle_at works here (it needs CAP_DAC_READ_SEARCH).
bool handles_resolve(int mount_fd, const std::string& root) {
  alignas(struct file_handle) unsigned char storage[sizeof(struct file_handle) + MAX_HANDLE_SZ];
  auto* fh = reinterpret_cast<struct file_handle*>(storage);
  fh->handle_bytes = MAX_HANDLE_SZ;
  int mount_id = 0;
  if (::name_to_handle_at(AT_FDCWD, root.c_str(), fh, &mount_id, 0) != 0)
    return false;
  int fd = ::open_by_handle_at(mount_fd, fh, O_PATH | O_CLOEXEC);
  if (fd < 0)
    return false;
  ::close(fd);
  return true;
}

} // namespace

std::string_view to_string(write_kind kind) {
  switch (kind) {
    case write_kind::modified: return "modified";
    case write_kind::closed_written: return "closed-written";
    case write_kind::created: return "created";
    case write_kind::deleted: return "deleted";
    case write_kind::moved_from: return "moved-from";
    case write_kind::moved_to: return "moved-to";
    case write_kind::attributes: return "attributes";
    case write_kind::lost: return "lost";
  }
  return "lost";
}

write_watch::write_watch(claim_scope scope, const write_watch_options& options)
    : scope_(std::move(scope)),
      markers_(options.proc_root),
      max_events_(options.max_events_per_drain == 0 ? 1 : options.max_events_per_drain),
      self_pid_(static_cast<int>(::getpid())) {}

write_watch::write_watch(write_watch&& other) noexcept
    : scope_(std::move(other.scope_)),
      markers_(std::move(other.markers_)),
      lineage_(std::move(other.lineage_)),
      max_events_(other.max_events_),
      coverage_(std::move(other.coverage_)),
      self_pid_(other.self_pid_),
      data_fd_(std::exchange(other.data_fd_, -1)),
      entry_fd_(std::exchange(other.entry_fd_, -1)),
      mount_fd_(std::exchange(other.mount_fd_, -1)),
      poll_fd_(std::exchange(other.poll_fd_, -1)) {}

write_watch& write_watch::operator=(write_watch&& other) noexcept {
  if (this != &other) {
    close_all();
    scope_ = std::move(other.scope_);
    markers_ = std::move(other.markers_);
    lineage_ = std::move(other.lineage_);
    max_events_ = other.max_events_;
    coverage_ = std::move(other.coverage_);
    self_pid_ = other.self_pid_;
    data_fd_ = std::exchange(other.data_fd_, -1);
    entry_fd_ = std::exchange(other.entry_fd_, -1);
    mount_fd_ = std::exchange(other.mount_fd_, -1);
    poll_fd_ = std::exchange(other.poll_fd_, -1);
  }
  return *this;
}

write_watch::~write_watch() { close_all(); }

void write_watch::close_all() {
  close_fd(poll_fd_);
  close_fd(data_fd_);
  close_fd(entry_fd_);
  close_fd(mount_fd_);
}

result<write_watch> write_watch::open(claim_scope scope, const write_watch_options& options) {
  if (options.mode == watch_mode::snapshots_only)
    return status::unsupported("fanotify disabled by option (watch_mode::snapshots_only); "
                               "writes are judged from snapshots");
  if (scope.root().empty())
    return status::invalid_argument("write watch: the claim scope has no workspace root");
  write_watch w(std::move(scope), options);
  const std::string root = w.scope_.root();

  w.data_fd_ = ::fanotify_init(group_flags, event_open_flags);
  if (w.data_fd_ < 0)
    return refusal("fanotify_init", errno);
  if (::fanotify_mark(w.data_fd_, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, data_mask, AT_FDCWD,
                      root.c_str()) != 0) {
    std::string fs_refusal = errno_text("FAN_MARK_FILESYSTEM", errno);
    if (::fanotify_mark(w.data_fd_, FAN_MARK_ADD | FAN_MARK_MOUNT, data_mask, AT_FDCWD,
                        root.c_str()) != 0)
      return refusal("fanotify_mark on " + root + " (" + fs_refusal + "; FAN_MARK_MOUNT)", errno);
    w.coverage_.reach = mark_reach::mount;
    w.coverage_.entry_events_note = fs_refusal + "; marked the mount instead, which cannot "
                                    "report creates, deletes or moves";
  }

  if (w.coverage_.reach == mark_reach::filesystem) {
    w.mount_fd_ = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int entry = ::fanotify_init(group_flags | FAN_REPORT_DFID_NAME, event_open_flags);
    if (entry < 0) {
      w.coverage_.entry_events_note = errno_text("fanotify_init(FAN_REPORT_DFID_NAME)", errno);
    } else if (::fanotify_mark(entry, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, entry_mask, AT_FDCWD,
                               root.c_str()) != 0) {
      w.coverage_.entry_events_note = errno_text("FAN_MARK_FILESYSTEM for entry events", errno);
      ::close(entry);
    } else if (w.mount_fd_ < 0 || !handles_resolve(w.mount_fd_, root)) {
      w.coverage_.entry_events_note = errno_text("open_by_handle_at", errno);
      ::close(entry);
    } else {
      w.entry_fd_ = entry;
      w.coverage_.entry_events = true;
    }
  }

  if (options.lineage == lineage_mode::off) {
    w.coverage_.exited_writers_note = "off by option";
  } else if (auto lineage = process_lineage::open(); !lineage) {
    w.coverage_.exited_writers_note = lineage.error().message();
  } else {
    w.lineage_.emplace(std::move(*lineage));
    w.coverage_.exited_writers = true;
  }

  w.poll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (w.poll_fd_ < 0)
    return status::from_errno("epoll_create1", errno);
  for (int group : {w.data_fd_, w.entry_fd_, w.lineage_ ? w.lineage_->fd() : -1}) {
    if (group < 0)
      continue;
    struct epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.fd = group;
    if (::epoll_ctl(w.poll_fd_, EPOLL_CTL_ADD, group, &ev) != 0)
      return status::from_errno("epoll_ctl", errno);
  }
  return w;
}

bool write_watch::remember_attempt(int pid, std::string_view marker) {
  // Its fork must be on record before it is cached (see marker_resolver).
  if (lineage_)
    lineage_->drain();
  return markers_.remember(pid, marker, lineage_ ? &lineage_->parents() : nullptr);
}

} // namespace ad::runtime
