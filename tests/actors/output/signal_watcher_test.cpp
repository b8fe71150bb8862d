// The signal watcher, exercised in forked children so real signals never hit
// the test runner: the first SIGINT/SIGTERM reaches the callback (and, through
// watch_shutdown_signals, an actor as shutdown_requested), the second ends
// the process with exit code 130 at once, and a destroyed watcher restores
// the previous handlers.
#include "actors/output/signal_watcher.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <caf/all.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "messages/types.hpp"

namespace ad::actors {
namespace {

// Runs body in a child process and returns its wait status.
template <class Body>
int in_child(Body body) {
  pid_t pid = fork();
  if (pid == 0) {
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Waits until flag is set or about two seconds pass.
bool wait_for(const std::atomic<int>& flag) {
  for (int i = 0; i < 400 && flag.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return flag.load() != 0;
}

TEST(signal_watcher, first_sigint_reaches_the_callback) {
  int status = in_child([] {
    std::atomic<int> got{0};
    auto w = signal_watcher::start([&](int signo) { got = signo; });
    if (!w)
      return 10;
    raise(SIGINT);
    if (!wait_for(got))
      return 11;
    if (got != SIGINT || (*w)->signals_seen() != 1)
      return 12;
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(signal_watcher, sigterm_counts_too) {
  int status = in_child([] {
    std::atomic<int> got{0};
    auto w = signal_watcher::start([&](int signo) { got = signo; });
    if (!w)
      return 10;
    raise(SIGTERM);
    return wait_for(got) && got == SIGTERM ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(signal_watcher, second_signal_exits_130_at_once) {
  int status = in_child([] {
    std::atomic<int> got{0};
    auto w = signal_watcher::start([&](int signo) { got = signo; });
    if (!w)
      return 10;
    raise(SIGINT);
    if (!wait_for(got))
      return 11;
    raise(SIGTERM);
    return 12;  // never reached
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), interrupted_exit_code);
}

TEST(signal_watcher, only_one_at_a_time_and_handlers_restored) {
  int status = in_child([] {
    {
      auto w = signal_watcher::start([](int) {});
      if (!w)
        return 10;
      auto again = signal_watcher::start([](int) {});
      if (again || !again.error().is_conflict())
        return 11;
    }
    auto after = signal_watcher::start([](int) {});
    if (!after)
      return 12;
    after = runtime::status::internal("drop it");  // destroys the watcher
    raise(SIGINT);  // default action again: the child dies of SIGINT
    return 13;
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST(signal_watcher, delivers_shutdown_requested_to_an_actor) {
  int status = in_child([] {
    caf::actor_system_config cfg;
    messages::register_message_types(cfg);
    caf::actor_system sys{cfg};
    std::atomic<int> got{0};
    std::atomic<int64_t> at{0};
    messages::shutdown_listener listener =
      sys.spawn(
        [&](messages::shutdown_listener::pointer, int) -> messages::shutdown_listener::behavior_type {
          return {[&](const messages::shutdown_requested& x) {
            at = x.time;
            got = x.signal_number;
          }};
        },
        0);
    auto clock = std::make_shared<runtime::manual_clock>(1'800'000'000'000);
    auto w = watch_shutdown_signals(listener, clock);
    if (!w)
      return 10;
    raise(SIGINT);
    bool ok = wait_for(got) && got == SIGINT && at == 1'800'000'000'000;
    caf::anon_send_exit(listener, caf::exit_reason::user_shutdown);
    return ok ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

} // namespace
} // namespace ad::actors
