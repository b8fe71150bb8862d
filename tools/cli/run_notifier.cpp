#include "tools/cli/run_notifier.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <sys/mman.h>
#include <unistd.h>

#include "tools/cli/http_library.hpp"
#include <spdlog/spdlog.h>

#include "runtime/process/run_captured.hpp"

namespace ad::cli {

namespace {

// How long a stopped worker may take to end before it is left behind.
constexpr auto stop_wait = std::chrono::seconds(1);

std::string first_line(const std::string& text) {
  return text.substr(0, std::min<std::size_t>(text.find('\n'), 200));
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

// The notify event and its task, for warnings ("task_blocked g/02_bad").
std::string subject(const runtime::notification& n) {
  std::string task = n.body.value("task", "");
  return std::string(runtime::to_string(n.event)) + (task.empty() ? "" : " " + task);
}

} // namespace

struct run_notifier::core {
  runtime::policy_notify notify;
  std::string workspace;
  std::mutex mutex;
  std::condition_variable wake;  // the worker: work or stop
  std::condition_variable idle;  // finish() and stop(): the queue drained, the worker ended
  std::deque<runtime::notification> queue;
  bool busy = false;
  bool stopping = false;
  bool ended = false;
  std::optional<runtime::notify_event> current;  // the one being sent
  // Set: the one being sent stops (the run ends, or its end goes first).
  std::atomic<bool> cancel{false};
  httplib::Client* in_flight = nullptr;  // the POST being sent, under mutex

  void serve();
  void send(const runtime::notification& n);
  // One try; "" when it succeeded, else what went wrong.
  std::string run_command(const runtime::notification& n, const std::string& body);
  std::string post(const runtime::notification& n, const std::string& body);
  // Sleeps `seconds` unless stopped; false when stopped.
  bool pause(double seconds);
  // Stops the notification being sent; under mutex.
  void abort_current() {
    cancel = true;
    if (in_flight != nullptr)
      in_flight->stop();
    wake.notify_all();
  }
};

run_notifier::run_notifier(runtime::policy_notify notify, std::string workspace)
    : core_(std::make_shared<core>()) {
  core_->notify = std::move(notify);
  core_->workspace = std::move(workspace);
  worker_ = std::thread([c = core_] { c->serve(); });
}

run_notifier::~run_notifier() { stop(); }

void run_notifier::observe(const runtime::run_event& event) {
  auto sent = runtime::notifications_for(event, core_->notify, core_->workspace);
  if (sent.empty())
    return;
  std::lock_guard lock(core_->mutex);
  for (auto& n : sent) {
    auto limit = static_cast<std::size_t>(core_->notify.settings.queue);
    if (core_->stopping) {
      spdlog::warn("notify: rule {}: {} dropped: the notifier has stopped", n.rule, subject(n));
      continue;
    }
    if (core_->queue.size() >= limit) {
      spdlog::warn("notify: rule {}: {} dropped: {} notifications wait already (/notify/queue)",
                   n.rule, subject(n), core_->queue.size());
      continue;
    }
    core_->queue.push_back(std::move(n));
  }
  core_->wake.notify_one();
}

int64_t run_notifier::finish() {
  auto grace = std::chrono::duration<double>(core_->notify.settings.grace_s);
  std::size_t left = 0;
  {
    std::unique_lock lock(core_->mutex);
    // The run's end goes first.
    std::stable_partition(core_->queue.begin(), core_->queue.end(),
                          [](const runtime::notification& n) {
                            return n.event == runtime::notify_event::run_finished;
                          });
    // A notification in flight gives way to the run's end.
    bool end_waits = !core_->queue.empty()
                     && core_->queue.front().event == runtime::notify_event::run_finished;
    if (end_waits && core_->busy && core_->current != runtime::notify_event::run_finished)
      core_->abort_current();
    core_->idle.wait_for(lock, grace, [this] { return core_->queue.empty() && !core_->busy; });
    left = core_->queue.size() + (core_->busy ? 1 : 0);
  }
  stop();
  return static_cast<int64_t>(left);
}

void run_notifier::stop() {
  if (!worker_.joinable())
    return;
  bool ended = false;
  {
    std::unique_lock lock(core_->mutex);
    core_->stopping = true;
    core_->abort_current();
    for (const auto& n : core_->queue)
      spdlog::warn("notify: rule {}: {} not sent: the run ended (/notify/grace_s is {})", n.rule,
                   subject(n), seconds_text(core_->notify.settings.grace_s));
    core_->queue.clear();
    core_->wake.notify_all();
    ended = core_->idle.wait_for(lock, stop_wait, [this] { return core_->ended; });
  }
  if (ended) {
    worker_.join();
  } else {
    // It shares only core_, which it keeps alive; the process ends it.
    spdlog::warn("notify: a notification still in flight is left behind as the run exits");
    worker_.detach();
  }
}

void run_notifier::core::serve() {
  for (;;) {
    runtime::notification n;
    {
      std::unique_lock lock(mutex);
      wake.wait(lock, [this] { return stopping || !queue.empty(); });
      if (stopping) {
        ended = true;
        idle.notify_all();
        return;
      }
      n = std::move(queue.front());
      queue.pop_front();
      busy = true;
      current = n.event;
      cancel = false;
    }
    send(n);
    {
      std::lock_guard lock(mutex);
      busy = false;
      current.reset();
    }
    idle.notify_all();
  }
}

bool run_notifier::core::pause(double seconds) {
  std::unique_lock lock(mutex);
  return !wake.wait_for(lock, std::chrono::duration<double>(seconds),
                        [this] { return stopping || cancel; });
}

void run_notifier::core::send(const runtime::notification& n) {
  const std::string body = runtime::dump_json(n.body);
  const int tries = 1 + notify.settings.retries;
  auto deliver = [&](const std::string& how, auto&& attempt) {
    for (int i = 0; i < tries; ++i) {
      std::string error = attempt();
      if (error.empty())
        return;
      if (cancel) {
        spdlog::warn("notify: rule {}: {} {}: stopped as the run ends: {}", n.rule, subject(n),
                     how, error);
        return;
      }
      bool last = i + 1 == tries;
      spdlog::warn("notify: rule {}: {} {} failed (try {} of {}{}): {}", n.rule, subject(n), how,
                   i + 1, tries, last ? ", giving up" : "", error);
      if (last || !pause(runtime::notify_retry_delay_s(notify.settings, i)))
        return;
    }
  };
  if (!n.command.empty())
    deliver("command " + n.command.front(), [&] { return run_command(n, body); });
  if (!n.url.empty() && !cancel)
    deliver("POST " + n.url, [&] { return post(n, body); });
}

std::string run_notifier::core::run_command(const runtime::notification& n,
                                            const std::string& body) {
  // The JSON on stdin from an anonymous file: any length, no pipe to block on.
  int fd = ::memfd_create("agent-dispatch-notify", MFD_CLOEXEC);
  if (fd < 0)
    return std::string("cannot hold the event for its stdin: ") + std::strerror(errno);
  std::string text = body + "\n";
  bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())
                 && ::lseek(fd, 0, SEEK_SET) == 0;
  if (!written) {
    int e = errno;
    ::close(fd);
    return std::string("cannot hold the event for its stdin: ") + std::strerror(e);
  }
  runtime::capture_options opt;
  opt.cwd = workspace;
  opt.timeout =
    std::chrono::milliseconds(static_cast<int64_t>(std::ceil(notify.settings.timeout_s * 1000)));
  opt.max_bytes = 4096;
  opt.stdin_fd = fd;
  opt.cancel = &cancel;
  auto r = runtime::run_captured(n.command, opt);
  ::close(fd);
  if (r.timed_out)
    return cancel ? "killed with its process group"
                  : "did not end within " + seconds_text(notify.settings.timeout_s)
                      + " (/notify/timeout_s); killed with its process group";
  if (r.exit_code != 0) {
    std::string err = first_line(r.stderr_text);
    return "exit " + std::to_string(r.exit_code) + (err.empty() ? "" : ": " + err);
  }
  return "";
}

std::string run_notifier::core::post(const runtime::notification& n, const std::string& body) {
  auto url = runtime::split_url(n.url);
  if (!url)
    return "not an http:// or https:// URL";  // parse_policy refuses it before
  httplib::Client client(url->origin);
  auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(
    std::chrono::duration<double>(notify.settings.timeout_s));
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
  {
    std::lock_guard lock(mutex);
    if (cancel)
      return "the run ended";
    in_flight = &client;
  }
  auto result = client.Post(url->path, body, "application/json");
  {
    std::lock_guard lock(mutex);
    in_flight = nullptr;
  }
  if (!result)
    return httplib::to_string(result.error()) + " (each step bounded by /notify/timeout_s, "
           + seconds_text(notify.settings.timeout_s) + ")";
  if (result->status < 200 || result->status > 299)
    return "HTTP " + std::to_string(result->status) + " " + first_line(result->body);
  return "";
}

} // namespace ad::cli
