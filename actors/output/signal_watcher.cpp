#include "actors/output/signal_watcher.hpp"

#include <cerrno>
#include <cstring>

#include <caf/all.hpp>
#include <fcntl.h>
#include <unistd.h>

namespace ad::actors {
namespace {

// Shared with the signal handler: plain lock-free atomics only.
std::atomic<int> active_write_fd{-1};
std::atomic<int> seen_signals{0};
std::atomic<bool> watcher_alive{false};

constexpr unsigned char stop_byte = 0;

extern "C" void on_shutdown_signal(int signo) {
  int saved_errno = errno;
  if (seen_signals.fetch_add(1) + 1 >= 2)
    _exit(interrupted_exit_code);
  int fd = active_write_fd.load();
  if (fd >= 0) {
    auto byte = static_cast<unsigned char>(signo);
    [[maybe_unused]] auto n = write(fd, &byte, 1);
  }
  errno = saved_errno;
}

} // namespace

runtime::result<std::unique_ptr<signal_watcher>> signal_watcher::start(callback on_first) {
  bool expected = false;
  if (!watcher_alive.compare_exchange_strong(expected, true))
    return runtime::status::conflict("a signal watcher is already running");
  std::unique_ptr<signal_watcher> w(new signal_watcher());
  w->on_first_ = std::move(on_first);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    watcher_alive = false;
    return runtime::status::from_errno("signal watcher pipe", errno);
  }
  w->read_fd_ = fds[0];
  w->write_fd_ = fds[1];
  seen_signals = 0;
  active_write_fd = w->write_fd_;
  try {
    w->thread_ = std::thread([raw = w.get()] { raw->loop(); });
  } catch (const std::exception& e) {
    active_write_fd = -1;
    close(w->read_fd_);
    close(w->write_fd_);
    w->read_fd_ = w->write_fd_ = -1;
    watcher_alive = false;
    return runtime::status::io_error(std::string("signal watcher thread: ") + e.what());
  }
  struct sigaction action {};
  action.sa_handler = on_shutdown_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGINT, &action, &w->previous_int_) != 0 ||
      sigaction(SIGTERM, &action, &w->previous_term_) != 0)
    return runtime::status::from_errno("sigaction", errno);  // the destructor cleans up
  return w;
}

signal_watcher::~signal_watcher() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  active_write_fd = -1;
  if (thread_.joinable()) {
    auto byte = stop_byte;
    [[maybe_unused]] auto n = write(write_fd_, &byte, 1);
    thread_.join();
  }
  if (read_fd_ >= 0)
    close(read_fd_);
  if (write_fd_ >= 0)
    close(write_fd_);
  watcher_alive = false;
}

int signal_watcher::signals_seen() const { return seen_signals.load(); }

void signal_watcher::loop() {
  for (;;) {
    unsigned char byte = 0;
    auto n = read(read_fd_, &byte, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 || byte == stop_byte)
      return;
    if (on_first_)
      on_first_(static_cast<int>(byte));
  }
}

runtime::result<std::unique_ptr<signal_watcher>> watch_shutdown_signals(
  messages::shutdown_listener target, std::shared_ptr<const runtime::clock> clock) {
  if (!clock)
    clock = std::make_shared<runtime::system_clock>();
  return signal_watcher::start([target, clock](int signo) {
    caf::anon_send(target, messages::shutdown_requested{signo, clock->now()});
  });
}

} // namespace ad::actors
