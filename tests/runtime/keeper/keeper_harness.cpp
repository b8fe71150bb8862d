#include "tests/runtime/keeper/keeper_harness.hpp"

#include <gtest/gtest.h>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <sstream>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

extern char** environ;

namespace ad::test::keeper {

namespace fs = std::filesystem;

fs::path keeper_binary() { return binary_dir() / "ad-keeper"; }
fs::path test_agent() { return binary_dir() / "keeper-test-agent"; }

std::string unique_marker() {
  static std::atomic<int> counter{0};
  return "keeper-test-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

runtime::keeper_invocation invocation(const fs::path& dir, std::vector<std::string> steps) {
  runtime::keeper_invocation inv;
  inv.attempt_dir = dir;
  inv.marker = unique_marker();
  inv.agent_argv = {test_agent().string()};
  inv.agent_argv.insert(inv.agent_argv.end(), steps.begin(), steps.end());
  return inv;
}

pid_t spawn_keeper(const std::vector<std::string>& args, const fs::path& output_file, session_choice session,
                   const std::vector<std::string>& extra_env) {
  std::vector<std::string> all = {keeper_binary().string()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e)
    env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (auto& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_file.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (session == session_choice::own_session)
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  EXPECT_EQ(rc, 0) << std::strerror(rc);
  return pid;
}

std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int st = 0;
    pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid)
      return st;
    if (r < 0)
      return std::nullopt;
    if (std::chrono::steady_clock::now() >= end)
      return std::nullopt;
    std::this_thread::sleep_for(2ms);
  }
}

keeper_result run_keeper(const runtime::keeper_invocation& inv, std::chrono::milliseconds timeout) {
  temp_dir out;
  auto file = out.path() / "keeper.out";
  auto start = std::chrono::steady_clock::now();
  pid_t pid = spawn_keeper(runtime::keeper_arguments(inv), file);
  keeper_result r;
  auto st = wait_for_exit(pid, timeout);
  r.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  if (!st) {
    ADD_FAILURE() << "ad-keeper did not end within " << timeout.count() << " ms";
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    kill_marked(inv.marker);
  } else if (WIFEXITED(*st)) {
    r.exit_code = WEXITSTATUS(*st);
  } else {
    ADD_FAILURE() << "ad-keeper was killed by signal " << WTERMSIG(*st);
  }
  r.output = read_text(file);
  return r;
}

bool process_gone(int pid) {
  auto stat = runtime::read_file("/proc/" + std::to_string(pid) + "/stat", 64 << 10);
  if (!stat)
    return true;
  auto close = stat->rfind(')');
  return close == std::string::npos || stat->size() < close + 3 || (*stat)[close + 2] == 'Z' ||
         (*stat)[close + 2] == 'X';
}

std::vector<int> processes_with_marker(const std::string& marker) {
  std::vector<int> pids;
  std::string needle = "AGENT_DISPATCH_EXECUTION_ID=" + marker;
  DIR* d = ::opendir("/proc");
  if (d == nullptr)
    return pids;
  while (dirent* e = ::readdir(d)) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0)
      continue;
    auto env = runtime::read_file("/proc/" + std::string(e->d_name) + "/environ", 1 << 20);
    if (!env)
      continue;
    std::string_view rest(*env);
    while (!rest.empty()) {
      auto end = rest.find('\0');
      if (rest.substr(0, end) == needle) {
        if (!process_gone(pid))
          pids.push_back(pid);
        break;
      }
      if (end == std::string_view::npos)
        break;
      rest.remove_prefix(end + 1);
    }
  }
  ::closedir(d);
  return pids;
}

void kill_marked(const std::string& marker) {
  for (int pid : processes_with_marker(marker))
    ::kill(pid, SIGKILL);
}

std::string read_text(const fs::path& p) {
  auto t = runtime::read_file(p, 256u << 20);
  return t.is_ok() ? *t : std::string();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

runtime::keeper_exit_record exit_record_of(const fs::path& dir) {
  auto e = runtime::read_exit_record(dir);
  EXPECT_TRUE(e.is_ok()) << e.error().to_string();
  if (!e.is_ok())
    return {};
  EXPECT_EQ(e->state, runtime::keeper_exit_state::ended) << "no exit.json in " << dir;
  return e->record;
}

} // namespace ad::test::keeper
