#pragma once
// The mock provider's HTTP side: one cpp-httplib server on 127.0.0.1 that
// answers the model route of one API from the script, in arrival order, and
// logs every request it receives as one JSON line (see README.md). Requests
// are served on a pool of threads; the script cursor and the log are
// guarded by one mutex, so the counted index follows arrival order. bind()
// and run() are called once, from one thread; stop() from any thread (a
// signal watcher), and it also cuts scripted delays short. bind() returns
// io_error when no port can be bound; the log file failing to open is an
// io_error from bind() too. Nothing here prints.

#include <filesystem>
#include <memory>

#include "runtime/core/status.hpp"
#include "tools/mock-provider/request.hpp"
#include "tools/mock-provider/script.hpp"

namespace ad::mock_provider {

struct server_options {
  api_kind api = api_kind::responses;
  script plan;
  std::filesystem::path log_file; // empty: no log
  std::filesystem::path dump_dir; // empty: request bodies are not kept
};

class provider_server {
public:
  explicit provider_server(server_options options);
  ~provider_server();
  provider_server(const provider_server&) = delete;
  provider_server& operator=(const provider_server&) = delete;

  // Binds 127.0.0.1 on a port the OS chooses and returns it.
  runtime::result<int> bind();
  // Serves until stop().
  void run();
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace ad::mock_provider
