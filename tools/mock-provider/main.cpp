// ad-mock-provider entry point: the only place that prints and picks the
// exit code. Parses the command line, loads the script, binds 127.0.0.1 on
// an OS-chosen port (printed on stdout and written to --port-file), serves
// until SIGTERM or SIGINT (exit 0) or until --max-seconds pass (exit 3).
// --check only validates the script. Exit 2 for a bad command line or
// script, 1 when it cannot bind or write.
#include <CLI/CLI.hpp>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <iostream>
#include <map>
#include <thread>

#include "runtime/core/files.hpp"
#include "tools/mock-provider/server.hpp"

namespace ad::mock_provider {
namespace {

// Waits for SIGTERM/SIGINT (blocked in every thread) or the deadline; returns
// true when the deadline ended the wait.
bool wait_for_stop(const sigset_t& set, double max_seconds) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(max_seconds));
  for (;;) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return true;
    auto step = std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(500));
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(step).count();
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig == SIGTERM || sig == SIGINT) return false;
  }
}

int run(int argc, char** argv) {
  CLI::App app{"ad-mock-provider: a scripted loopback mock of one model provider API"};
  std::string api_name;
  std::string script_file, log_file, dump_dir, port_file;
  double max_seconds = 600;
  bool check = false;
  app.add_option("--api", api_name, "responses | messages | chat")
      ->required()
      ->check(CLI::IsMember({"responses", "messages", "chat"}));
  app.add_option("--script", script_file, "the JSON script (default: answer \"Done.\")")
      ->check(CLI::ExistingFile);
  app.add_option("--log", log_file, "append one JSON line per request received");
  app.add_option("--dump-dir", dump_dir, "write each request (headers, body) as NNNN.json")
      ->check(CLI::ExistingDirectory);
  app.add_option("--port-file", port_file, "write the port here once listening");
  app.add_option("--max-seconds", max_seconds, "exit after this long (default 600)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--check", check, "only load the script, say whether it is valid, and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2; // --help is not an error
  }

  static const std::map<std::string, api_kind> apis{
      {"responses", api_kind::responses},
      {"messages", api_kind::messages},
      {"chat", api_kind::chat}};
  server_options opt;
  opt.api = apis.at(api_name);
  if (!script_file.empty()) {
    auto s = load_script_file(script_file);
    if (!s) {
      std::cerr << "ad-mock-provider: " << s.error().message() << std::endl;
      return 2;
    }
    opt.plan = std::move(*s);
    if (check) {
      std::cout << script_file << ": ok (" << opt.plan.responses.size() << " responses)"
                << std::endl;
      return 0;
    }
  } else {
    opt.plan = *parse_script(json::object());
  }
  opt.log_file = log_file;
  opt.dump_dir = dump_dir;

  // Signals are taken by the watcher below only; block them before any
  // server thread exists so every thread inherits the mask. A peer that
  // closes while a reply is written must not kill the process.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  provider_server server(std::move(opt));
  auto port = server.bind();
  if (!port) {
    std::cerr << "ad-mock-provider: " << port.error().message() << std::endl;
    return 1;
  }
  std::thread serving([&] { server.run(); });
  if (!port_file.empty()) {
    auto st = runtime::write_file_atomic(port_file, std::to_string(*port) + "\n",
                                         runtime::durability::buffered);
    if (!st) {
      std::cerr << "ad-mock-provider: " << st.message() << std::endl;
      server.stop();
      serving.join();
      return 1;
    }
  }
  std::cout << *port << std::endl;

  bool timed_out = wait_for_stop(set, max_seconds);
  server.stop();
  serving.join();
  if (timed_out) {
    std::cerr << "ad-mock-provider: --max-seconds " << max_seconds << " reached, exiting"
              << std::endl;
    return 3;
  }
  return 0;
}

} // namespace
} // namespace ad::mock_provider

int main(int argc, char** argv) { return ad::mock_provider::run(argc, argv); }
