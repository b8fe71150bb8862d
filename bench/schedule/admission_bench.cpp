// Cost of the pure admission pass over a whole run: N tasks in groups of ten
// chained subtasks with random two-path write sets drawn from a pool of N/2
// paths (so claims conflict), --max-parallel 8. Every pass after a completion
// rescans every open task (SPEC section 4). Mode "full" re-examines every
// open task in each pass; mode "scoped" re-examines only what
// scope_after_rescan() returns. The bench prints passes, tasks examined, time
// in plan_admission (plus scoping), time spent building views, and the cost
// per task.

#include <chrono>
#include <ctime>
#include <cstdio>
#include <deque>
#include <random>
#include <set>
#include <unordered_map>

#include <CLI/CLI.hpp>

#include "runtime/schedule/admission.hpp"
#include "runtime/schedule/rescan.hpp"

namespace {

using namespace ad::runtime;

// Thread CPU time: the machine is shared, wall time is noisy.
struct cpu_clock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<cpu_clock>;
  static time_point now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(duration(static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec));
  }
};

struct sim_task {
  task_view view;
  int pred = 0; // predecessor index in the same group, 0 for none
};

enum class pass_mode { full, scoped };

void run(int n, int max_parallel, unsigned seed, pass_mode mode) {
  std::mt19937 rng(seed);
  int pool = std::max(2, n / 2);
  std::uniform_int_distribution<int> pick(0, pool - 1);
  std::vector<sim_task> tasks;
  for (int i = 0; i < n; ++i) {
    int group = i / 10;
    int index = i % 10 + 1;
    sim_task t;
    t.pred = index > 1 && (rng() % 2) ? index - 1 : 0;
    char name[64];
    if (t.pred)
      std::snprintf(name, sizeof name, "g%04d/%02d+%02d_t", group, index, t.pred);
    else
      std::snprintf(name, sizeof name, "g%04d/%02d_t", group, index);
    t.view.name = name;
    t.view.group = "g" + std::to_string(group);
    char g[16];
    std::snprintf(g, sizeof g, "g%04d", group);
    t.view.group = g;
    t.view.index = index;
    t.view.write_set = write_set_kind::valid;
    t.view.write_paths = {"/ws/src/" + std::to_string(pick(rng)), "/ws/src/" + std::to_string(pick(rng))};
    if (t.pred)
      t.view.predecessors.push_back({t.pred, {}});
    tasks.push_back(std::move(t));
  }

  std::set<std::string> complete;
  std::map<std::string, write_claim> claims;
  std::deque<int> running;
  std::vector<bool> started(tasks.size(), false);
  long passes = 0;
  long examined = 0;
  std::chrono::nanoseconds in_pass{0};
  std::chrono::nanoseconds building{0};
  auto wall0 = cpu_clock::now();
  std::map<std::string, task_view> previous;
  waiter_book waiters;
  std::vector<finished_task> finished;
  while (static_cast<int>(complete.size()) < n) {
    auto b0 = cpu_clock::now();
    std::vector<task_view> current;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const auto& t = tasks[i];
      if (complete.count(t.view.name))
        continue;
      task_view v = t.view;
      if (started[i])
        v.live = live_where::here;
      if (t.pred) {
        char pname[64];
        std::snprintf(pname, sizeof pname, "%s/%02d", v.group.c_str(), t.pred);
        // The predecessor is the task just before this one in the group.
        if (complete.count(tasks[i - 1].view.name))
          v.predecessors[0].complete_matches = {pname};
      }
      current.push_back(std::move(v));
    }
    auto b1 = cpu_clock::now();
    admission_input in;
    in.max_parallel = max_parallel;
    in.claims = claims;
    for (int r : running)
      in.live.push_back({tasks[r].view.name, live_where::here});
    if (mode == pass_mode::full || passes == 0) {
      in.tasks = current;
    } else {
      auto scope = scope_after_rescan(previous, current, finished, dependents_index(current), waiters);
      std::unordered_map<std::string, const task_view*> by_name;
      for (const auto& v : current)
        by_name.emplace(v.name, &v);
      for (const auto& name : scope)
        in.tasks.push_back(*by_name.at(name));
    }
    auto plan = plan_admission(in);
    waiters.record(plan);
    for (const auto& v : in.tasks)
      previous[v.name] = v;
    auto b2 = cpu_clock::now();
    building += b1 - b0;
    in_pass += b2 - b1;
    ++passes;
    examined += static_cast<long>(in.tasks.size());
    for (auto& [owner, c] : plan.claims_taken)
      claims[owner] = c;
    for (const auto& name : plan.admitted) {
      for (std::size_t i = 0; i < tasks.size(); ++i)
        if (tasks[i].view.name == name) {
          started[i] = true;
          running.push_back(static_cast<int>(i));
        }
    }
    if (running.empty()) {
      std::fprintf(stderr, "deadlock after %zu completions\n", complete.size());
      return;
    }
    int done = running.front();
    running.pop_front();
    complete.insert(tasks[done].view.name);
    claims.erase(tasks[done].view.name);
    previous.erase(tasks[done].view.name);
    waiters.forget(tasks[done].view.name);
    finished = {{tasks[done].view.name, finish_kind::completed}};
  }
  auto wall = cpu_clock::now() - wall0;
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("%-6s N=%5d passes=%5ld examined=%9ld plan_admission=%9.1f ms (%.2f us/task-pass, %.1f us/task)"
              " view-building=%8.1f ms cpu=%8.1f ms\n",
              mode == pass_mode::full ? "full" : "scoped", n, passes, examined, ms(in_pass), 1000.0 * ms(in_pass) / static_cast<double>(examined),
              1000.0 * ms(in_pass) / n, ms(building), ms(wall));
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"admission pass cost over a whole simulated run"};
  std::vector<int> sizes{100, 1000, 5000};
  int max_parallel = 8;
  unsigned seed = 7;
  app.add_option("--tasks", sizes, "task counts");
  app.add_option("--max-parallel", max_parallel);
  app.add_option("--seed", seed);
  CLI11_PARSE(app, argc, argv);
  for (int n : sizes) {
    run(n, max_parallel, seed, pass_mode::full);
    run(n, max_parallel, seed, pass_mode::scoped);
  }
  return 0;
}
