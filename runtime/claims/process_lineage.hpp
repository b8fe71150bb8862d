#pragma once
// Who forked whom, remembered after the processes are gone, so a write by a
// short-lived tool (an agent's `mv`, `sed -i`, `rm`) can still be traced to
// the agent after the tool exited and was reaped. pid_parents is the bounded
// record (pure data: the oldest entries are forgotten past its capacity; a
// pid forked again is overwritten by its newest parent). process_lineage
// fills it from the kernel's process connector (netlink NETLINK_CONNECTOR,
// group CN_IDX_PROC: one fork event per process created on the machine),
// whose fd the owner polls and drains promptly; a full socket buffer drops
// events, which drain() reports. Single owner, no threads; never throws.
// Errors: open() returns unsupported when the kernel has no process
// connector or refuses it (EPERM, EPROTONOSUPPORT, ECONNREFUSED, ...),
// io_error otherwise.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

#include "runtime/core/status.hpp"

namespace ad::runtime {

class pid_parents {
public:
  explicit pid_parents(std::size_t capacity = 1 << 16);
  void record(int child, int parent);
  // The parent `child` had when it was forked; 0 when not recorded.
  int parent_of(int child) const;
  // Records are numbered from 1 in the order they were made: the number of
  // the newest fork of `child` (0 when none), and of the newest record.
  uint64_t seq_of(int child) const;
  uint64_t last_seq() const { return seq_; }
  std::size_t size() const { return parent_.size(); }

private:
  struct entry {
    int parent;
    uint64_t seq;
  };
  std::size_t capacity_;
  uint64_t seq_ = 0;
  std::unordered_map<int, entry> parent_;
  std::deque<std::pair<int, uint64_t>> order_;
};

class process_lineage {
public:
  static result<process_lineage> open(std::size_t capacity = 1 << 16);

  process_lineage(process_lineage&& other) noexcept;
  process_lineage& operator=(process_lineage&& other) noexcept;
  process_lineage(const process_lineage&) = delete;
  process_lineage& operator=(const process_lineage&) = delete;
  ~process_lineage();

  int fd() const { return fd_; }
  // Reads every queued event; false when the kernel dropped some since the
  // last call (the socket buffer was full).
  bool drain();
  const pid_parents& parents() const { return parents_; }

private:
  explicit process_lineage(std::size_t capacity) : parents_(capacity) {}
  int fd_ = -1;
  pid_parents parents_;
};

} // namespace ad::runtime
