#include "runtime/process/run_captured.hpp"

#include <cerrno>
#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/process/spawn.hpp"

namespace ad::runtime {

captured_run run_captured(const std::vector<std::string>& argv, const capture_options& options) {
  captured_run out;
  spawn_request req;
  req.argv = argv;
  req.cwd = options.cwd;
  req.env_additions = options.env_additions;
  req.stdin_fd = options.stdin_fd;
  auto spawned = spawn_child(req);
  if (auto* failed = std::get_if<launch_failure>(&spawned)) {
    out.exit_code = launch_failure_exit_code;
    out.stderr_text = failed->reason;
    return out;
  }
  auto child = std::get<spawned_child>(spawned);
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[2] = {{child.stdout_fd, POLLIN, 0}, {child.stderr_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out.stdout_text, &out.stderr_text};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || (options.cancel != nullptr && options.cancel->load())) {
      out.timed_out = true;
      break;
    }
    if (options.cancel != nullptr)
      left = std::min(left, std::chrono::milliseconds(100));
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n <= 0)
      continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (sinks[i]->size() < options.max_bytes)
          sinks[i]->append(buf, std::min(static_cast<size_t>(got),
                                         options.max_bytes - sinks[i]->size()));
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (out.timed_out)
    ::kill(-child.pid, SIGKILL);
  for (auto& p : fds)
    if (p.fd >= 0)
      ::close(p.fd);
  int status = 0;
  // The pipes closed: the command is ending; a timed-out one was just killed.
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (out.timed_out)
    out.exit_code = 124;
  else
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

} // namespace ad::runtime
