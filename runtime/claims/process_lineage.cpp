#include "runtime/claims/process_lineage.hpp"

#include <cerrno>
#include <cstring>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ad::runtime {

pid_parents::pid_parents(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

void pid_parents::record(int child, int parent) {
  ++seq_;
  parent_[child] = {parent, seq_};
  order_.emplace_back(child, seq_);
  while (order_.size() > capacity_) {
    auto [pid, seq] = order_.front();
    order_.pop_front();
    auto it = parent_.find(pid);
    if (it != parent_.end() && it->second.seq == seq)
      parent_.erase(it);
  }
}

int pid_parents::parent_of(int child) const {
  auto it = parent_.find(child);
  return it == parent_.end() ? 0 : it->second.parent;
}

uint64_t pid_parents::seq_of(int child) const {
  auto it = parent_.find(child);
  return it == parent_.end() ? 0 : it->second.seq;
}

namespace {

status refused(const char* what, int err) {
  std::string msg = std::string("process connector: ") + what + ": " + std::strerror(err);
  switch (err) {
    case EPERM:
    case EACCES:
    case EPROTONOSUPPORT:
    case EAFNOSUPPORT:
    case ECONNREFUSED:
    case EINVAL: return status::unsupported(std::move(msg));
    default: return status::io_error(std::move(msg));
  }
}

constexpr std::size_t listen_len = sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op);

} // namespace

result<process_lineage> process_lineage::open(std::size_t capacity) {
  process_lineage l(capacity);
  l.fd_ = ::socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
  if (l.fd_ < 0)
    return refused("socket", errno);
  // Room for bursts of forks between two drains (root may exceed rmem_max).
  int rcvbuf = 8 << 20;
  if (::setsockopt(l.fd_, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0)
    ::setsockopt(l.fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  struct sockaddr_nl addr {};
  addr.nl_family = AF_NETLINK;
  addr.nl_groups = CN_IDX_PROC;
  if (::bind(l.fd_, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) != 0)
    return refused("bind", errno);
  alignas(struct nlmsghdr) char msg[NLMSG_SPACE(listen_len)] = {};
  auto* h = reinterpret_cast<struct nlmsghdr*>(msg);
  h->nlmsg_len = NLMSG_LENGTH(listen_len);
  h->nlmsg_type = NLMSG_DONE;
  h->nlmsg_pid = static_cast<uint32_t>(::getpid());
  struct cn_msg cn {};
  cn.id.idx = CN_IDX_PROC;
  cn.id.val = CN_VAL_PROC;
  cn.len = sizeof(enum proc_cn_mcast_op);
  enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
  std::memcpy(NLMSG_DATA(h), &cn, sizeof cn);
  std::memcpy(static_cast<char*>(NLMSG_DATA(h)) + sizeof cn, &op, sizeof op);
  if (::send(l.fd_, msg, h->nlmsg_len, 0) < 0)
    return refused("listen", errno);
  return l;
}

process_lineage::process_lineage(process_lineage&& other) noexcept
    : fd_(other.fd_), parents_(std::move(other.parents_)) {
  other.fd_ = -1;
}

process_lineage& process_lineage::operator=(process_lineage&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
    parents_ = std::move(other.parents_);
  }
  return *this;
}

process_lineage::~process_lineage() {
  if (fd_ >= 0)
    ::close(fd_);
}

bool process_lineage::drain() {
  bool complete = true;
  alignas(struct nlmsghdr) char buf[65536];
  for (;;) {
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == ENOBUFS) {
        complete = false;
        continue;
      }
      return complete; // EAGAIN: nothing more queued
    }
    if (n == 0)
      return complete;
    int len = static_cast<int>(n);
    for (auto* h = reinterpret_cast<struct nlmsghdr*>(buf); NLMSG_OK(h, len);
         h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_type == NLMSG_OVERRUN)
        complete = false;
      if (h->nlmsg_type != NLMSG_DONE
          || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(struct proc_event)))
        continue;
      // The event sits 4-byte aligned after the headers: copy it out.
      struct cn_msg cn {};
      std::memcpy(&cn, NLMSG_DATA(h), sizeof cn);
      if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC)
        continue;
      struct proc_event ev {};
      std::memcpy(&ev, static_cast<const char*>(NLMSG_DATA(h)) + sizeof cn, sizeof ev);
      if (ev.what != proc_event::PROC_EVENT_FORK)
        continue;
      const auto& f = ev.event_data.fork;
      if (f.child_pid == f.child_tgid) // a process, not a thread
        parents_.record(f.child_tgid, f.parent_tgid);
    }
  }
}

} // namespace ad::runtime
