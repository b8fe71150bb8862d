// Throughput of per-line agent output handling (rendering for
// normalized-output.log, terminal-diagnostic detection, session discovery)
// on claude stream-json, in memory: no process, no files. Prints MB/s.

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runtime/agents/attempt_output.hpp"

namespace {

std::vector<std::string> claude_lines() {
  const std::string sid = "5d3f3c1e-6b7a-4c8e-9f10-2a3b4c5d6e7f";
  std::string text(600, 'a');
  return {
    R"({"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-1","content":[{"type":"text","text":")"
      + text + R"("}],"stop_reason":null,"usage":{"input_tokens":1200,"output_tokens":80}},"parent_tool_use_id":null,"session_id":")"
      + sid + R"("})",
    R"({"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make test","description":"run tests"}}]},"parent_tool_use_id":null,"session_id":")"
      + sid + R"("})",
    R"({"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":")"
      + std::string(2000, 'o') + R"(","is_error":false}]},"parent_tool_use_id":null,"session_id":")" + sid + R"("})",
    "plain stderr-like text line that is not json at all",
  };
}

struct figures {
  uint64_t bytes = 0, lines = 0, rendered = 0;
  double secs = 0;
};

figures run(const std::vector<std::string>& lines, uint64_t target) {
  ad::runtime::attempt_output output(ad::runtime::adapter_kind::claude,
                                     ad::runtime::review_guard::off);
  figures f;
  auto start = std::chrono::steady_clock::now();
  while (f.bytes < target) {
    for (const auto& line : lines) {
      auto step = output.feed(ad::runtime::output_channel::out, line);
      f.rendered += step.rendered.size();
      f.bytes += line.size() + 1;
      ++f.lines;
    }
  }
  f.secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return f;
}

void print(const char* what, const figures& f) {
  std::printf("  %-44s %.1f MB, %llu lines, %llu rendered in %.2f s: %.1f MB/s, %.0f lines/s\n",
              what, static_cast<double>(f.bytes) / (1 << 20),
              static_cast<unsigned long long>(f.lines),
              static_cast<unsigned long long>(f.rendered), f.secs,
              static_cast<double>(f.bytes) / (1 << 20) / f.secs,
              static_cast<double>(f.lines) / f.secs);
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"agent output handling throughput"};
  int megabytes = 200;
  app.add_option("--mb", megabytes, "MB of claude stream-json per scenario");
  CLI11_PARSE(app, argc, argv);
  const uint64_t target = static_cast<uint64_t>(megabytes) << 20;

  auto mixed = claude_lines();
  std::vector<std::string> parsed_only = {mixed[0], mixed[1]};
  std::printf("agent output handling (claude stream-json: render + diagnostics + session):\n");
  print("mixed (text, tool_use, tool_result, plain)", run(mixed, target));
  print("every line parsed (text, tool_use)", run(parsed_only, target));
  return 0;
}
