// The mock provider's server over real loopback HTTP: the script cursor,
// the request log, streams, cuts and dropped requests.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/temp_dir.hpp"
#include "tools/mock-provider/server.hpp"

namespace ad::mock_provider {
namespace {

struct running_server {
  provider_server server;
  std::thread thread;
  int port = 0;

  explicit running_server(server_options o) : server(std::move(o)) {
    auto p = server.bind();
    EXPECT_TRUE(p.is_ok()) << p.error().message();
    port = p.is_ok() ? *p : 0;
    thread = std::thread([this] { server.run(); });
  }
  ~running_server() {
    server.stop();
    thread.join();
  }
};

server_options options(api_kind api, const char* script_text, const std::filesystem::path& log) {
  server_options o;
  o.api = api;
  auto s = parse_script(json::parse(script_text));
  EXPECT_TRUE(s.is_ok()) << s.error().message();
  if (s.is_ok()) o.plan = *s;
  o.log_file = log;
  return o;
}

std::vector<json> log_lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

const char* with_tools = R"({"model": "laguna-s", "stream": true,
    "tools": [{"type": "function", "function": {"name": "bash"}}]})";

TEST(mock_server, answers_in_script_order_and_logs_each_request) {
  test::temp_dir dir;
  running_server s(options(api_kind::chat, R"({
      "responses": [{"kind": "http_error", "status": 429, "headers": {"retry-after": "1"},
                     "body": {"error": {"message": "slow"}}}],
      "then": {"kind": "text", "text": "fine"},
      "uncounted": {"kind": "text", "text": "summary"}})",
                       dir.path() / "log"));
  httplib::Client c("127.0.0.1", s.port);
  auto first = c.Post("/v1/chat/completions", with_tools, "application/json");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 429);
  EXPECT_EQ(first->get_header_value("retry-after"), "1");
  auto second = c.Post("/v1/chat/completions", with_tools, "application/json");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  EXPECT_NE(second->body.find("\"content\":\"fi\""), std::string::npos) << second->body;
  EXPECT_NE(second->body.find("data: [DONE]"), std::string::npos);
  auto side = c.Post("/v1/chat/completions", R"({"stream": true})", "application/json");
  ASSERT_TRUE(side);
  EXPECT_NE(side->body.find("\"content\":\"sum\""), std::string::npos) << side->body;
  auto other = c.Get("/v1/models");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);

  auto log = log_lines(dir.path() / "log");
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0]["index"], 0);
  EXPECT_EQ(log[0]["kind"], "http_error");
  EXPECT_EQ(log[0]["tools"], true);
  EXPECT_EQ(log[1]["index"], 1);
  EXPECT_EQ(log[2]["counted"], false);
  EXPECT_TRUE(log[2]["index"].is_null());
  EXPECT_EQ(log[3]["kind"], "not_found");
  EXPECT_EQ(log[3]["path"], "/v1/models");
  // The usage each answer told: none for the 429.
  EXPECT_TRUE(log[0]["usage"].is_null());
  EXPECT_EQ(log[1]["usage"]["input_tokens"], 1234);
  EXPECT_EQ(log[1]["usage"]["output_tokens"], 56);
  EXPECT_EQ(log[2]["usage"]["input_tokens"], 1234);
}

TEST(mock_server, a_cut_stream_and_a_dropped_request_fail_on_the_client) {
  test::temp_dir dir;
  running_server s(options(api_kind::chat, R"({"count": "all", "responses": [
      {"kind": "stream_cut", "after_events": 2, "text": "abcdef"},
      {"kind": "stream_cut", "after_events": 1, "close": "reset"},
      {"kind": "drop"},
      {"kind": "stream_cut", "after_events": 1, "close": "end"}]})",
                       dir.path() / "log"));
  std::string received;
  auto receive = [&](const char* data, std::size_t n) {
    received.append(data, n);
    return true;
  };
  for (int i = 0; i < 3; ++i) {
    httplib::Client c("127.0.0.1", s.port);
    received.clear();
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/chat/completions";
    req.body = with_tools;
    req.set_header("Content-Type", "application/json");
    req.content_receiver = [&](const char* d, std::size_t n, uint64_t, uint64_t) {
      return receive(d, n);
    };
    auto res = c.send(req);
    EXPECT_FALSE(res) << "request " << i << " was answered in full";
    if (i == 0) {
      EXPECT_NE(received.find("\"content\":\"cd\""), std::string::npos) << received;
    }
    if (i == 2) {
      EXPECT_TRUE(received.empty());
    }
  }
  // close "end": the body ends properly, early, without [DONE].
  httplib::Client c("127.0.0.1", s.port);
  auto res = c.Post("/v1/chat/completions", with_tools, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body.find("[DONE]"), std::string::npos);
  EXPECT_EQ(log_lines(dir.path() / "log").size(), 4u);
}

TEST(mock_server, stop_cuts_a_scripted_delay_short) {
  test::temp_dir dir;
  auto started = std::chrono::steady_clock::now();
  {
    running_server s(options(api_kind::messages,
                             R"({"then": {"kind": "text", "text": "late", "delay_ms": 60000}})",
                             dir.path() / "log"));
    std::thread client([&] {
      httplib::Client c("127.0.0.1", s.port);
      c.Post("/v1/messages", R"({"stream": true, "tools": [{"name": "Bash"}]})",
             "application/json");
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    s.server.stop();
    client.join();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

} // namespace
} // namespace ad::mock_provider
