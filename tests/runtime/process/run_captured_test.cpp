// run_captured: a command's stdin from a descriptor, the timeout and the
// cancel flag, both of which kill the command's whole process group.
#include "runtime/process/run_captured.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

using namespace std::chrono_literals;

TEST(run_captured, the_command_reads_its_stdin_from_the_given_descriptor) {
  int fd = ::memfd_create("stdin", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string text = "{\"event\":\"summary\"}\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  capture_options opt;
  opt.stdin_fd = fd;
  auto r = run_captured({"cat"}, opt);
  ::close(fd);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_text, text);
  // Without one, stdin is /dev/null.
  EXPECT_EQ(run_captured({"cat"}, capture_options{}).stdout_text, "");
}

// Running, not killed or a zombie waiting for its orphan reaper.
bool runs(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return false;
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// The command's background child wrote its pid; it must be gone too.
void expect_group_gone(const std::filesystem::path& pid_file) {
  std::ifstream in(pid_file);
  pid_t pid = 0;
  ASSERT_TRUE(in >> pid);
  for (int i = 0; i < 50 && runs(pid); ++i)
    std::this_thread::sleep_for(20ms);  // SIGKILL is delivered, not waited for
  EXPECT_FALSE(runs(pid)) << "pid " << pid << " outlived the command";
}

TEST(run_captured, cancel_kills_the_process_group_within_a_poll_slice) {
  test::temp_dir dir;
  auto pids = dir.path() / "pid";
  std::atomic<bool> cancel{false};
  capture_options opt;
  opt.timeout = 600s;
  opt.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(300ms);
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto r = run_captured({"sh", "-c", "sleep 600 & echo $! > " + pids.string() + "; wait"}, opt);
  auto took = std::chrono::steady_clock::now() - start;
  canceller.join();
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 124);
  EXPECT_LT(took, 5s);
  expect_group_gone(pids);
}

TEST(run_captured, a_command_past_its_timeout_is_killed_with_its_group) {
  test::temp_dir dir;
  auto pids = dir.path() / "pid";
  capture_options opt;
  opt.timeout = 300ms;
  auto r = run_captured({"sh", "-c", "sleep 600 & echo $! > " + pids.string() + "; wait"}, opt);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 124);
  expect_group_gone(pids);
}

} // namespace
} // namespace ad::runtime
