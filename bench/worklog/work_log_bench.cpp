// The cost of one work-log row as a group's log grows: appends N rows to
// one WORK_LOG.md (each under its lock, fdatasync'ed, as an attempt's START
// and FINISH rows are) and prints the time and CPU per row for the first
// and the last thousand rows. A cost that grows with the log shows as a
// last thousand slower than the first. Also prints the load average.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "runtime/core/clock.hpp"
#include "runtime/worklog/work_log.hpp"

namespace {

namespace fs = std::filesystem;

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

struct window {
  double wall = 0;
  double cpu = 0;
};

void print(const char* what, const window& w, int rows) {
  std::printf("  %-22s %8.1f us wall, %7.1f us CPU per row\n", what, w.wall / rows * 1e6,
              w.cpu / rows * 1e6);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"Work-log append cost as the log grows"};
  int rows = 20000;
  std::string dir = "/tmp/ad-work-log-bench";
  app.add_option("--rows", rows, "rows to append to one log")->check(CLI::Range(2000, 10000000));
  app.add_option("--dir", dir, "scratch folder (emptied first)");
  CLI11_PARSE(app, argc, argv);

  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::path log = ad::runtime::work_log_path(dir, "bench");
  ad::runtime::system_clock clk;
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  std::printf("work_log_bench: %d rows, load average %.2f %.2f %.2f before\n", rows, load[0],
              load[1], load[2]);

  const int edge = 1000;
  window first, last;
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpu_seconds();
  for (int i = 1; i <= rows; ++i) {
    bool timed_first = i <= edge;
    bool timed_last = i > rows - edge;
    auto start = std::chrono::steady_clock::now();
    double cpu = cpu_seconds();
    ad::runtime::work_log_event ev{i % 2 ? "START" : "FINISH", "bench/task_" + std::to_string(i / 2),
                                   "worker", 1, "sim/model", i % 2 ? "running" : "succeeded:0",
                                   "/state/runs/x/locator.json"};
    auto r = ad::runtime::append_work_log(log, ev, clk);
    if (!r) {
      std::fprintf(stderr, "work_log_bench: %s\n", r.error().to_string().c_str());
      return 1;
    }
    if (r->row.seq != static_cast<uint64_t>(i)) {
      std::fprintf(stderr, "work_log_bench: row %d got seq %llu\n", i,
                   static_cast<unsigned long long>(r->row.seq));
      return 1;
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double used = cpu_seconds() - cpu;
    if (timed_first)
      first.wall += wall, first.cpu += used;
    if (timed_last)
      last.wall += wall, last.cpu += used;
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double total_cpu = cpu_seconds() - c0;
  print("first 1,000 rows", first, edge);
  print("last 1,000 rows", last, edge);
  std::printf("  all %d rows: %.2f s wall, %.2f s CPU; log %.1f MB\n", rows, total, total_cpu,
              static_cast<double>(fs::file_size(log, ec)) / (1 << 20));
  ::getloadavg(load, 3);
  std::printf("  load average %.2f %.2f %.2f after\n", load[0], load[1], load[2]);
  fs::remove_all(dir, ec);
  return 0;
}
