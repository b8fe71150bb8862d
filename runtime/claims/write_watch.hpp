#pragma once
// Writes to a workspace as the kernel reports them (fanotify), with the
// process that made each one. A write_watch owns two notification groups
// marked on the workspace's whole file system (FAN_MARK_FILESYSTEM; on a
// kernel that refuses it, the mount, FAN_MARK_MOUNT): one for FAN_MODIFY and
// FAN_CLOSE_WRITE whose events carry an open fd of the file, and, where the
// kernel supports FAN_REPORT_DFID_NAME, one for creates, deletes, moves and
// attribute changes of files, reported as folder handle plus name. fd() is
// one descriptor (epoll over the groups and the lineage below) for the
// caller's poll/epoll loop;
// drain() never blocks: it reads what is queued, resolves each path through
// /proc/self/fd (closing every event fd), keeps only paths the claim_scope
// watches, skips the watcher's own process, and names the writer's attempt
// marker (marker_resolver) while the writer can still be read. Where the
// process connector is permitted, fd() also covers a process_lineage, so a
// writer that exited before the drain is traced through the parent that
// forked it; without it such a writer is unknown. remember_attempt() keeps
// an agent's own writes attributed after the agent exits. A lost
// record (queue overflow, an unreadable event, a path that cannot be
// resolved) means the window must be judged from snapshots. An entry event
// whose folder was removed before the drain read it is lost only when a
// watched folder was removed or moved away in the same drain (folder events,
// FAN_ONDIR, are read for this and never reported): a folder inside the
// workspace cannot vanish without such an event, so the rest were elsewhere
// on the file system. Single owner,
// no threads of its own; never throws.
//
// Errors: open() returns unsupported when fanotify is not permitted or not
// built here (EPERM, ENOSYS, EINVAL, EOPNOTSUPP, ENODEV, EXDEV: the message
// says which call refused and why) or when watch_mode::snapshots_only forces
// the fallback; io_error for any other refusal. The caller falls back to
// take_snapshot()/diff() on either.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/claims/claim_scope.hpp"
#include "runtime/claims/process_lineage.hpp"
#include "runtime/claims/process_marker.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class write_kind : uint8_t {
  modified,       // FAN_MODIFY
  closed_written, // FAN_CLOSE_WRITE
  created,        // FAN_CREATE (files, symlinks)
  deleted,        // FAN_DELETE
  moved_from,     // FAN_MOVED_FROM
  moved_to,       // FAN_MOVED_TO
  attributes,     // FAN_ATTRIB (mode, owner, times)
  lost,           // events were lost: judge the window from snapshots
};
std::string_view to_string(write_kind kind);

struct write_event {
  int pid = 0;
  std::string path;   // canonical absolute; empty for lost
  write_kind what = write_kind::modified;
  std::string marker; // the writer's attempt marker; empty when unknown
  std::string detail; // lost only: why
};

enum class watch_mode : uint8_t {
  fanotify_when_permitted,
  snapshots_only, // open() returns unsupported: tests of the fallback
};

enum class mark_reach : uint8_t { filesystem, mount };

enum class lineage_mode : uint8_t {
  when_permitted, // trace exited writers through the process connector
  off,            // an exited, uncached writer is unknown
};

struct write_watch_options {
  watch_mode mode = watch_mode::fanotify_when_permitted;
  lineage_mode lineage = lineage_mode::when_permitted;
  std::filesystem::path proc_root = "/proc"; // for writer lookups
  std::size_t max_events_per_drain = 16384;  // the rest stays queued
};

// What the kernel granted.
struct watch_coverage {
  mark_reach reach = mark_reach::filesystem;
  bool entry_events = false;     // creates, deletes, moves, attribute changes
  std::string entry_events_note; // why not, when not; how the mark fell back
  bool exited_writers = false;   // a process_lineage traces writers already gone
  std::string exited_writers_note;
};

class write_watch {
public:
  static result<write_watch> open(claim_scope scope, const write_watch_options& options = {});

  write_watch(write_watch&& other) noexcept;
  write_watch& operator=(write_watch&& other) noexcept;
  write_watch(const write_watch&) = delete;
  write_watch& operator=(const write_watch&) = delete;
  ~write_watch();

  // Readable when events are queued.
  int fd() const { return poll_fd_; }
  std::vector<write_event> drain();
  // Tells the watcher that `pid` (alive, just started) runs the attempt of
  // `marker`, so its writes stay attributed after it exits. False when the
  // process is already gone.
  bool remember_attempt(int pid, std::string_view marker);
  const watch_coverage& coverage() const { return coverage_; }

private:
  // An event kept until every queue was read and the writer can be traced.
  struct pending_write {
    int pid;
    std::string path;
    uint64_t mask;
  };
  // What one drain() has read so far.
  struct drain_pass {
    std::vector<pending_write> pending;
    std::vector<write_event> out;
    std::size_t budget = 0;
    // Entry events whose folder was gone before they were read, as "NAME
    // (pid N)": outside the workspace unless a watched folder was removed
    // or moved away (folder_left_scope) in the same drain.
    std::vector<std::string> unplaced;
    bool folder_left_scope = false;
  };

  write_watch(claim_scope scope, const write_watch_options& options);
  void close_all();
  void read_group(int group_fd, bool entry_group, drain_pass& pass);
  void data_event(int pid, uint64_t mask, int event_fd, drain_pass& pass);
  void entry_event(int pid, uint64_t mask, const char* info, std::size_t info_len,
                   drain_pass& pass);
  void judge_unplaced(drain_pass& pass);
  void keep(int pid, std::string path, uint64_t mask, drain_pass& pass) const;

  claim_scope scope_;
  marker_resolver markers_;
  std::optional<process_lineage> lineage_;
  std::size_t max_events_;
  watch_coverage coverage_;
  int self_pid_ = 0;
  int data_fd_ = -1;  // FAN_MODIFY | FAN_CLOSE_WRITE, event fds
  int entry_fd_ = -1; // FAN_REPORT_DFID_NAME group, -1 when unsupported
  int mount_fd_ = -1; // for open_by_handle_at
  int poll_fd_ = -1;  // epoll over the groups and the lineage
};

} // namespace ad::runtime
