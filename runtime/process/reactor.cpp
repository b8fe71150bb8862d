#include "runtime/process/reactor.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

#include "runtime/keeper/keeper_args.hpp"
#include "runtime/keeper/keeper_liveness.hpp"
#include "runtime/process/liveness.hpp"
#include "runtime/process/reactor_impl.hpp"

// The thread-safe public side of the reactor: start, spawn (posix_spawn in
// the caller's thread, then a queued hand-over), terminate and shutdown.
// The loop itself is in reactor_loop.cpp.

namespace ad::runtime {

using reactor_detail::command;

result<std::unique_ptr<process_reactor>> process_reactor::start(reactor_options options) {
  std::unique_ptr<process_reactor> r(new process_reactor());
  auto im = std::make_unique<impl>();
  im->opt = options;
  im->running = &r->running_;
  if (auto st = im->open(options.watch); !st)
    return st;
  r->watch_ = im->use_pidfd ? exit_watch::pidfd : exit_watch::signal_fallback;
  r->impl_ = std::move(im);
  impl* raw = r->impl_.get();
  try {
    r->thread_ = std::thread([raw] { raw->loop(); });
  } catch (const std::exception& e) {
    return status::io_error(std::string("process reactor: cannot start thread: ") + e.what());
  }
  return r;
}

process_reactor::~process_reactor() { shutdown(shutdown_mode::terminate_children); }

result<spawn_outcome> process_reactor::spawn(spawn_request request) {
  if (!request.sink)
    return status::invalid_argument("spawn request without an event sink");
  {
    std::lock_guard<std::mutex> guard(impl_->mu);
    if (impl_->stop_requested)
      return status::unsupported("process reactor is shut down");
  }
  spawn_outcome out;
  out.id = next_id_.fetch_add(1);
  std::filesystem::path attempt_dir;
  if (request.keeper) {
    // The keeper is what runs here; the agent's argv, environment and
    // marker go to it as arguments (docs/keeper.md).
    keeper_invocation inv;
    inv.attempt_dir = request.keeper->attempt_dir;
    inv.marker = request.marker;
    inv.cwd = request.cwd;
    inv.env = request.env_additions;
    inv.grace_ms = request.keeper->grace_ms;
    inv.lease_file = request.keeper->lease_file;
    inv.lease_ms = request.keeper->lease_ms;
    inv.keep_alive = request.keeper->keep_alive;
    inv.line_cap = request.line_cap == 0 ? default_line_cap : request.line_cap;
    inv.agent_argv = request.argv;
    attempt_dir = request.keeper->attempt_dir;
    request.argv = keeper_arguments(inv);
    request.argv.insert(request.argv.begin(), request.keeper->keeper.string());
    request.env_additions.clear();
    request.cwd = attempt_dir;
    // Only the agent carries the marker: a process found by it is an agent.
    request.marker.clear();
  }
  auto spawned = spawn_child(request);
  command cmd;
  cmd.id = out.id;
  cmd.sink = std::move(request.sink);
  if (auto* failure = std::get_if<launch_failure>(&spawned)) {
    out.kind = spawn_result_kind::launch_failed;
    out.reason = failure->reason;
    cmd.what = command::kind::launch_failed;
    cmd.reason = failure->reason;
  } else {
    const auto& child = std::get<spawned_child>(spawned);
    out.kind = spawn_result_kind::started;
    out.pid = child.pid;
    if (auto token = process_start_token(child.pid))
      out.start_token = *token;
    cmd.what = command::kind::add_child;
    cmd.child = child;
    cmd.line_cap = request.line_cap == 0 ? default_line_cap : request.line_cap;
    cmd.silence_ms = request.silence_interval_ms;
    cmd.flow_window = request.flow_window;
    cmd.attempt_dir = attempt_dir;
    running_.fetch_add(1);
  }
  {
    std::lock_guard<std::mutex> guard(impl_->mu);
    if (impl_->stop_requested && cmd.what == command::kind::add_child) {
      // Shut down while spawning: do not leave the child unwatched.
      ::kill(-cmd.child.pid, SIGKILL);
      ::waitpid(cmd.child.pid, nullptr, 0);
      ::close(cmd.child.stdout_fd);
      ::close(cmd.child.stderr_fd);
      running_.fetch_sub(1);
      return status::unsupported("process reactor is shut down");
    }
    impl_->queue.push_back(std::move(cmd));
  }
  uint64_t one = 1;
  ssize_t n = ::write(impl_->evfd, &one, sizeof one);
  (void) n;
  return out;
}

result<child_id> process_reactor::adopt(adopt_request request) {
  if (!request.sink)
    return status::invalid_argument("adopt request without an event sink");
  if (request.keeper_pid <= 0)
    return status::invalid_argument("adopt request without the keeper's pid");
  command cmd;
  cmd.what = command::kind::adopt;
  const child_id id = next_id_.fetch_add(1);
  cmd.id = id;
  cmd.sink = std::move(request.sink);
  cmd.child.pid = request.keeper_pid;
  cmd.keeper_token = std::move(request.keeper_start_token);
  cmd.attempt_dir = std::move(request.attempt_dir);
  cmd.silence_ms = request.silence_interval_ms;
  cmd.flow_window = request.flow_window;
  {
    std::lock_guard<std::mutex> guard(impl_->mu);
    if (impl_->stop_requested)
      return status::unsupported("process reactor is shut down");
    running_.fetch_add(1);
    impl_->queue.push_back(std::move(cmd));
  }
  uint64_t one = 1;
  ssize_t n = ::write(impl_->evfd, &one, sizeof one);
  (void) n;
  return id;
}

// Queues a command about one child unless the reactor is shut down.
static status post_unless_stopped(process_reactor::impl& im, command cmd) {
  {
    std::lock_guard<std::mutex> guard(im.mu);
    if (im.stop_requested)
      return status::unsupported("process reactor is shut down");
  }
  im.post(std::move(cmd));
  return status::ok();
}

status process_reactor::terminate(child_id id, int64_t grace_ms) {
  command cmd;
  cmd.what = command::kind::terminate;
  cmd.id = id;
  cmd.grace_ms = grace_ms;
  return post_unless_stopped(*impl_, std::move(cmd));
}

status process_reactor::acknowledge(child_id id, uint64_t bytes) {
  command cmd;
  cmd.what = command::kind::acknowledge;
  cmd.id = id;
  cmd.bytes = bytes;
  return post_unless_stopped(*impl_, std::move(cmd));
}

void process_reactor::shutdown(shutdown_mode mode) {
  if (!impl_)
    return;
  bool first = false;
  {
    std::lock_guard<std::mutex> guard(impl_->mu);
    if (!impl_->stop_requested) {
      impl_->stop_requested = true;
      first = true;
    }
  }
  if (first) {
    command cmd;
    cmd.what = command::kind::shutdown;
    cmd.mode = mode;
    impl_->post(std::move(cmd));
  }
  if (std::this_thread::get_id() == thread_.get_id())
    return;
  std::lock_guard<std::mutex> guard(shutdown_mutex_);
  if (thread_.joinable())
    thread_.join();
}

} // namespace ad::runtime
