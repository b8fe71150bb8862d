#include "tests/e2e/agents_sim/sim_process.hpp"

#include <cerrno>
#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <variant>

#include "runtime/process/line_splitter.hpp"
#include "runtime/process/spawn.hpp"

namespace ad::test {

namespace {

struct pipe_reader {
  int fd = -1;
  sim_channel channel = sim_channel::out;
  runtime::line_splitter splitter;
};

} // namespace

sim_run run_to_exit(const sim_request& request) {
  sim_run run;
  runtime::spawn_request spawn;
  spawn.argv = request.argv;
  spawn.cwd = request.cwd;
  spawn.env_additions = request.env;
  spawn.marker = request.marker;
  auto started = runtime::spawn_child(spawn);
  if (auto* failed = std::get_if<runtime::launch_failure>(&started)) {
    run.launch_error = failed->reason;
    return run;
  }
  auto child = std::get<runtime::spawned_child>(started);
  run.launched = true;

  pipe_reader readers[2];
  readers[0].fd = child.stdout_fd;
  readers[0].channel = sim_channel::out;
  readers[1].fd = child.stderr_fd;
  readers[1].channel = sim_channel::err;

  const auto deadline = std::chrono::steady_clock::now() + request.timeout;
  auto deliver = [&](sim_channel channel, std::string&& text) {
    run.lines.push_back({channel, std::move(text)});
    if (!run.terminated_by_test && request.stop_when && request.stop_when(run.lines.back())) {
      run.terminated_by_test = true;
      ::kill(-child.pid, SIGTERM);
    }
  };
  char buffer[64 * 1024];
  while (readers[0].fd >= 0 || readers[1].fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 && !run.timed_out) {
      run.timed_out = true;
      ::kill(-child.pid, SIGKILL);
    }
    pollfd fds[2];
    for (int i = 0; i < 2; ++i)
      fds[i] = {readers[i].fd, POLLIN, 0};
    int ready = ::poll(fds, 2, run.timed_out ? 1000 : static_cast<int>(left.count()) + 1);
    if (ready < 0 && errno != EINTR)
      break;
    // stdout first: a line written to stdout before a stderr line is
    // delivered before it, whatever poll reports together.
    for (int i = 0; i < 2; ++i) {
      if (readers[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
        continue;
      for (;;) {
        ssize_t n = ::read(readers[i].fd, buffer, sizeof buffer);
        if (n > 0) {
          readers[i].splitter.feed(std::string_view(buffer, static_cast<size_t>(n)),
                                   [&](std::string&& text, runtime::line_cut, uint64_t) {
                                     deliver(readers[i].channel, std::move(text));
                                   });
          continue;
        }
        if (n < 0 && errno == EINTR)
          continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
          break;
        readers[i].splitter.finish([&](std::string&& text, runtime::line_cut, uint64_t) {
          deliver(readers[i].channel, std::move(text));
        });
        ::close(readers[i].fd);
        readers[i].fd = -1;
        break;
      }
    }
  }
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    run.signaled = true;
    run.signal = WTERMSIG(status);
  } else {
    run.exit_code = WEXITSTATUS(status);
  }
  return run;
}

} // namespace ad::test
