// End-to-end: the dashboard's API over plain HTTP, as a client sees it.
// `serve` answers the state, a task, a bad path and a bad task in JSON; beyond
// loopback it refuses to start without --token, and with a token the API
// answers 401 without the bearer header; `run --web` finishes on time while
// a client holds an event stream open and never reads it.
#include <arpa/inet.h>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <gtest/gtest.h>
#include "tools/cli/http_library.hpp"
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <thread>

#include "runtime/core/json.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;
using runtime::json;

// A running agent-dispatch whose stdout and stderr are read line by line.
class child {
public:
  explicit child(const std::vector<std::string>& args) {
    int out[2], err[2];
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      auto program = agent_dispatch();
      std::vector<char*> argv{program.data()};
      for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(program.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    out_ = out[0];
    err_ = err[0];
  }
  ~child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(out_);
    ::close(err_);
  }
  // The first line on the stream (stdout or stderr) holding `needle`, ""
  // after `limit`.
  std::string line_with(const std::string& needle, bool from_stderr,
                        std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    int fd = from_stderr ? err_ : out_;
    std::string& buf = from_stderr ? err_text_ : out_text_;
    auto end = std::chrono::steady_clock::now() + limit;
    for (;;) {
      size_t start = 0;
      for (auto nl = buf.find('\n'); nl != std::string::npos; nl = buf.find('\n', start)) {
        auto line = buf.substr(start, nl - start);
        start = nl + 1;
        if (line.find(needle) != std::string::npos)
          return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return "";
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0)
        return "";
      char chunk[4096];
      auto n = ::read(fd, chunk, sizeof chunk);
      if (n <= 0)
        return "";
      buf.append(chunk, static_cast<size_t>(n));
    }
  }
  // The exit code once it ended within `limit`, else -1.
  int wait(std::chrono::milliseconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  void signal(int signo) { ::kill(pid_, signo); }

private:
  pid_t pid_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::string out_text_;
  std::string err_text_;
};

// "http://127.0.0.1:PORT/" in a line -> {host, port}.
std::pair<std::string, int> address_in(const std::string& line) {
  auto at = line.find("http://");
  EXPECT_NE(at, std::string::npos) << line;
  if (at == std::string::npos)
    return {"", 0};
  auto rest = line.substr(at + 7);
  auto colon = rest.find(':');
  auto slash = rest.find('/');
  return {rest.substr(0, colon), std::stoi(rest.substr(colon + 1, slash - colon - 1))};
}

class dashboard : public ::testing::Test {
protected:
  void SetUp() override {
    ::setenv("XDG_STATE_HOME", (state_.path() / "xdg").c_str(), 1);
    write_plan_and_review(ws_.path(), "app/01_model", "cloud", {"src/model.cpp"});
    write_plan_and_review(ws_.path(), "app/02+01_api", "cloud", {"src/api.cpp"});
  }
  void TearDown() override { ::unsetenv("XDG_STATE_HOME"); }

  temp_dir state_;
  temp_dir ws_;
};

TEST_F(dashboard, serve_answers_the_state_a_task_and_bad_paths_in_json) {
  child serve({"serve", "--listen", "127.0.0.1:0", "--workspace", ws_.path().string()});
  auto line = serve.line_with("serve: dashboard of", false);
  ASSERT_FALSE(line.empty());
  auto [host, port] = address_in(line);
  httplib::Client http(host, port);

  auto page = http.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<script src=\"/dashboard.js\">"), std::string::npos);

  auto state = http.Get("/api/v1/state");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->status, 200);
  auto j = runtime::parse_json(state->body, "state");
  ASSERT_TRUE(j) << state->body;
  EXPECT_EQ((*j)["source"], "state");
  ASSERT_EQ((*j)["tasks"].size(), 2u);
  EXPECT_EQ((*j)["tasks"][0]["task"], "app/01_model");
  EXPECT_EQ((*j)["tasks"][0]["status"], "ready");
  EXPECT_EQ((*j)["tasks"][1]["status"], "waiting");

  auto task = http.Get("/api/v1/tasks/app/02+01_api");
  ASSERT_TRUE(task);
  EXPECT_EQ(task->status, 200) << task->body;
  auto t = runtime::parse_json(task->body, "task");
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)["task"], "app/02+01_api");
  EXPECT_EQ((*t)["status"], "waiting");

  auto targets = http.Get("/api/v1/targets");
  ASSERT_TRUE(targets);
  EXPECT_EQ(targets->status, 200);
  EXPECT_EQ(runtime::parse_json(targets->body, "targets").value()["targets"], json::array())
    << "nothing ran: no target holds a task or spent anything";
  auto nodes = http.Get("/api/v1/nodes");
  ASSERT_TRUE(nodes);
  EXPECT_EQ(nodes->status, 200);
  auto no_attempt = http.Get("/api/v1/attempts/app__01_model__p1__worker__a01/log");
  ASSERT_TRUE(no_attempt);
  EXPECT_EQ(no_attempt->status, 404) << no_attempt->body;
  auto bad_offset = http.Get("/api/v1/attempts/x/log?offset=-5");
  ASSERT_TRUE(bad_offset);
  EXPECT_EQ(bad_offset->status, 400);
  EXPECT_EQ(bad_offset->body, "{\"error\":\"offset must be a whole number of bytes, got -5\"}\n");

  auto unknown = http.Get("/api/v1/tasks/app/99_none");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(unknown->body, "{\"error\":\"no task named app/99_none in this run\"}\n");
  auto bad = http.Get("/api/v2/state");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 404);
  EXPECT_EQ(bad->body,
            "{\"error\":\"no such path: /api/v2/state (the API is /api/v1/state, "
            "/api/v1/tasks/<name>, /api/v1/targets, /api/v1/nodes, "
            "/api/v1/attempts/<identity>/log, /api/v1/events)\"}\n");

  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(std::chrono::seconds(10)), 0);
  // It read the state root and wrote nothing: no state root was made.
  EXPECT_FALSE(fs::exists(state_.path() / "xdg"));
}

TEST_F(dashboard, beyond_loopback_a_token_is_required_and_checked) {
  auto refused = run_binary(agent_dispatch(), {"serve", "--listen", "0.0.0.0:0", "--workspace",
                                               ws_.path().string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "serve: --listen 0.0.0.0:0: a dashboard beyond loopback needs --token FILE (a file "
            "holding the token the page and the API ask for)\n");

  auto token = state_.write("token", "  s3cret-token\n");
  child serve({"serve", "--listen", "127.0.0.1:0", "--workspace", ws_.path().string(), "--token",
               token.string()});
  auto line = serve.line_with("serve: dashboard of", false);
  ASSERT_FALSE(line.empty());
  EXPECT_NE(line.find("ask for the --token"), std::string::npos) << line;
  auto [host, port] = address_in(line);
  httplib::Client http(host, port);
  auto none = http.Get("/api/v1/state");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  auto wrong = http.Get("/api/v1/state", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto events = http.Get("/api/v1/events", {{"Authorization", "Bearer nope"}});
  ASSERT_TRUE(events);
  EXPECT_EQ(events->status, 401);
  auto right = http.Get("/api/v1/state", {{"Authorization", "Bearer s3cret-token"}});
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200);
  auto page = http.Get("/");  // the page holds no data: it asks for the token
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
}

TEST_F(dashboard, a_run_finishes_on_time_while_a_client_never_reads_its_events) {
  std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", ((binary_dir() / "sim-bin").string() + ":" + saved_path).c_str(), 1);
  ::setenv("AGENT_SIM_REGISTRY", (state_.path() / "registry.jsonl").c_str(), 1);
  ::setenv("AGENT_SIM_TIME_SCALE", "0.01", 1);
  for (int i = 3; i <= 9; ++i)
    write_plan_and_review(ws_.path(), "lib/0" + std::to_string(i) + "_part", "cloud",
                          {"lib/part" + std::to_string(i) + ".cpp"});

  auto started = std::chrono::steady_clock::now();
  child run({"run", "--web", "127.0.0.1:0", "--workspace", ws_.path().string(), "--json"});
  auto line = run.line_with("run: dashboard at", true);
  ASSERT_FALSE(line.empty());
  auto [host, port] = address_in(line);
  // A client that asks for the event stream with a tiny receive buffer and
  // never reads a byte.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int tiny = 1024;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::string request = "GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));

  int code = run.wait(std::chrono::seconds(60));
  auto took = std::chrono::steady_clock::now() - started;
  ::close(fd);
  ::setenv("PATH", saved_path.c_str(), 1);
  ::unsetenv("AGENT_SIM_REGISTRY");
  ::unsetenv("AGENT_SIM_TIME_SCALE");
  EXPECT_EQ(code, 0);
  // 9 tasks of simulated work at 1/100 of their time: seconds, not minutes;
  // a blocked writer would hold the run until the client read.
  EXPECT_LT(took, std::chrono::seconds(30));
}

// What headless Chromium makes of a page: its DOM after the scripts ran.
std::string dump_dom(const std::string& url) {
  auto r = run_binary("/usr/bin/chromium",
                      {"--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=4000",
                       "--dump-dom", url});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The page as a person sees it, in headless Chromium, against a run with a
// task running (its agent keeps working), one waiting for it, one blocked
// (a PLAN naming a path no agent may write) and one completed: the
// overview with what was spent and the running attempt's tokens so far,
// the target page, a task page with its work log and an attempt's log
// opened (the log also paged over plain HTTP), and after the run the
// completed task under `serve`. The screenshot stays under
// <build>/test-output/dashboard/ (docs/dashboard.png is one).
TEST_F(dashboard, the_page_shows_each_task_with_its_status_in_chromium) {
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "tools/setup.sh --test installs chromium";
  std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", ((binary_dir() / "sim-bin").string() + ":" + saved_path).c_str(), 1);
  ::setenv("AGENT_SIM_REGISTRY", (state_.path() / "registry.jsonl").c_str(), 1);
  ::setenv("AGENT_SIM_TIME_SCALE", "1", 1);
  auto scenario = state_.write(
    "scenario.json",
    R"({"tasks": {"app/01_model": {"worker": {"1": [
         {"kind": "write", "path": "src/model.cpp", "content": "int model;\n"},
         {"kind": "fail", "failure": "file_exists", "path": "src/model.cpp"}], "default": [
         {"kind": "events", "count": 600, "interval_seconds": 0.5}, {"kind": "work"}]}}}})");
  ::setenv("AGENT_SIM_SCENARIO", scenario.c_str(), 1);
  write_plan_and_review(ws_.path(), "lib/01_done", "cloud", {"lib/done.cpp"});
  write_plan_and_review(ws_.path(), "lib/02_blocked", "cloud", {"agent-task/lib/x.md"});
  // Workers on claude, whose stream reports tokens while it runs.
  ws_.write("agent-dispatch.json",
            R"({"rules": [{"id": "cloud-workers", "priority": 10, "stage": "worker",
                "lanes": ["cloud"], "grades": [1, 10], "candidates": ["claude-opus"]}]})");

  child run({"run", "--web", "127.0.0.1:0", "--workspace", ws_.path().string()});
  auto line = run.line_with("run: dashboard at", true);
  ASSERT_FALSE(line.empty());
  auto [host, port] = address_in(line);
  std::string url = "http://" + host + ":" + std::to_string(port) + "/";
  httplib::Client http(host, port);
  // Until the four tasks are where the test wants them (bounded).
  json state;
  for (int i = 0; i < 300; ++i) {
    auto r = http.Get("/api/v1/state");
    if (r && r->status == 200)
      if (auto j = runtime::parse_json(r->body, "state"); j) {
        state = *j;
        std::map<std::string, std::string> status;
        for (const auto& t : state["tasks"])
          status[t["task"]] = t["status"];
        if (status["app/01_model"] == "running" && status["app/02+01_api"] == "waiting" &&
            status["lib/01_done"] == "complete" && status["lib/02_blocked"] == "blocked" &&
            !state["running"].empty() && state["running"][0]["attempt"] == 2 &&
            !state["running"][0]["output"].get<std::string>().empty() &&
            !state["running"][0]["usage_text"].get<std::string>().empty())
          break;
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(state["counts"]["running"], 1) << state.dump(2);
  // The running attempt's last rendered output line, found by its identity.
  EXPECT_FALSE(state["running"][0]["output"].get<std::string>().empty()) << state.dump(2);
  // Tokens so far of the running attempt (its locator, refreshed while they
  // grow) and what the finished attempts spent.
  EXPECT_GT(state["running"][0]["usage"].value("input_tokens", 0), 0) << state.dump(2);
  EXPECT_GT(state["usage"].value("input_tokens", 0), 0) << state.dump(2);

  auto dom = dump_dom(url);
  for (const auto& [task, status] : std::vector<std::pair<std::string, std::string>>{
         {"app/01_model", "running"},
         {"app/02+01_api", "waiting"},
         {"lib/01_done", "complete"},
         {"lib/02_blocked", "blocked"}})
    EXPECT_NE(dom.find("<tr data-task=\"" + task + "\" data-status=\"" + status + "\">"),
              std::string::npos)
      << task << " " << status << "\n" << dom;
  EXPECT_NE(dom.find("data-wait=\"dependency\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("--retry-blocked --task-group lib"), std::string::npos) << dom;
  EXPECT_NE(dom.find("data-events="), std::string::npos) << "no event arrived on the stream\n"
                                                         << dom;
  EXPECT_NE(dom.find("<p id=\"spent\">spent: " + state["usage_text"].get<std::string>()),
            std::string::npos)
    << dom;
  EXPECT_NE(dom.find("<tr data-target=\"claude-opus\">"), std::string::npos) << dom;
  auto tokens = dom.find("<td class=\"tokens\">");
  ASSERT_NE(tokens, std::string::npos) << dom;
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(dom[tokens + 19])))
    << "the running attempt's tokens so far\n" << dom;

  // The running attempt's log over plain HTTP, a page at a time.
  const std::string running_id = "app__01_model__p1__worker__a02";
  auto first = http.Get("/api/v1/attempts/" + running_id + "/log?limit=120");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  auto page = runtime::parse_json(first->body, "log").value();
  EXPECT_EQ(page["file"], "normalized-output.log");
  auto text = page["text"].get<std::string>();
  ASSERT_FALSE(text.empty());
  EXPECT_LE(text.size(), 120u);
  EXPECT_EQ(text.back(), '\n') << "whole lines: " << text;
  EXPECT_FALSE(page["eof"].get<bool>()) << "the agent has written more than a page";
  auto next = http.Get("/api/v1/attempts/" + running_id + "/log?limit=120&offset=" +
                       std::to_string(page["next_offset"].get<uint64_t>()));
  ASSERT_TRUE(next);
  auto second = runtime::parse_json(next->body, "log").value();
  EXPECT_EQ(second["offset"], page["next_offset"]);
  EXPECT_NE(second["text"], page["text"]);
  // The raw stream's lines are longer than a small page: they come in pieces.
  auto raw = http.Get("/api/v1/attempts/" + running_id + "/log?file=stream&limit=300");
  ASSERT_TRUE(raw);
  auto raw_page = runtime::parse_json(raw->body, "log").value();
  EXPECT_EQ(raw_page["file"], "stream.log");
  EXPECT_EQ(raw_page["next_offset"], 300) << raw->body;

  // The target page: claude-opus runs the model task.
  auto target_dom = dump_dom(url + "#/target/claude-opus");
  EXPECT_NE(target_dom.find("<h2 id=\"target-name\">claude-opus</h2>"), std::string::npos)
    << target_dom;
  EXPECT_NE(target_dom.find("<tr data-task=\"app/01_model\">"), std::string::npos) << target_dom;

  auto task_dom = dump_dom(url + "#/task/app%2F01_model?log=" + running_id);
  EXPECT_NE(task_dom.find("<h2 id=\"task-name\">app/01_model</h2>"), std::string::npos)
    << task_dom;
  // The work log's START row and the attempt's rendered output, opened by the link.
  EXPECT_NE(task_dom.find("<td>START</td>"), std::string::npos) << task_dom;
  auto log_at = task_dom.find("<pre id=\"log-text\"");
  ASSERT_NE(log_at, std::string::npos) << task_dom;
  EXPECT_NE(task_dom.find("sed -n 1,80p", log_at), std::string::npos) << task_dom.substr(log_at, 2000);
  EXPECT_NE(task_dom.find("data-attempt=\"" + running_id + "\""), std::string::npos)
    << task_dom;
  // The context the tactical match left for the retry (the first attempt
  // found src/model.cpp already there), read from the state as `serve`
  // shows it: in the API and on the page, with the prompt's block.
  auto model = runtime::parse_json(http.Get("/api/v1/tasks/app/01_model")->body, "task").value();
  ASSERT_TRUE(model["intervention"].is_object()) << model.dump(2);
  EXPECT_EQ(model["intervention"]["pattern_ids"], json::array({"file-already-exists"}));
  auto model_cpp = (fs::canonical(ws_.path()) / "src/model.cpp").string();
  EXPECT_NE(model["intervention"]["prompt"].get<std::string>().find(
              "- " + model_cpp + " (created by app__01_model__p1__worker__a01)"),
            std::string::npos)
    << model.dump(2);
  auto iv_at = task_dom.find("<pre id=\"intervention\"");
  ASSERT_NE(iv_at, std::string::npos) << task_dom;
  EXPECT_NE(task_dom.find(model_cpp, iv_at), std::string::npos) << task_dom.substr(iv_at, 2000);
  EXPECT_NE(task_dom.find("matched file-already-exists at "), std::string::npos) << task_dom;
  auto done_dom = dump_dom(url + "#/task/lib%2F01_done");
  EXPECT_NE(done_dom.find("<p id=\"spent\">spent this run: "), std::string::npos) << done_dom;
  EXPECT_EQ(done_dom.find("nothing reported"), std::string::npos)
    << "the completed task's attempts reported their tokens\n" << done_dom;
  EXPECT_EQ(done_dom.find("id=\"intervention\""), std::string::npos) << done_dom;

  auto out = binary_dir() / "test-output" / "dashboard";
  fs::create_directories(out);
  auto shot = out / "overview.png";
  fs::remove(shot);
  auto r = run_binary("/usr/bin/chromium",
                      {"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                       "--virtual-time-budget=4000", "--window-size=1280,900",
                       "--screenshot=" + shot.string(), url});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(fs::exists(shot) ? fs::file_size(shot) : 0, 10'000u);

  run.signal(SIGTERM);
  EXPECT_EQ(run.wait(std::chrono::seconds(30)), 130);
  ::setenv("PATH", saved_path.c_str(), 1);
  ::unsetenv("AGENT_SIM_REGISTRY");
  ::unsetenv("AGENT_SIM_TIME_SCALE");
  ::unsetenv("AGENT_SIM_SCENARIO");

  // The same run's completed task under `serve`, from the state: what it
  // spent and its work-log rows (from the live or the archived log).
  child serve({"serve", "--listen", "127.0.0.1:0", "--workspace", ws_.path().string()});
  auto serving = serve.line_with("serve: dashboard of", false);
  ASSERT_FALSE(serving.empty());
  auto [serve_host, serve_port] = address_in(serving);
  httplib::Client from_state(serve_host, serve_port);
  auto done = runtime::parse_json(from_state.Get("/api/v1/tasks/lib/01_done")->body, "task").value();
  ASSERT_FALSE(done["work_log"].empty()) << done.dump(2);
  auto last_row = done["work_log"].back();
  EXPECT_EQ(last_row["event"], "FINISH") << done.dump(2);
  auto folder = fs::path(last_row["locator"].get<std::string>()).parent_path().filename().string();
  auto reviewed = folder.substr(folder.find("__") + 2);
  auto state_dom = dump_dom("http://" + serve_host + ":" + std::to_string(serve_port) +
                            "/#/task/lib%2F01_done?log=" + reviewed);
  EXPECT_NE(state_dom.find("<h2 id=\"task-name\">lib/01_done</h2>"), std::string::npos)
    << state_dom;
  EXPECT_EQ(state_dom.find("nothing reported"), std::string::npos)
    << "what the task spent, from the state\n" << state_dom;
  EXPECT_NE(state_dom.find("<td>FINISH</td>"), std::string::npos) << state_dom;
  // A completed task's attempt folders are gone, and the page says so.
  EXPECT_NE(state_dom.find("<b class=\"mono\">" + reviewed + "</b>"), std::string::npos)
    << state_dom;
  EXPECT_NE(state_dom.find("attempt folders are removed when it completes"), std::string::npos)
    << state_dom;
  EXPECT_EQ(state_dom.find("id=\"log-more\""), std::string::npos) << state_dom;
  // The stopped task's attempt keeps its log, read from the state root.
  auto kept = from_state.Get("/api/v1/attempts/" + running_id + "/log");
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->status, 200) << kept->body;
  EXPECT_NE(runtime::parse_json(kept->body, "log").value()["text"].get<std::string>().find(
              "sed -n 1,80p"),
            std::string::npos)
    << kept->body;
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(std::chrono::seconds(10)), 0);
}

} // namespace
} // namespace ad::test
