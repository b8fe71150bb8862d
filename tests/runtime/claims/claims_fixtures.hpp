#pragma once
// Helpers for the claims tests: a scratch folder on a chosen file system
// (tmpfs by default, so the fanotify tests see few foreign events), file
// writers, and child shells held alive on a pipe so /proc still shows them
// when their writes are drained. Test-only; asserts through GoogleTest.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ad::test {

class scratch_dir {
public:
  // Under /dev/shm when it exists (tmpfs), else the temp directory.
  scratch_dir();
  explicit scratch_dir(const std::filesystem::path& parent);
  ~scratch_dir();
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

// Writes content to `p`, creating parent folders.
void put_file(const std::filesystem::path& p, std::string_view content);

// A /bin/sh -c script run with exactly `env` as its environment. The script
// signals it is done writing by printing a line on stdout; wait_line() reads
// it. The child then blocks in `read` on stdin until release() closes it.
class held_shell {
public:
  held_shell(const std::string& script, const std::vector<std::string>& args,
             const std::vector<std::string>& env);
  ~held_shell();
  held_shell(const held_shell&) = delete;
  held_shell& operator=(const held_shell&) = delete;

  int pid() const { return pid_; }
  // The next stdout line, or "" after `timeout_ms` (a failure is recorded).
  std::string wait_line(int timeout_ms = 10000);
  // Closes stdin and reaps the child; its exit status.
  int release();

private:
  int pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string pending_;
};

// The environment given to children: PATH, plus the marker when not empty.
std::vector<std::string> child_env(const std::string& marker);

} // namespace ad::test
