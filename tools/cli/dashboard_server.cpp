#include "tools/cli/dashboard_server.hpp"

#include <atomic>
#include <charconv>
#include <fstream>
#include <sstream>
#include <thread>

#include "tools/cli/http_library.hpp"

#include "runtime/distributed/node_protocol.hpp"
#include "runtime/observe/attempt_log.hpp"
#include "runtime/report/dashboard.hpp"
#include "tools/cli/dashboard_assets.hpp"

namespace ad::cli {

namespace {

constexpr size_t max_event_streams = 8;
constexpr auto keepalive = std::chrono::seconds(10);

void send_json(httplib::Response& res, int status, const runtime::json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(runtime::dump_json(body) + "\n", "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, status, runtime::json{{"error", message}});
}

// A query parameter of digits only.
bool whole_number(const std::string& text, uint64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

} // namespace

std::string sse_message(const std::string& name, const runtime::json& data) {
  return "event: " + name + "\ndata: " + runtime::dump_json(data) + "\n\n";
}

struct dashboard_server::impl {
  dashboard_source source;
  std::shared_ptr<runtime::event_fanout> events;
  std::string token;
  std::string host;
  int port = 0;
  httplib::Server http;
  std::thread thread;
  std::atomic<size_t> streams{0};

  bool authorized(const httplib::Request& req, httplib::Response& res) const {
    if (token.empty())
      return true;
    if (runtime::bearer_matches(req.get_header_value("Authorization"), token))
      return true;
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401, "this dashboard needs its token: send Authorization: Bearer <token>");
    return false;
  }

  void routes() {
    http.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(dashboard_html), "text/html; charset=utf-8");
    });
    http.Get("/dashboard.css", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(dashboard_css), "text/css; charset=utf-8");
    });
    http.Get("/dashboard.js", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(dashboard_js), "text/javascript; charset=utf-8");
    });
    http.Get("/api/v1/state", [this](const httplib::Request& req, httplib::Response& res) {
      if (authorized(req, res))
        send_json(res, 200, source.state());
    });
    http.Get(R"(/api/v1/tasks/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res))
        return;
      auto name = req.matches[1].str();
      if (auto task = source.task(name))
        send_json(res, 200, *task);
      else
        send_error(res, 404, "no task named " + name + " in this run");
    });
    http.Get("/api/v1/targets", [this](const httplib::Request& req, httplib::Response& res) {
      if (authorized(req, res))
        send_json(res, 200, source.targets());
    });
    http.Get("/api/v1/nodes", [this](const httplib::Request& req, httplib::Response& res) {
      if (authorized(req, res))
        send_json(res, 200, source.nodes());
    });
    http.Get(R"(/api/v1/attempts/([^/]+)/log)",
             [this](const httplib::Request& req, httplib::Response& res) {
               if (!authorized(req, res))
                 return;
               uint64_t offset = 0;
               uint64_t limit = runtime::default_log_page_bytes;
               for (auto [name, into] : {std::pair{"offset", &offset}, std::pair{"limit", &limit}})
                 if (req.has_param(name) && !whole_number(req.get_param_value(name), *into))
                   return send_error(res, 400,
                                     std::string(name) + " must be a whole number of bytes, got " +
                                       req.get_param_value(name));
               auto file = req.has_param("file") ? req.get_param_value("file") : "output";
               auto page = source.log(req.matches[1].str(), file, offset,
                                      static_cast<size_t>(std::min<uint64_t>(
                                        limit, runtime::max_log_page_bytes)));
               if (page)
                 send_json(res, 200, *page);
               else
                 send_error(res, page.error().is_not_found() ? 404 : 400,
                            page.error().message());
             });
    http.Get("/api/v1/events", [this](const httplib::Request& req, httplib::Response& res) {
      if (!authorized(req, res))
        return;
      if (streams.fetch_add(1) >= max_event_streams) {
        streams.fetch_sub(1);
        send_error(res, 503, "too many event streams open (" + std::to_string(max_event_streams) +
                               "); close one and retry");
        return;
      }
      auto sub = events->subscribe();
      // The first message is the state now, so a client never misses a change.
      auto first = std::make_shared<std::string>(sse_message("state", source.state()));
      res.set_header("Cache-Control", "no-store");
      res.set_header("X-Accel-Buffering", "no");
      res.set_chunked_content_provider(
        "text/event-stream",
        [sub, first](size_t, httplib::DataSink& sink) {
          if (!first->empty()) {
            auto text = std::move(*first);
            first->clear();
            return sink.write(text.data(), text.size());
          }
          auto t = sub->take(keepalive);
          using S = runtime::event_fanout::subscriber::state;
          if (t.what == S::message)
            return sink.write(t.message.data(), t.message.size());
          if (t.what == S::idle) {
            static constexpr std::string_view ping = ": keep-alive\n\n";
            return sink.write(ping.data(), ping.size());
          }
          sink.done();  // dropped (it did not read) or the server stops
          return true;
        },
        [this, sub](bool) {
          sub->leave();
          streams.fetch_sub(1);
        });
    });
    http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (res.status == 404 && res.body.empty())
        send_error(res, 404,
                   "no such path: " + req.path +
                     " (the API is /api/v1/state, /api/v1/tasks/<name>, /api/v1/targets, "
                     "/api/v1/nodes, /api/v1/attempts/<identity>/log, /api/v1/events)");
    });
  }
};

runtime::result<std::unique_ptr<dashboard_server>> dashboard_server::start(
  const dashboard_settings& settings, dashboard_source source,
  std::shared_ptr<runtime::event_fanout> events) {
  // An address as a node's (runtime/distributed), except that port 0 asks
  // for any free port.
  const auto& text = settings.listen;
  bool any_port = text.ends_with(":0");
  auto endpoint = runtime::parse_node_endpoint(
    any_port ? text.substr(0, text.size() - 1) + "1" : text, settings.option);
  if (!endpoint)
    return endpoint.error();
  if (any_port)
    endpoint->port = 0;
  auto p = std::make_unique<impl>();
  if (!settings.token_file.empty()) {
    std::ifstream in(settings.token_file);
    if (!in)
      return runtime::status::invalid_argument("--token " + settings.token_file +
                                               ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    p->token = runtime::token_of(text.str());
    if (p->token.empty())
      return runtime::status::invalid_argument(
        "--token " + settings.token_file + ": the file is empty; write the token into it");
  }
  if (p->token.empty() && !runtime::is_loopback_host(endpoint->host))
    return runtime::status::invalid_argument(
      settings.option + " " + endpoint->text() +
      ": a dashboard beyond loopback needs --token FILE (a file holding the token the page and "
      "the API ask for)");
  p->source = std::move(source);
  p->events = std::move(events);
  p->host = endpoint->host;
  p->http.new_task_queue = [] { return new httplib::ThreadPool(max_event_streams + 4); };
  p->http.set_write_timeout(std::chrono::seconds(5));
  p->routes();
  auto host = endpoint->host == "localhost" ? std::string("127.0.0.1") : endpoint->host;
  if (endpoint->port == 0)
    p->port = p->http.bind_to_any_port(host);
  else
    p->port = p->http.bind_to_port(host, endpoint->port) ? endpoint->port : -1;
  if (p->port <= 0)
    return runtime::status::io_error(settings.option + " " + endpoint->text() +
                                     ": cannot listen there (in use, or not an address of this "
                                     "host)");
  auto* raw = p.get();
  p->thread = std::thread([raw] { raw->http.listen_after_bind(); });
  return std::unique_ptr<dashboard_server>(new dashboard_server(std::move(p)));
}

dashboard_server::dashboard_server(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

dashboard_server::~dashboard_server() {
  impl_->events->close();  // wakes the event streams
  impl_->http.stop();
  if (impl_->thread.joinable())
    impl_->thread.join();
}

std::string dashboard_server::url() const {
  auto host = impl_->host.find(':') != std::string::npos ? "[" + impl_->host + "]" : impl_->host;
  return "http://" + host + ":" + std::to_string(impl_->port) + "/";
}

bool dashboard_server::needs_token() const { return !impl_->token.empty(); }

} // namespace ad::cli
