// bench_keeper: what an agent's keeper (ad-keeper, docs/keeper.md) costs.
//   1. start latency: spawn to the agent's first line, read from a pipe when
//      the agent is spawned directly, seen in stream.log when it runs under
//      ad-keeper (median and 90th percentile of --runs starts each);
//   2. memory: the keeper's VmRSS (and its anonymous and file-backed parts)
//      sampled from /proc every few milliseconds while it follows an agent
//      that prints --mb MB of 100-byte lines (then of 1000-byte lines) as
//      fast as it can;
//   3. CPU per MB of output: the keeper's own user + system time (read from
//      /proc/<pid>/stat of the ended keeper before it is reaped);
//   4. CPU per attempt: the user + system time of the starts of 1. (wait4's
//      account, in microseconds, of the agent alone and of the keeper with
//      the agent it reaped), so the keeper's own share of an attempt.
// The load average is printed beside the figures.

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/files.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

std::string load_average() {
  auto t = ad::runtime::read_file("/proc/loadavg", 4096);
  if (!t)
    return "?";
  std::string s = *t;
  // The first three fields: 1, 5 and 15 minutes.
  std::size_t cut = 0;
  for (int i = 0; i < 3 && cut != std::string::npos; ++i)
    cut = s.find(' ', cut + 1);
  return s.substr(0, cut);
}

pid_t spawn(const std::vector<std::string>& args, int stdout_fd, bool new_session) {
  std::vector<char*> argv;
  std::vector<std::string> copy = args;
  for (auto& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (stdout_fd >= 0)
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  else
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (new_session)
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "bench_keeper: cannot start %s\n", argv[0]);
    std::exit(2);
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return pid;
}

// The CPU of a child and of the children it reaped, in ms, once it ends.
double reap_cpu_ms(pid_t pid) {
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid)
    return 0;
  auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1000.0 + t.tv_usec / 1000.0; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

struct start_cost {
  double ms = 0;     // spawn to the first line
  double cpu_ms = 0; // CPU of the process started and what it reaped
};

// Spawn to first line, agent started directly with its stdout in a pipe.
start_cost direct_start(const fs::path& agent) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0)
    std::exit(2);
  auto t0 = clock_type::now();
  pid_t pid = spawn({agent.string(), "out:first"}, p[1], true);
  ::close(p[1]);
  char buf[256];
  std::string got;
  while (got.find('\n') == std::string::npos) {
    ssize_t n = ::read(p[0], buf, sizeof buf);
    if (n <= 0)
      break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  double ms = ms_since(t0);
  ::close(p[0]);
  return {ms, reap_cpu_ms(pid)};
}

// Spawn of ad-keeper to the agent's first line in stream.log.
start_cost keeper_start(const fs::path& keeper, const fs::path& agent, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto log = dir / "stream.log";
  auto t0 = clock_type::now();
  pid_t pid = spawn({keeper.string(), "--attempt-dir", dir.string(), "--marker", "bench", "--", agent.string(),
                     "out:first"},
                    -1, true);
  struct stat st {};
  while (::stat(log.c_str(), &st) != 0 || st.st_size < 15) // "[stdout] first\n"
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  double ms = ms_since(t0);
  return {ms, reap_cpu_ms(pid)};
}

struct spread {
  double median = 0, p90 = 0;
};

spread spread_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)]};
}

struct memory {
  long rss_kb = 0, anon_kb = 0, file_kb = 0;
};

memory sample_memory(pid_t pid) {
  memory m;
  auto t = ad::runtime::read_file("/proc/" + std::to_string(pid) + "/status", 1 << 16);
  if (!t)
    return m;
  auto field = [&](const char* name) {
    auto at = t->find(name);
    return at == std::string::npos ? 0L : std::atol(t->c_str() + at + std::strlen(name));
  };
  m.rss_kb = field("VmRSS:");
  m.anon_kb = field("RssAnon:");
  m.file_kb = field("RssFile:");
  return m;
}

// Fields 14 and 15 (utime, stime) and 16, 17 (the waited children's).
std::vector<double> cpu_seconds(pid_t pid) {
  auto t = ad::runtime::read_file("/proc/" + std::to_string(pid) + "/stat", 1 << 16);
  std::vector<double> out(4, 0.0);
  if (!t)
    return out;
  std::string rest = t->substr(t->rfind(')') + 2);
  std::vector<std::string> f;
  for (std::size_t at = 0; at < rest.size();) {
    auto end = rest.find(' ', at);
    f.push_back(rest.substr(at, end - at));
    at = end == std::string::npos ? rest.size() : end + 1;
  }
  double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  for (int i = 0; i < 4; ++i) // fields 14..17 are f[11..14]
    out[static_cast<std::size_t>(i)] = std::atof(f[static_cast<std::size_t>(11 + i)].c_str()) / tick;
  return out;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"The cost of ad-keeper: start latency, memory, CPU per MB"};
  fs::path bin = AD_BINARY_DIR;
  fs::path keeper = bin / "ad-keeper", agent = bin / "keeper-test-agent", dir;
  int runs = 30;
  int mb = 200;
  app.add_option("--keeper", keeper, "the ad-keeper to measure");
  app.add_option("--agent", agent, "keeper-test-agent");
  app.add_option("--runs", runs, "starts measured each way");
  app.add_option("--mb", mb, "MB of output of the chatty agent");
  app.add_option("--dir", dir, "scratch folder (default: a temporary one)");
  CLI11_PARSE(app, argc, argv);
  bool own_dir = dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/bench-keeper-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  std::printf("bench_keeper: %s; load average %s\n", keeper.c_str(), load_average().c_str());

  std::vector<double> direct, kept, direct_cpu, kept_cpu;
  for (int i = 0; i < runs; ++i) {
    auto one = direct_start(agent);
    direct.push_back(one.ms);
    direct_cpu.push_back(one.cpu_ms);
    auto under = keeper_start(keeper, agent, dir / "start");
    kept.push_back(under.ms);
    kept_cpu.push_back(under.cpu_ms);
  }
  spread d = spread_of(direct), k = spread_of(kept);
  std::printf("start to first line: direct %.2f ms (p90 %.2f), under ad-keeper %.2f ms (p90 %.2f): "
              "%.2f ms added (median, %d runs each)\n",
              d.median, d.p90, k.median, k.p90, k.median - d.median, runs);
  spread dc = spread_of(direct_cpu), kc = spread_of(kept_cpu);
  std::printf("CPU per attempt (user + system): the agent alone %.2f ms (p90 %.2f), the keeper with it "
              "%.2f ms (p90 %.2f): the keeper's own %.2f ms (median, %d runs each)\n",
              dc.median, dc.p90, kc.median, kc.p90, kc.median - dc.median, runs);

  int status = 0;
  for (int line_bytes : {100, 1000}) {
    auto chatty = dir / "chatty";
    fs::remove_all(chatty);
    fs::create_directories(chatty);
    auto t0 = clock_type::now();
    pid_t pid = spawn({keeper.string(), "--attempt-dir", chatty.string(), "--marker", "bench", "--", agent.string(),
                       "mb:" + std::to_string(mb) + ":" + std::to_string(line_bytes)},
                      -1, true);
    memory most;
    std::vector<long> samples;
    for (;;) {
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
        break;
      memory m = sample_memory(pid);
      if (m.rss_kb > 0) {
        samples.push_back(m.rss_kb);
        if (m.rss_kb > most.rss_kb)
          most = m;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    double wall = ms_since(t0) / 1000.0;
    std::vector<double> cpu = cpu_seconds(pid); // the ended keeper, not yet reaped
    ::waitpid(pid, &status, 0);
    std::sort(samples.begin(), samples.end());
    long median_rss = samples.empty() ? 0 : samples[samples.size() / 2];
    double keeper_cpu = cpu[0] + cpu[1];
    std::printf("chatty agent, %d MB of %d-byte lines in %.2f s (%.0f MB/s): keeper VmRSS median %ld KiB, "
                "peak %ld KiB (anonymous %ld KiB, file-backed %ld KiB), %zu samples\n",
                mb, line_bytes, wall, mb / wall, median_rss, most.rss_kb, most.anon_kb, most.file_kb,
                samples.size());
    std::printf("  keeper CPU %.2f s (user %.2f, system %.2f): %.1f ms per MB; the agent itself %.2f s\n",
                keeper_cpu, cpu[0], cpu[1], keeper_cpu * 1000.0 / mb, cpu[2] + cpu[3]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      break;
  }
  std::printf("bench_keeper: done; load average %s\n", load_average().c_str());
  if (own_dir)
    fs::remove_all(dir);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
