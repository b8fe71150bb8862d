// Stream throughput benchmark: a child writes N MB of claude-style
// stream-json lines (assistant text, tool_use, tool_result, system and
// result events of mixed sizes) as fast as it can; the process reactor
// reads them, splits lines and hands each to a sink that appends
// "[stdout] <line>\n" to stream.log with one write() per line (the flushed
// per-line log of an attempt). Prints MB/s of agent output, lines/s and the
// stream.log size. The same binary is the emitter (--emit).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runtime/process/reactor.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ad::runtime;

std::string filler(std::size_t n, char seed) {
  std::string s;
  s.reserve(n);
  const char* words[] = {"the ", "reactor ", "reads ", "lines ", "quickly ", "and ", "never ",
                         "blocks ", "\\n", "\\\"quoted\\\" "};
  std::size_t i = static_cast<std::size_t>(seed);
  while (s.size() < n)
    s += words[i++ % 10];
  s.resize(n);
  return s;
}

// A cycle of events shaped like `claude -p --output-format stream-json`.
std::vector<std::string> sample_lines() {
  const std::string sid = "\"session_id\":\"5f1c2a9e-0c3b-4d7e-9a51-7b2f0e4c8d11\"";
  std::vector<std::string> out;
  out.push_back("{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/ws\"," + sid +
                ",\"tools\":[\"Bash\",\"Read\",\"Edit\",\"Write\"],\"model\":\"claude-opus\"}");
  for (int i = 0; i < 24; ++i) {
    std::size_t size = 80 + static_cast<std::size_t>((i * 397) % 3000);
    out.push_back("{\"type\":\"assistant\",\"message\":{\"id\":\"msg_" + std::to_string(i) +
                  "\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"" +
                  filler(size, static_cast<char>(i)) +
                  "\"}],\"usage\":{\"input_tokens\":1200,\"output_tokens\":" +
                  std::to_string(size / 4) + "}}," + sid + "}");
    if (i % 3 == 0) {
      out.push_back("{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\","
                    "\"id\":\"toolu_" +
                    std::to_string(i) +
                    "\",\"name\":\"Bash\",\"input\":{\"command\":\"cmake --build build -j2\"}}]}," +
                    sid + "}");
      out.push_back("{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\","
                    "\"tool_use_id\":\"toolu_" +
                    std::to_string(i) + "\",\"content\":\"" + filler(6000 + i * 100, 'x') +
                    "\"}]}," + sid + "}");
    }
  }
  out.push_back("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,"
                "\"duration_ms\":1234,\"num_turns\":7," +
                sid + "}");
  return out;
}

int emit(std::size_t megabytes) {
  auto lines = sample_lines();
  std::string block;
  for (const auto& l : lines)
    block += l + "\n";
  std::size_t target = megabytes << 20;
  std::size_t written = 0;
  while (written < target) {
    std::size_t n = std::min(block.size(), target - written);
    // Keep whole lines: cut the last block at a newline.
    if (n < block.size()) {
      auto nl = block.rfind('\n', n);
      n = nl == std::string::npos ? n : nl + 1;
      if (n == 0)
        break;
    }
    const char* p = block.data();
    std::size_t left = n;
    while (left > 0) {
      ssize_t w = ::write(STDOUT_FILENO, p, left);
      if (w <= 0)
        return 1;
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    written += n;
  }
  return 0;
}

class stream_log_sink final : public process_event_sink {
public:
  // fd < 0: lines are counted and dropped (the reactor alone).
  explicit stream_log_sink(int fd) : fd_(fd) {}
  void on_line(process_line&& line) override {
    bytes_in_ += line.text.size() + line.dropped_bytes + 1;
    ++lines_;
    if (fd_ < 0)
      return;
    line_.clear();
    line_ += line.stream == output_stream::stdout_stream ? "[stdout] " : "[stderr] ";
    line_ += line.text;
    if (line.cut == line_cut::truncated)
      line_ += " [cut: " + std::to_string(line.dropped_bytes) + " bytes dropped]";
    line_ += '\n';
    // One write per line: the log is current after every line.
    if (::write(fd_, line_.data(), line_.size()) < 0)
      failed_ = true;
  }
  void on_silence(const process_silence&) override {}
  void on_exit(const process_exit& e) override {
    std::lock_guard<std::mutex> g(mu_);
    exit_code_ = e.exit_code;
    done_ = true;
    cv_.notify_all();
  }
  int wait() {
    std::unique_lock<std::mutex> g(mu_);
    cv_.wait(g, [&] { return done_; });
    return exit_code_;
  }
  uint64_t bytes_in() const { return bytes_in_; }
  uint64_t lines() const { return lines_; }
  bool failed() const { return failed_; }

private:
  int fd_;
  std::string line_;
  std::atomic<uint64_t> bytes_in_{0};
  std::atomic<uint64_t> lines_{0};
  std::atomic<bool> failed_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  int exit_code_ = -1;
};

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"stream throughput through the process reactor"};
  std::size_t megabytes = 200;
  std::size_t emit_mb = 0;
  std::string dir = fs::temp_directory_path().string();
  int runs = 3;
  bool discard = false;
  app.add_option("--mb", megabytes, "MB of stream-json the agent writes");
  app.add_option("--runs", runs, "repetitions");
  app.add_option("--dir", dir, "folder for stream.log");
  app.add_flag("--discard", discard, "drop lines instead of writing stream.log");
  app.add_option("--emit", emit_mb, "internal: act as the emitting agent")->group("");
  CLI11_PARSE(app, argc, argv);
  if (emit_mb > 0)
    return emit(emit_mb);

  auto reactor = process_reactor::start();
  if (!reactor) {
    std::fprintf(stderr, "reactor: %s\n", reactor.error().to_string().c_str());
    return 1;
  }
  std::string self = fs::read_symlink("/proc/self/exe").string();
  fs::path log = fs::path(dir) / ("stream-bench-" + std::to_string(::getpid()) + ".log");
  std::printf("stream bench: %zu MB claude stream-json -> reactor -> %s\n", megabytes,
              discard ? "discarding sink" : log.c_str());
  for (int run = 0; run < runs; ++run) {
    int fd = discard ? -1
                     : ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (!discard && fd < 0) {
      std::perror("open stream.log");
      return 1;
    }
    auto sink = std::make_shared<stream_log_sink>(fd);
    spawn_request req;
    req.argv = {self, "--emit", std::to_string(megabytes)};
    req.cwd = fs::current_path();
    req.marker = "stream-bench";
    req.sink = sink;
    auto t0 = std::chrono::steady_clock::now();
    auto out = (*reactor)->spawn(req);
    if (!out || out->kind != spawn_result_kind::started) {
      std::fprintf(stderr, "spawn failed\n");
      return 1;
    }
    int code = sink->wait();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (fd >= 0)
      ::close(fd);
    double mb = static_cast<double>(sink->bytes_in()) / (1 << 20);
    std::printf("run %d: %.1f MB, %llu lines in %.3f s = %.1f MB/s, %.0f lines/s, "
                "stream.log %.1f MB, exit %d%s\n",
                run + 1, mb, static_cast<unsigned long long>(sink->lines()), secs, mb / secs,
                static_cast<double>(sink->lines()) / secs,
                discard ? 0.0 : static_cast<double>(fs::file_size(log)) / (1 << 20), code,
                sink->failed() ? " (log write failed)" : "");
  }
  std::error_code ec;
  fs::remove(log, ec);
  return 0;
}
