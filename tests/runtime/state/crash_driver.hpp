#pragma once
// The SIGKILL crash loop shared by the crash test and the soak mode of
// bench/state: a forked child opens the durable store and commits scripted
// batches, reporting each acknowledgement through a pipe; the parent kills it
// with SIGKILL after a random delay, reloads the state and checks that every
// acknowledged batch is present, every batch is all-or-nothing, and the state
// equals a replay of exactly the batches present. The state root carries over
// between iterations, so later children recover from earlier kills
// (including kills during compaction). Test-only code; no GoogleTest here.

#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>
#include <unistd.h>

#include "runtime/state/durable_store.hpp"
#include "tests/runtime/state/state_fixtures.hpp"

namespace ad::runtime::test {

struct crash_loop_result {
  int iterations = 0;
  int64_t batches_acknowledged = 0;
  int64_t torn_tails_dropped = 0;
  std::string failure;  // empty when every check passed
};

namespace crash_detail {

[[noreturn]] inline void child_main(const std::filesystem::path& root,
                                    const workspace_identity& id, int start, int out_fd) {
  store_options options;
  options.compact_after_bytes = 24 << 10;  // compact often, so kills land inside compactions
  auto store = durable_store::open(root, id, posix_file_layer(), options);
  if (!store)
    ::_exit(3);
  for (int i = start; i < start + 1000000; ++i) {
    auto done = (*store)->commit({scripted_batch(i)});
    if (!done)
      ::_exit(4);
    int32_t ack = i;
    if (::write(out_fd, &ack, sizeof ack) != sizeof ack)
      ::_exit(5);
  }
  ::_exit(0);
}

} // namespace crash_detail

// Runs `iterations` kill/reload rounds in `root`; stops at the first failed check.
inline crash_loop_result run_crash_loop(const std::filesystem::path& root,
                                        const workspace_identity& id, int iterations,
                                        uint32_t seed) {
  crash_loop_result out;
  std::mt19937 rng(seed);
  int present = 0;  // batches 0..present-1 are in the state
  for (int it = 0; it < iterations; ++it) {
    int fds[2];
    if (::pipe(fds) != 0) {
      out.failure = "pipe failed";
      return out;
    }
    pid_t pid = ::fork();
    if (pid < 0) {
      out.failure = "fork failed";
      return out;
    }
    if (pid == 0) {
      ::close(fds[0]);
      crash_detail::child_main(root, id, present, fds[1]);
    }
    ::close(fds[1]);
    // Three rounds in four wait for the first acknowledgement, so the kill
    // lands among commits and compactions even on a slow machine; the
    // fourth may kill the child while it is still opening or recovering.
    std::vector<int32_t> early;
    if (it % 4 != 3) {
      int32_t first = 0;
      if (::read(fds[0], &first, sizeof first) == sizeof first)
        early.push_back(first);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 25000)(rng)));
    ::kill(pid, SIGKILL);
    int wstatus = 0;
    ::waitpid(pid, &wstatus, 0);
    int max_acked = present - 1;
    int32_t ack = 0;
    size_t next_early = 0;
    auto next_ack = [&]() {
      if (next_early < early.size()) {
        ack = early[next_early++];
        return true;
      }
      return ::read(fds[0], &ack, sizeof ack) == sizeof ack;
    };
    while (next_ack()) {
      if (ack != max_acked + 1) {
        out.failure = "acknowledgements out of order: " + std::to_string(ack) + " after "
                      + std::to_string(max_acked);
        ::close(fds[0]);
        return out;
      }
      max_acked = ack;
      ++out.batches_acknowledged;
    }
    ::close(fds[0]);
    if (WIFEXITED(wstatus)) {
      out.failure = "child exited by itself with code " + std::to_string(WEXITSTATUS(wstatus));
      return out;
    }
    auto store = durable_store::open(root, id, posix_file_layer());
    if (!store) {
      out.failure = "iteration " + std::to_string(it) + ": reload failed: " + store.error().to_string();
      return out;
    }
    out.torn_tails_dropped += (*store)->report().dropped_tail_bytes > 0;
    const auto& state = (*store)->state();
    int now_present = 0;
    for (int i = 0; i <= max_acked + 1; ++i) {
      int m = markers_present(state, i);
      if (m != 0 && m != 3) {
        out.failure = "batch " + std::to_string(i) + " is half present";
        return out;
      }
      if (m == 3)
        now_present = i + 1;
      else if (i <= max_acked) {
        out.failure = "acknowledged batch " + std::to_string(i) + " is missing after SIGKILL";
        return out;
      } else
        break;
    }
    if (markers_present(state, now_present + 1) != 0) {
      out.failure = "a batch after the first missing one is present";
      return out;
    }
    state_model expected;
    for (int i = 0; i < now_present; ++i)
      for (const auto& c : scripted_batch(i))
        (void) apply_change(expected, c);
    if (!(expected == state)) {
      out.failure = "iteration " + std::to_string(it) + ": reloaded state differs from a replay of "
                    + std::to_string(now_present) + " batches";
      return out;
    }
    present = now_present;
    ++out.iterations;
  }
  return out;
}

} // namespace ad::runtime::test
