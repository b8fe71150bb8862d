#pragma once
// The dashboard's HTTP layer (docs/dashboard.md), a thin shell over
// runtime/report/dashboard.hpp: serves the page (HTML, CSS and JavaScript
// compiled into the binary), the JSON API (/api/v1/state,
// /api/v1/tasks/<name>, /api/v1/targets, /api/v1/nodes,
// /api/v1/attempts/<identity>/log) from the functions it is given, and
// /api/v1/events as Server-Sent Events from an event_fanout, whose
// publishers never wait for a client (a client that does not read is
// dropped). Loopback needs no token; any other address needs one, which the
// API checks as a bearer header (the page asks for it). Requests are served
// on the server's own threads; the functions given must be thread-safe.
// start() fails with invalid_argument (bad address, no token beyond
// loopback) or io_error (the port cannot be bound). Never throws.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/report/event_fanout.hpp"

namespace ad::cli {

struct dashboard_source {
  std::function<runtime::json()> state;
  std::function<std::optional<runtime::json>(const std::string& task)> task;
  std::function<runtime::json()> targets;
  std::function<runtime::json()> nodes;
  // /api/v1/attempts/<identity>/log?file=&offset=&limit=
  std::function<runtime::result<runtime::json>(const std::string& identity,
                                               const std::string& file, uint64_t offset,
                                               size_t limit)>
    log;
};

struct dashboard_settings {
  std::string listen;      // HOST:PORT (port 0: any free port)
  std::string token_file;  // --token FILE; empty: none
  std::string option = "--web";  // the option that named `listen`, for errors
};

class dashboard_server {
public:
  static runtime::result<std::unique_ptr<dashboard_server>> start(
    const dashboard_settings& settings, dashboard_source source,
    std::shared_ptr<runtime::event_fanout> events);
  ~dashboard_server();
  dashboard_server(const dashboard_server&) = delete;
  dashboard_server& operator=(const dashboard_server&) = delete;

  // http://HOST:PORT/ with the port bound.
  std::string url() const;
  bool needs_token() const;

  struct impl;

private:
  explicit dashboard_server(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

// "event: <name>\ndata: <json>\n\n", one Server-Sent Event.
std::string sse_message(const std::string& name, const runtime::json& data);

} // namespace ad::cli
