#include "tools/mock-provider/server.hpp"

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <mutex>
#include <optional>

#include "tools/mock-provider/connection.hpp"
#include "tools/mock-provider/wire.hpp"

namespace ad::mock_provider {
namespace {

using runtime::status;

std::vector<std::string> model_routes(api_kind api) {
  switch (api) {
  case api_kind::responses: return {"/v1/responses", "/responses"};
  case api_kind::messages: return {"/v1/messages", "/messages"};
  case api_kind::chat: return {"/v1/chat/completions", "/chat/completions"};
  }
  return {};
}

json not_found_body(api_kind api, const std::string& path) {
  json error{{"message", "mock provider: no route " + path}};
  if (api == api_kind::messages) {
    error["type"] = "not_found_error";
    return messages_error_body(error);
  }
  error["type"] = "invalid_request_error";
  error["code"] = "unknown_url";
  return json{{"error", error}};
}

} // namespace

struct provider_server::impl {
  server_options opt;
  httplib::Server http;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  std::mutex mu;
  std::condition_variable wake;
  bool stopping = false;
  std::size_t seq = 0;     // model requests so far
  std::size_t counted = 0; // counted model requests so far
  std::size_t any = 0;     // every request so far (for dump file names)
  std::ofstream log;

  explicit impl(server_options o) : opt(std::move(o)) {}

  long long elapsed_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now() - started)
        .count();
  }

  // Call with mu held.
  void write_log(json line) {
    if (!log.is_open()) return;
    line["t_ms"] = elapsed_ms();
    log << dump(line) << '\n';
    log.flush();
  }

  // Call with mu held.
  void keep_request(const httplib::Request& req) {
    if (opt.dump_dir.empty()) return;
    json headers = json::object();
    for (const auto& [k, v] : req.headers) headers[k] = v;
    auto body = json::parse(req.body, nullptr, false);
    json doc{{"method", req.method}, {"path", req.path}, {"headers", headers},
             {"body", body.is_discarded() ? json(req.body) : body}};
    char name[32];
    std::snprintf(name, sizeof name, "%04zu.json", any);
    std::ofstream(opt.dump_dir / name) << dump(doc, 1) << '\n';
  }

  // Waits ms or until stop(); false when stopping.
  bool pause(int ms) {
    std::unique_lock lock(mu);
    wake.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping; });
    return !stopping;
  }

  void model_request(const httplib::Request& req, httplib::Response& res) {
    request_view view;
    reply_spec spec;
    http_reply reply;
    std::optional<std::size_t> index;
    {
      std::lock_guard lock(mu);
      view = read_request(opt.api, req.body, seq++, static_cast<long long>(std::time(nullptr)));
      bool counts = opt.plan.count == count_rule::all || !view.tool_names.empty();
      if (counts) {
        index = counted++;
        spec = counted_reply(opt.plan, *index);
      } else {
        spec = opt.plan.uncounted;
      }
      keep_request(req);
      ++any;
      reply = render_reply(opt.api, spec, view);
      write_log({{"seq", view.seq},
                 {"method", req.method},
                 {"path", req.path},
                 {"index", index ? json(*index) : json(nullptr)},
                 {"counted", index.has_value()},
                 {"kind", to_string(spec.kind)},
                 {"tools", !view.tool_names.empty()},
                 {"stream", view.streaming},
                 {"model", view.model},
                 {"usage", served_usage(reply)}});
    }
    carry_out(std::move(reply), req, res);
  }

  void other_request(const httplib::Request& req, httplib::Response& res) {
    bool count_tokens = opt.api == api_kind::messages && req.method == "POST" &&
                        req.path.find("/messages/count_tokens") != std::string::npos;
    {
      std::lock_guard lock(mu);
      keep_request(req);
      ++any;
      write_log({{"seq", nullptr},
                 {"method", req.method},
                 {"path", req.path},
                 {"index", nullptr},
                 {"counted", false},
                 {"kind", count_tokens ? "count_tokens" : "not_found"},
                 {"tools", false},
                 {"stream", false}});
    }
    if (count_tokens) {
      res.set_content(dump(json{{"input_tokens", 321}}), "application/json");
      return;
    }
    res.status = 404;
    res.set_content(dump(not_found_body(opt.api, req.path)), "application/json");
  }

  void carry_out(http_reply reply, const httplib::Request& req, httplib::Response& res) {
    if (reply.delay_ms > 0 && !pause(reply.delay_ms)) {
      end_connection(req.local_port, req.remote_addr, req.remote_port, close_mode::fin);
      return;
    }
    if (reply.shape == reply_shape::drop) {
      end_connection(req.local_port, req.remote_addr, req.remote_port, reply.close);
      res.status = 500; // written into a closed socket, never seen
      return;
    }
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    if (reply.shape == reply_shape::body) {
      res.set_content(reply.body, reply.content_type.c_str());
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    if (reply.cut_after >= 0 && reply.close == close_mode::end)
      res.set_header("Connection", "close");
    auto events = std::make_shared<std::vector<std::string>>(std::move(reply.events));
    int cut = reply.cut_after, hold = reply.hold_ms;
    close_mode close = reply.close;
    int local = req.local_port, remote = req.remote_port;
    std::string remote_addr = req.remote_addr;
    res.set_chunked_content_provider(
        reply.content_type.c_str(),
        [this, events, cut, hold, close, local, remote, remote_addr](std::size_t,
                                                                     httplib::DataSink& sink) {
          for (std::size_t i = 0; i < events->size(); ++i) {
            if (cut >= 0 && static_cast<int>(i) == cut) break;
            const auto& e = (*events)[i];
            if (!sink.write(e.data(), e.size())) return false;
          }
          if (cut >= 0 && hold > 0) pause(hold);
          if (cut < 0 || close == close_mode::end) {
            sink.done();
            return true;
          }
          end_connection(local, remote_addr, remote, close);
          return false;
        });
  }
};

provider_server::provider_server(server_options options)
    : impl_(std::make_unique<impl>(std::move(options))) {}

provider_server::~provider_server() = default;

runtime::result<int> provider_server::bind() {
  auto& s = *impl_;
  if (!s.opt.log_file.empty()) {
    s.log.open(s.opt.log_file, std::ios::app);
    if (!s.log) return status::io_error("cannot open log file " + s.opt.log_file.string());
  }
  // Each open connection holds a thread for its keep-alive time: leave room.
  s.http.new_task_queue = [] { return new httplib::ThreadPool(32); };
  s.http.set_keep_alive_timeout(5);
  s.http.set_read_timeout(30);
  s.http.set_payload_max_length(256u << 20);
  auto model = [this](const httplib::Request& req, httplib::Response& res) {
    impl_->model_request(req, res);
  };
  for (const auto& path : model_routes(s.opt.api)) s.http.Post(path, model);
  auto other = [this](const httplib::Request& req, httplib::Response& res) {
    impl_->other_request(req, res);
  };
  s.http.Get(".*", other);
  s.http.Post(".*", other);
  s.http.Put(".*", other);
  s.http.Delete(".*", other);
  int port = s.http.bind_to_any_port("127.0.0.1");
  if (port <= 0) return status::io_error("cannot bind 127.0.0.1 on any port");
  return port;
}

void provider_server::run() { impl_->http.listen_after_bind(); }

void provider_server::stop() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  impl_->http.stop();
}

} // namespace ad::mock_provider
