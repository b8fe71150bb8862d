// Durable state benchmark. With 10,000 tasks in state, several producer
// actors apply 100,000 small changes through the state store and serializer
// actors (group commit), then the same kind of change goes through a naive
// whole-state-rewrite store (serialize everything, write_file_atomic, per
// change). Prints durable changes/s, bytes written and fsyncs per change,
// CPU seconds (user + system, from getrusage) and changes per CPU-second,
// and peak RSS for both, with the load average at start and end (the
// machine may be shared). `--soak N` instead runs the SIGKILL crash loop of
// the test suite N times.
#include <functional>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>

#include "actors/state/serializer.hpp"
#include "actors/state/state_store.hpp"
#include "messages/types.hpp"
#include "runtime/core/files.hpp"
#include "runtime/state/model_json.hpp"
#include "tests/runtime/state/crash_driver.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ad;
using clk = std::chrono::steady_clock;

struct options {
  int tasks = 10000;
  int changes = 100000;
  int producers = 8;
  int window = 64;  // outstanding requests per producer
  int baseline_changes = 20;  // each rewrites ~12 MB: seconds apiece
  int soak = 0;
  std::string dir;
};

// Process CPU time (all threads) split into user and system seconds.
struct cpu_times {
  double user = 0;
  double sys = 0;
  double total() const { return user + sys; }
  cpu_times operator-(const cpu_times& o) const { return {user - o.user, sys - o.sys}; }
};

cpu_times cpu_now() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return {double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) / 1e6,
          double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) / 1e6};
}

// The machine's load: on a shared machine the wall-clock rate depends on it,
// the rate per CPU-second much less.
void print_load(const char* when) {
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) != 3) {
    std::printf("load average %s: unavailable\n", when);
    return;
  }
  std::printf("load average %s: %.2f %.2f %.2f (1/5/15 min) on %ld cpus\n", when, load[0],
              load[1], load[2], ::sysconf(_SC_NPROCESSORS_ONLN));
}

long peak_rss_kb() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

std::string task_name(int i) { return "group" + std::to_string(i / 100) + "/" + std::to_string(i % 100 + 10) + "_task"; }

std::vector<std::vector<runtime::state_change>> seed_entries(int tasks) {
  std::vector<std::vector<runtime::state_change>> out;
  for (int i = 0; i < tasks; ++i) {
    auto name = task_name(i);
    runtime::route_decision d;
    d.work_unit_id = name + "::plan-1::tag-a";
    d.stage = "worker";
    d.lane = "local";
    d.grade = 3;
    d.candidates = {{"pi:qwen", true, {}}, {"codex:gpt", true, {}}};
    d.selected_target = "pi:qwen";
    d.rule_id = "local-default";
    d.reason_codes = {"rule-match"};
    d.next_target = "pi:qwen";
    out.push_back({runtime::begin_work_unit{name, d.work_unit_id},
                   runtime::record_decision{name, d},
                   runtime::replace_claim{name, {runtime::claim_kind::paths,
                                                 {"/w/src/" + name + ".cpp", "/w/src/" + name + ".hpp"}}}});
  }
  return out;
}

// The small change producer p sends as its n-th request.
runtime::state_change small_change(int p, int n, int tasks) {
  int task = (p * 7919 + n * 104729) % tasks;
  switch (n % 4) {
    case 0: return runtime::set_counter{task_name(task), "no_progress", n};
    case 1: return runtime::record_failure{task_name(task), "worker"};
    case 2: return runtime::set_task_flag{task_name(task), runtime::task_flag::worker_done, true};
    default: return runtime::set_active_stage{task_name(task), "worker", "/s/runs/" + std::to_string(n) + "/locator.json"};
  }
}

struct producer_state {
  int sent = 0;
  int acked = 0;
};

caf::behavior producer(caf::event_based_actor* self, messages::state_store_actor store, int id,
                       int count, int window, int tasks, caf::actor done) {
  auto st = std::make_shared<producer_state>();
  auto send_one = std::make_shared<std::function<void()>>();
  auto* again = send_one.get();  // send_one lives as long as the behavior below
  *send_one = [=]() {
    int n = st->sent++;
    self->request(store, std::chrono::seconds(120),
                  messages::apply_state_changes{{small_change(id, n, tasks)}})
      .then(
        [=](messages::state_changes_applied&) {
          if (++st->acked == count) {
            self->send(done, caf::ok_atom::value, id);
            self->quit();
          } else if (st->sent < count) {
            (*again)();
          }
        },
        [=](caf::error& e) {
          std::fprintf(stderr, "producer %d: %s\n", id, to_string(e).c_str());
          self->quit();
        });
  };
  for (int i = 0; i < window && i < count; ++i)
    (*send_one)();
  return {
    [send_one](caf::ok_atom) {},
  };
}

struct phase_figures {
  double seconds = 0;
  cpu_times cpu;  // process CPU seconds, all threads
  uint64_t changes = 0;
  uint64_t bytes = 0;
  uint64_t syncs = 0;
  long rss_kb = 0;
};

void print(const char* name, const phase_figures& f) {
  std::printf("%-22s changes=%llu time=%.2fs cpu=%.2fs (user %.2fs, sys %.2fs) "
              "durable_changes_per_s=%.0f changes_per_cpu_s=%.0f bytes_per_change=%.1f "
              "fsyncs_per_change=%.4f peak_rss=%.1fMB\n",
              name, static_cast<unsigned long long>(f.changes), f.seconds, f.cpu.total(),
              f.cpu.user, f.cpu.sys, f.changes / f.seconds, f.changes / f.cpu.total(),
              double(f.bytes) / f.changes, double(f.syncs) / f.changes, f.rss_kb / 1024.0);
}

int run_bench(const options& opt, const fs::path& dir) {
  fs::create_directories(dir / "ws");
  auto id = *runtime::identify_workspace(dir / "ws");
  auto opened = runtime::durable_store::open(dir / "state", id, runtime::posix_file_layer());
  if (!opened) {
    std::fprintf(stderr, "%s\n", opened.error().to_string().c_str());
    return 1;
  }
  std::shared_ptr<runtime::durable_store> store(std::move(*opened));
  if (auto r = store->commit(seed_entries(opt.tasks)); !r) {
    std::fprintf(stderr, "%s\n", r.error().to_string().c_str());
    return 1;
  }
  (void) store->compact();
  auto state_bytes = runtime::state_to_json_text(store->state()).size();
  std::printf("state: %zu tasks, %zu bytes as JSON\n", store->state().tasks.size(), state_bytes);

  phase_figures group;
  {
    caf::actor_system_config cfg;
    messages::register_message_types(cfg);
    caf::actor_system sys(cfg);
    auto serializer = sys.spawn(actors::state_serializer, store);
    actors::state_store_config scfg;
    scfg.serializer = serializer;
    scfg.initial = store->state();
    scfg.initial_seq = store->last_seq();
    auto store_actor = sys.spawn(actors::state_store, std::move(scfg));
    auto before = store->stats();
    caf::scoped_actor waiter(sys);
    int per = opt.changes / opt.producers;
    auto start = clk::now();
    auto cpu0 = cpu_now();
    for (int p = 0; p < opt.producers; ++p)
      sys.spawn(producer, store_actor, p, per, opt.window, opt.tasks, caf::actor(waiter));
    for (int p = 0; p < opt.producers; ++p)
      waiter->receive([](caf::ok_atom, int) {});
    group.seconds = std::chrono::duration<double>(clk::now() - start).count();
    group.cpu = cpu_now() - cpu0;
    auto after = store->stats();
    group.changes = after.changes - before.changes;
    group.bytes = after.bytes_written - before.bytes_written;
    group.syncs = after.syncs - before.syncs;
    group.rss_kb = peak_rss_kb();
    std::printf("group commit: %llu commits, %.1f changes per commit, %llu compactions\n",
                static_cast<unsigned long long>(after.commits - before.commits),
                double(group.changes) / double(after.commits - before.commits),
                static_cast<unsigned long long>(after.compactions - before.compactions));
    caf::anon_send_exit(store_actor, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(serializer, caf::exit_reason::user_shutdown);
  }
  print("journal+group-commit", group);

  // Baseline: a naive store rewrites the whole state per change.
  phase_figures naive;
  runtime::state_model model = store->state();
  fs::path naive_file = dir / "naive-state.json";
  auto start = clk::now();
  auto cpu0 = cpu_now();
  for (int n = 0; n < opt.baseline_changes; ++n) {
    (void) runtime::apply_change(model, small_change(n % opt.producers, n, opt.tasks));
    auto text = runtime::state_to_json_text(model);
    if (auto st = runtime::write_file_atomic(naive_file, text); !st) {
      std::fprintf(stderr, "%s\n", st.to_string().c_str());
      return 1;
    }
    naive.bytes += text.size();
    naive.syncs += 2;  // file fsync + directory fsync
  }
  naive.seconds = std::chrono::duration<double>(clk::now() - start).count();
  naive.cpu = cpu_now() - cpu0;
  naive.changes = static_cast<uint64_t>(opt.baseline_changes);
  naive.rss_kb = peak_rss_kb();
  print("whole-state-rewrite", naive);
  double ratio = (double(naive.bytes) / naive.changes) / (double(group.bytes) / group.changes);
  std::printf("bytes per change: %.0fx fewer than the baseline (goal >= 50x)\n", ratio);
  std::printf("durable changes/s: %.0f (goal >= 20000); baseline %.1f\n",
              group.changes / group.seconds, naive.changes / naive.seconds);
  std::printf("durable changes per CPU-second: %.0f; baseline %.1f\n",
              group.changes / group.cpu.total(), naive.changes / naive.cpu.total());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{"Durable state benchmark"};
  app.add_option("--tasks", opt.tasks, "tasks in state");
  app.add_option("--changes", opt.changes, "small changes through the actors");
  app.add_option("--producers", opt.producers, "concurrent producer actors");
  app.add_option("--window", opt.window, "outstanding requests per producer");
  app.add_option("--baseline-changes", opt.baseline_changes, "changes through the whole-state-rewrite baseline");
  app.add_option("--soak", opt.soak, "run the SIGKILL crash loop N times instead");
  app.add_option("--dir", opt.dir, "scratch folder (default: a new folder under the current one)");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  fs::path dir = opt.dir.empty() ? fs::current_path() / ("bench-state-" + std::to_string(::getpid()))
                                 : fs::path(opt.dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  int rc = 0;
  if (opt.soak > 0) {
    fs::create_directories(dir / "ws");
    auto id = *runtime::identify_workspace(dir / "ws");
    auto start = clk::now();
    auto r = runtime::test::run_crash_loop(dir / "state", id, opt.soak, static_cast<uint32_t>(::getpid()));
    std::printf("soak: %d/%d SIGKILL iterations passed, %lld acknowledged batches, %lld torn tails "
                "dropped, %.1fs%s%s\n",
                r.iterations, opt.soak, static_cast<long long>(r.batches_acknowledged),
                static_cast<long long>(r.torn_tails_dropped),
                std::chrono::duration<double>(clk::now() - start).count(),
                r.failure.empty() ? "" : ", FAILED: ", r.failure.c_str());
    rc = r.failure.empty() ? 0 : 1;
  } else {
    print_load("at start");
    rc = run_bench(opt, dir);
    print_load("at end");
  }
  if (opt.dir.empty())
    fs::remove_all(dir, ec);
  return rc;
}
