// End-to-end stream handling of one attempt: a child process writes N MB of
// claude stream-json (system init, assistant text of mixed sizes, tool_use,
// tool_result, result; every event carries the session id, as the CLI's
// do) as fast as it can; the process reactor (runtime/process) reads its
// pipe and splits lines, and each line goes through the attempt's own line
// handling, runtime::attempt_run::on_line: `[stdout] <line>` into stream.log,
// the claude rendering into normalized-output.log, terminal diagnostics and
// session discovery. The attempt is opened, started and finished exactly as
// the attempt actor does it (locator, START and FINISH work-log rows), in a
// scratch workspace. The only difference from a dispatcher is that the line
// is handled on the reactor thread instead of being posted to the attempt
// actor first. Prints MB/s of agent output, lines/s, the CPU seconds of the
// handling process (user + system: reactor and attempt) and of the emitting
// child, peak RSS, the log sizes, and the load average at start and end.
// The same binary is the emitter (--emit).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runtime/attempt/attempt_run.hpp"
#include "runtime/process/reactor.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ad::runtime;

const char* session_id = "5f1c2a9e-0c3b-4d7e-9a51-7b2f0e4c8d11";

std::string filler(std::size_t n, std::size_t seed) {
  const char* words[] = {"the ", "reactor ", "reads ", "lines ", "quickly ", "and ", "never ",
                         "blocks ", "\\n", "\\\"quoted\\\" ", "caf::actor ", "{json} "};
  std::string s;
  s.reserve(n + 16);
  for (std::size_t i = seed; s.size() < n; ++i)
    s += words[i % 12];
  s.resize(n);
  if (s.back() == '\\')
    s.back() = '.';
  return s;
}

// One cycle of events shaped like `claude -p --output-format stream-json
// --verbose`: about 100 KB, a third assistant output, two thirds tool
// results (file reads and command output dominate real streams).
std::vector<std::string> claude_cycle() {
  const std::string sid = std::string(R"("session_id":")") + session_id + "\"";
  std::vector<std::string> out;
  out.push_back(R"({"type":"system","subtype":"init","cwd":"/ws","tools":["Bash","Read","Edit","Write"],"model":"claude-opus-4-1","permissionMode":"bypassPermissions",)"
                + sid + "}");
  for (int i = 0; i < 24; ++i) {
    std::size_t size = 80 + static_cast<std::size_t>((i * 397) % 3000);
    out.push_back(R"({"type":"assistant","message":{"id":"msg_)" + std::to_string(i)
                  + R"(","type":"message","role":"assistant","model":"claude-opus-4-1","content":[{"type":"text","text":")"
                  + filler(size, static_cast<std::size_t>(i))
                  + R"("}],"stop_reason":null,"usage":{"input_tokens":1200,"output_tokens":)"
                  + std::to_string(size / 4) + R"(}},"parent_tool_use_id":null,)" + sid + "}");
    if (i % 3 == 0) {
      std::string id = "toolu_" + std::to_string(i);
      out.push_back(R"({"type":"assistant","message":{"id":"msg_t)" + std::to_string(i)
                    + R"(","type":"message","role":"assistant","content":[{"type":"tool_use","id":")"
                    + id
                    + R"(","name":"Bash","input":{"command":"cmake --build build -j2","description":"build"}}]},"parent_tool_use_id":null,)"
                    + sid + "}");
      out.push_back(R"({"type":"user","message":{"role":"user","content":[{"tool_use_id":")" + id
                    + R"(","type":"tool_result","content":")"
                    + filler(6000 + static_cast<std::size_t>(i) * 100, 7)
                    + R"(","is_error":false}]},"parent_tool_use_id":null,)" + sid + "}");
    }
  }
  out.push_back(R"({"type":"result","subtype":"success","is_error":false,"duration_ms":1234,"num_turns":7,"result":"done",)"
                + sid + "}");
  return out;
}

// The emitting child: whole lines, as fast as the pipe takes them.
int emit(std::size_t megabytes) {
  std::string block;
  for (const auto& l : claude_cycle())
    block += l + "\n";
  const std::size_t target = megabytes << 20;
  std::size_t written = 0;
  while (written < target) {
    std::size_t n = std::min(block.size(), target - written);
    if (n < block.size()) {
      auto nl = block.rfind('\n', n);
      n = nl == std::string::npos ? 0 : nl + 1;
      if (n == 0)
        break;
    }
    for (std::size_t off = 0; off < n;) {
      ssize_t w = ::write(STDOUT_FILENO, block.data() + off, n - off);
      if (w <= 0)
        return 1;
      off += static_cast<std::size_t>(w);
    }
    written += n;
  }
  return 0;
}

// Hands every reactor event to the attempt, on the reactor thread. The
// mutex orders the first lines against on_started (called by the spawning
// thread once spawn() returns).
class attempt_sink final : public process_event_sink {
public:
  explicit attempt_sink(attempt_run& run) : run_(run) {}

  void on_line(process_line&& line) override {
    std::lock_guard<std::mutex> g(mu_);
    bytes_ += line.text.size() + line.dropped_bytes + 1;
    ++lines_;
    auto channel =
      line.stream == output_stream::stdout_stream ? output_channel::out : output_channel::err;
    (void)run_.on_line(channel, line.text, line.cut == line_cut::truncated, line.dropped_bytes);
  }
  void on_silence(const process_silence&) override {}
  void on_exit(const process_exit& e) override {
    std::lock_guard<std::mutex> g(mu_);
    exit_ = e;
    done_ = true;
    cv_.notify_all();
  }

  std::mutex& mutex() { return mu_; }
  process_exit wait() {
    std::unique_lock<std::mutex> g(mu_);
    cv_.wait(g, [&] { return done_; });
    return exit_;
  }
  uint64_t bytes() const { return bytes_; }
  uint64_t lines() const { return lines_; }

private:
  attempt_run& run_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t bytes_ = 0;
  uint64_t lines_ = 0;
  bool done_ = false;
  process_exit exit_;
};

struct cpu_times {
  double user = 0;
  double sys = 0;
  double total() const { return user + sys; }
  cpu_times operator-(const cpu_times& o) const { return {user - o.user, sys - o.sys}; }
};

cpu_times cpu_of(int who) {
  rusage ru{};
  ::getrusage(who, &ru);
  return {double(ru.ru_utime.tv_sec) + double(ru.ru_utime.tv_usec) / 1e6,
          double(ru.ru_stime.tv_sec) + double(ru.ru_stime.tv_usec) / 1e6};
}

void print_load(const char* when) {
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3)
    std::printf("load average %s: %.2f %.2f %.2f (1/5/15 min) on %ld cpus\n", when, load[0],
                load[1], load[2], ::sysconf(_SC_NPROCESSORS_ONLN));
}

double mb(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

uint64_t size_of(const fs::path& p) {
  std::error_code ec;
  auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

int run_once(process_reactor& reactor, const fs::path& scratch, std::size_t megabytes, int run,
             const std::string& self) {
  fs::path ws = scratch / ("ws-" + std::to_string(run));
  fs::create_directories(ws);
  attempt_setup setup;
  setup.task = "bench/01_stream";
  setup.plan_number = 1;
  setup.role = "worker";
  setup.attempt = 1;
  setup.workspace = ws;
  setup.workspace_id = "bench-workspace";
  setup.runs_dir = ws / "runs";
  setup.work_log = ws / "WORK_LOG.md";
  setup.env_additions = {"HOME=" + (scratch / "home").string()};
  setup.launch.kind = adapter_kind::claude;
  setup.launch.model = "claude-opus-4-1";
  setup.launch.prompt = "benchmark";
  setup.launch.session_id = session_id;
  setup.dispatcher_pid = ::getpid();
  system_clock clk;
  auto opened = attempt_run::open(std::move(setup), clk);
  if (!opened) {
    std::fprintf(stderr, "attempt: %s\n", opened.error().to_string().c_str());
    return 1;
  }
  attempt_run& attempt = **opened;
  if (auto st = attempt.write_start_row(); !st) {
    std::fprintf(stderr, "work log: %s\n", st.to_string().c_str());
    return 1;
  }
  auto sink = std::make_shared<attempt_sink>(attempt);
  spawn_request req;
  // The emitter stands in for the claude CLI (attempt.argv() is the real
  // command line, which is not run here).
  req.argv = {self, "--emit", std::to_string(megabytes)};
  req.cwd = ws;
  req.marker = attempt.marker();
  req.sink = sink;

  auto cpu0 = cpu_of(RUSAGE_SELF);
  auto child0 = cpu_of(RUSAGE_CHILDREN);
  auto t0 = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> g(sink->mutex());
    auto out = reactor.spawn(req);
    if (!out || out->kind != spawn_result_kind::started) {
      std::fprintf(stderr, "spawn failed\n");
      return 1;
    }
    attempt.on_started(out->pid, out->start_token);
  }
  auto ex = sink->wait();
  attempt_end end;
  end.how = ex.kind == exit_kind::signaled ? exit_how::signaled : exit_how::exited;
  end.exit_code = ex.exit_code;
  end.exit_signal = ex.signal;
  auto verdict = attempt.finish(end);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto cpu = cpu_of(RUSAGE_SELF) - cpu0;
  auto child = cpu_of(RUSAGE_CHILDREN) - child0;

  const auto& loc = attempt.locator();
  uint64_t stream_bytes = size_of(loc.stream_log);
  uint64_t normalized_bytes = size_of(loc.normalized_output_log);
  double in = mb(sink->bytes());
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  std::printf("run %d: %.1f MB, %llu lines in %.2f s = %.1f MB/s, %.0f lines/s; "
              "handling cpu %.2f s (user %.2f, sys %.2f) = %.1f MB per cpu-s; emitter cpu %.2f s; "
              "stream.log %.1f MB, normalized-output.log %.1f MB; peak rss %.1f MB; "
              "session %s, status %s%s%s\n",
              run, in, static_cast<unsigned long long>(sink->lines()), secs, in / secs,
              static_cast<double>(sink->lines()) / secs, cpu.total(), cpu.user, cpu.sys,
              in / cpu.total(), child.total(), mb(stream_bytes), mb(normalized_bytes),
              static_cast<double>(ru.ru_maxrss) / 1024, loc.session_id.value_or("none").c_str(),
              std::string{to_string(loc.status)}.c_str(), verdict.failed() ? ", class " : "",
              verdict.failed() ? verdict.failure_class.c_str() : "");
  return verdict.failed() ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"one attempt's stream handling, end to end: child -> reactor -> attempt logs"};
  std::size_t megabytes = 200;
  std::size_t emit_mb = 0;
  std::string dir;
  int runs = 1;
  bool keep = false;
  app.add_option("--mb", megabytes, "MB of claude stream-json the agent writes");
  app.add_option("--runs", runs, "repetitions");
  app.add_option("--dir", dir, "scratch folder (default: a new folder under the temp folder)");
  app.add_flag("--keep", keep, "keep the scratch folder (attempt files)");
  app.add_option("--emit", emit_mb, "internal: act as the emitting agent")->group("");
  CLI11_PARSE(app, argc, argv);
  if (emit_mb > 0)
    return emit(emit_mb);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  fs::path scratch = dir.empty() ? fs::temp_directory_path()
                                     / ("attempt-stream-bench-" + std::to_string(::getpid()))
                                 : fs::path(dir);
  std::error_code ec;
  fs::create_directories(scratch / "home", ec);
  auto reactor = process_reactor::start();
  if (!reactor) {
    std::fprintf(stderr, "reactor: %s\n", reactor.error().to_string().c_str());
    return 1;
  }
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::printf("attempt stream bench: %zu MB claude stream-json -> reactor -> attempt_run "
              "(stream.log, normalized-output.log, diagnostics) in %s\n",
              megabytes, scratch.c_str());
  print_load("at start");
  int rc = 0;
  for (int run = 1; run <= runs && rc == 0; ++run)
    rc = run_once(**reactor, scratch, megabytes, run, self);
  print_load("at end");
  (*reactor)->shutdown();
  if (!keep)
    fs::remove_all(scratch, ec);
  return rc;
}
