#include "tests/runtime/claims/claims_fixtures.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ad::test {

namespace fs = std::filesystem;

namespace {
fs::path default_parent() {
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec))
    return "/dev/shm";
  return fs::temp_directory_path();
}
} // namespace

scratch_dir::scratch_dir() : scratch_dir(default_parent()) {}

scratch_dir::scratch_dir(const fs::path& parent) {
  std::string tmpl = (parent / "ad-claims-XXXXXX").string();
  char* made = ::mkdtemp(tmpl.data());
  EXPECT_NE(made, nullptr) << "mkdtemp under " << parent;
  path_ = fs::canonical(tmpl);
}

scratch_dir::~scratch_dir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void put_file(const fs::path& p, std::string_view content) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  EXPECT_TRUE(out.good()) << "cannot write " << p;
}

std::vector<std::string> child_env(const std::string& marker) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
  if (!marker.empty())
    env.push_back("AGENT_DISPATCH_EXECUTION_ID=" + marker);
  return env;
}

held_shell::held_shell(const std::string& script, const std::vector<std::string>& args,
                       const std::vector<std::string>& env) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe2 failed";
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  std::vector<std::string> argv_s = {"sh", "-c", script, "sh"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_s)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = env;
  for (auto& e : env_s)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, "/bin/sh", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  in_ = in[1];
  out_ = out[0];
  if (rc != 0) {
    ADD_FAILURE() << "posix_spawn /bin/sh: " << std::strerror(rc);
    return;
  }
  pid_ = pid;
}

held_shell::~held_shell() { release(); }

std::string held_shell::wait_line(int timeout_ms) {
  for (;;) {
    auto nl = pending_.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    struct pollfd p {out_, POLLIN, 0};
    int r = ::poll(&p, 1, timeout_ms);
    if (r <= 0) {
      ADD_FAILURE() << "child " << pid_ << " printed no line within " << timeout_ms << " ms";
      return {};
    }
    char buf[256];
    ssize_t n = ::read(out_, buf, sizeof buf);
    if (n <= 0) {
      ADD_FAILURE() << "child " << pid_ << " closed stdout without a line";
      return {};
    }
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

int held_shell::release() {
  if (in_ >= 0)
    ::close(in_);
  in_ = -1;
  int st = -1;
  if (pid_ > 0) {
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  if (out_ >= 0)
    ::close(out_);
  out_ = -1;
  return st;
}

} // namespace ad::test
