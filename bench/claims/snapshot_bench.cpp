// The cost of noticing writes outside claims: a workspace snapshot and diff
// over a synthetic tree (default 100k files, plus excluded .git and
// agent-task folders that the walk must prune), and the fanotify watcher
// draining the writes of a child process that carries an attempt marker,
// compared with the same writes unwatched. Prints files/s, events/s and the
// load average beside them (the machine may be shared).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <CLI/CLI.hpp>

#include "runtime/claims/workspace_snapshot.hpp"
#include "runtime/claims/write_watch.hpp"

namespace {

namespace fs = std::filesystem;
using ad::runtime::claim_scope;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string load() {
  double l[3] = {0, 0, 0};
  if (::getloadavg(l, 3) != 3)
    return "load ?";
  char buf[64];
  std::snprintf(buf, sizeof buf, "load %.2f %.2f %.2f", l[0], l[1], l[2]);
  return buf;
}

double cpu_seconds() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
         + static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void write_small(const fs::path& p) {
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::perror(p.c_str());
    std::exit(1);
  }
  if (::write(fd, "x\n", 2) != 2)
    std::exit(1);
  ::close(fd);
}

// 100 top folders x 10 subfolders x (files / 1000) files, plus excluded
// folders holding a tenth as many.
void make_tree(const fs::path& ws, int files) {
  int per_leaf = files / 1000 > 0 ? files / 1000 : 1;
  int made = 0;
  for (int top = 0; top < 100 && made < files; ++top)
    for (int sub = 0; sub < 10 && made < files; ++sub) {
      fs::path leaf = ws / ("src" + std::to_string(top)) / ("mod" + std::to_string(sub));
      fs::create_directories(leaf);
      for (int f = 0; f < per_leaf && made < files; ++f, ++made)
        write_small(leaf / ("file" + std::to_string(f) + ".cpp"));
    }
  for (int i = 0; i < files / 10; ++i) {
    fs::path p = ws / ".git/objects" / std::to_string(i % 256) / std::to_string(i);
    if (i < 256)
      fs::create_directories(p.parent_path());
    write_small(p);
  }
  fs::create_directories(ws / "agent-task/g/01_x");
  for (int i = 0; i < 100; ++i)
    write_small(ws / "agent-task/g/01_x" / ("log" + std::to_string(i)));
}

// Rewrites the first bytes of a file in place (no truncation, whose cost
// on ext4 would hide the watcher's).
int writer_main(const std::string& dir, int writes, int spread) {
  for (int i = 0; i < writes; ++i) {
    fs::path p = fs::path(dir) / ("w" + std::to_string(i % spread) + ".txt");
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ::pwrite(fd, "y\n", 2, 0) != 2)
      return 1;
    ::close(fd);
  }
  return 0;
}

// Runs this binary as a writer child with a marker in its environment.
pid_t spawn_writer(const fs::path& dir, int writes, int spread) {
  pid_t pid = ::fork();
  if (pid == 0) {
    std::string w = std::to_string(writes), s = std::to_string(spread);
    const char* argv[] = {"bench_claims", "--writer", dir.c_str(), "--writes", w.c_str(),
                          "--spread", s.c_str(), nullptr};
    const char* envp[] = {"AGENT_DISPATCH_EXECUTION_ID=bench-writer", nullptr};
    ::execve("/proc/self/exe", const_cast<char* const*>(argv), const_cast<char* const*>(envp));
    ::_exit(127);
  }
  return pid;
}

double wait_writer(pid_t pid, std::chrono::steady_clock::time_point start) {
  int st = 0;
  ::waitpid(pid, &st, 0);
  return seconds_since(start);
}

void bench_snapshot(const fs::path& ws, int rounds) {
  auto scope = claim_scope::make({ws, {}, {}});
  if (!scope) {
    std::fprintf(stderr, "%s\n", scope.error().to_string().c_str());
    std::exit(1);
  }
  std::printf("snapshot (%s before):\n", load().c_str());
  ad::runtime::workspace_snapshot last;
  double best = 1e9, total = 0;
  for (int r = 0; r < rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    auto snap = ad::runtime::take_snapshot(*scope);
    double secs = seconds_since(start);
    if (!snap) {
      std::fprintf(stderr, "%s\n", snap.error().to_string().c_str());
      std::exit(1);
    }
    best = std::min(best, secs);
    total += secs;
    last = std::move(*snap);
    std::printf("  round %d: %zu files, %zu folders in %.3f s: %.0f files/s (%s)\n", r + 1,
                last.entries.size(), last.folders, secs,
                static_cast<double>(last.entries.size()) / secs, load().c_str());
  }
  std::size_t bytes = last.entries.capacity() * sizeof(ad::runtime::snapshot_entry);
  for (const auto& e : last.entries)
    bytes += e.path.capacity() + 1;
  std::printf("  best %.3f s, mean %.3f s; snapshot holds about %.1f MB (%.0f bytes/file)\n", best,
              total / rounds, static_cast<double>(bytes) / (1 << 20),
              static_cast<double>(bytes) / static_cast<double>(last.entries.size()));

  for (int i = 0; i < 100; ++i)
    write_small(ws / ("src" + std::to_string(i)) / "mod0/file0.cpp");
  auto after = ad::runtime::take_snapshot(*scope);
  auto start = std::chrono::steady_clock::now();
  auto d = ad::runtime::diff(last, *after);
  std::printf("  diff of two %zu-file snapshots: %zu changes in %.1f ms\n", last.entries.size(),
              d.changes.size(), seconds_since(start) * 1e3);
}

void watched_round(ad::runtime::write_watch& watch, const fs::path& out, int writes, int spread);

void bench_watch(const fs::path& ws, int writes) {
  const int spread = 200;
  fs::path out = ws / "watched-writes";
  fs::create_directories(out);
  std::printf("fanotify watcher, a child writing %d times (open, 2 bytes, close) to %d files:\n",
              writes, spread);
  auto scope = claim_scope::make({ws, {}, {}});
  for (int round = 1; round <= 2; ++round) {
    auto start = std::chrono::steady_clock::now();
    double bare = wait_writer(spawn_writer(out, writes, spread), start);
    std::printf("  unwatched: %.3f s, %.0f writes/s (%s)\n", bare, writes / bare, load().c_str());
    auto w = ad::runtime::write_watch::open(*scope);
    if (!w) {
      std::printf("  watcher unavailable: %s\n", w.error().to_string().c_str());
      return;
    }
    watched_round(*w, out, writes, spread);
  }
}

void watched_round(ad::runtime::write_watch& watch, const fs::path& out, int writes, int spread) {
  watch.drain();
  auto start = std::chrono::steady_clock::now();
  double cpu0 = cpu_seconds();
  pid_t pid = spawn_writer(out, writes, spread);
  watch.remember_attempt(pid, "bench-writer");
  std::size_t events = 0, lost = 0, attributed = 0;
  int st = 0;
  bool running = true;
  while (running) {
    struct pollfd p {watch.fd(), POLLIN, 0};
    ::poll(&p, 1, 20);
    if (::waitpid(pid, &st, WNOHANG) == pid)
      running = false;
    for (auto& e : watch.drain()) {
      ++events;
      lost += e.what == ad::runtime::write_kind::lost;
      attributed += e.marker == "bench-writer";
    }
  }
  double watched = seconds_since(start);
  for (auto& e : watch.drain()) {
    ++events;
    lost += e.what == ad::runtime::write_kind::lost;
    attributed += e.marker == "bench-writer";
  }
  double cpu = cpu_seconds() - cpu0;
  std::printf("  watched:   %.3f s, %.0f writes/s (%s)\n", watched, writes / watched,
              load().c_str());
  std::printf("  drained %zu events (%zu with the writer's marker, %zu lost) using %.3f s CPU: "
              "%.1f us/event, %.0f events/s of drain CPU\n",
              events, attributed, lost, cpu, cpu * 1e6 / static_cast<double>(events ? events : 1),
              static_cast<double>(events) / (cpu > 0 ? cpu : 1e-9));
}

// The process connector wakes the watcher for every fork on the machine:
// the drain CPU that costs, with /bin/true started `forks` times.
void bench_forks(const fs::path& ws, int forks) {
  auto scope = claim_scope::make({ws, {}, {}});
  auto w = ad::runtime::write_watch::open(*scope);
  if (!w || !w->coverage().exited_writers) {
    std::printf("fork records unavailable\n");
    return;
  }
  w->drain();
  double cpu0 = cpu_seconds();
  auto start = std::chrono::steady_clock::now();
  std::size_t wakeups = 0;
  for (int i = 0; i < forks; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      const char* argv[] = {"true", nullptr};
      ::execv("/bin/true", const_cast<char* const*>(argv));
      ::_exit(127);
    }
    struct pollfd p {w->fd(), POLLIN, 0};
    if (::poll(&p, 1, 0) == 1) {
      ++wakeups;
      w->drain();
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
  }
  double secs = seconds_since(start);
  // What the loop itself costs without a watcher to drain.
  double cpu = cpu_seconds() - cpu0;
  double cpu1 = cpu_seconds();
  for (int i = 0; i < forks; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      const char* argv[] = {"true", nullptr};
      ::execv("/bin/true", const_cast<char* const*>(argv));
      ::_exit(127);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
  }
  double bare_cpu = cpu_seconds() - cpu1;
  std::printf("fork records: %d forks in %.2f s, %zu wakeups; parent CPU %.3f s watched, %.3f s "
              "bare: %.1f us per fork for the watcher (%s)\n",
              forks, secs, wakeups, cpu, bare_cpu, (cpu - bare_cpu) * 1e6 / forks, load().c_str());
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"claims: snapshot, diff and fanotify watcher costs"};
  int files = 100000, rounds = 5, writes = 20000, spread = 200;
  std::string dir, writer_dir;
  app.add_option("--files", files, "files in the synthetic tree");
  app.add_option("--rounds", rounds, "snapshots to time");
  app.add_option("--writes", writes, "writes by the watched child");
  app.add_option("--dir", dir, "where to build the tree (default: the temp directory)");
  app.add_option("--writer", writer_dir, "internal: run as the writer child");
  app.add_option("--spread", spread, "internal: files the writer cycles through");
  CLI11_PARSE(app, argc, argv);
  if (!writer_dir.empty())
    return writer_main(writer_dir, writes, spread);

  fs::path parent = dir.empty() ? fs::temp_directory_path() : fs::path(dir);
  std::string tmpl = (parent / "bench-claims-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  fs::path ws = fs::canonical(tmpl);
  std::printf("tree of %d files (+%d under .git, 100 under agent-task) in %s (%s)\n", files,
              files / 10, ws.c_str(), load().c_str());
  auto start = std::chrono::steady_clock::now();
  make_tree(ws, files);
  std::printf("  built in %.1f s\n", seconds_since(start));
  bench_snapshot(ws, rounds);
  bench_watch(ws, writes);
  bench_forks(ws, 2000);
  std::error_code ec;
  fs::remove_all(ws, ec);
  return 0;
}
