// End-to-end: a run's notify rules (docs/notify.md) with the simulator.
// A loopback HTTP server and a command that writes its stdin to a file get
// the blocked task and the run's end with their JSON; a command that hangs
// and a URL that never answers do not hold the run past the grace, and the
// exit code stays the run's.
#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <gtest/gtest.h>
#include "tools/cli/http_library.hpp"
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/core/json.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_lines.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;
using runtime::json;

class notify : public ::testing::Test {
protected:
  void SetUp() override {
    saved_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    std::string path = (binary_dir() / "sim-bin").string() + ":" + saved_path_;
    ::setenv("PATH", path.c_str(), 1);
    ::setenv("XDG_STATE_HOME", (state_.path() / "xdg").c_str(), 1);
    ::setenv("AGENT_SIM_TIME_SCALE", "0.01", 1);
    ::unsetenv("AGENT_SIM_SCENARIO");
    // One task completes, one is blocked at once (its PLAN has no header).
    write_plan_and_review(ws_.path(), "g/01_ok", "cloud", {"src/ok.cpp"});
    ws_.write("src/ok.cpp", "// ok\n");
    ws_.write("agent-task/g/02_bad/PLAN-cloud-G05.md", "no header, no table\n");
  }
  void TearDown() override {
    ::setenv("PATH", saved_path_.c_str(), 1);
    ::unsetenv("XDG_STATE_HOME");
    ::unsetenv("AGENT_SIM_TIME_SCALE");
  }
  // Runs with a policy of only these notify settings; the elapsed seconds.
  double run_with(const std::string& notify_json) {
    auto policy = state_.write("policy.json", "{\"notify\": " + notify_json + "}");
    auto start = std::chrono::steady_clock::now();
    result_ = run_binary(agent_dispatch(), {"run", "--json", "--workspace", ws_.path().string(),
                                            "--policy", policy.string()});
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  temp_dir state_;
  temp_dir ws_;
  std::string saved_path_;
  run_output result_;
};

TEST_F(notify, a_blocked_task_and_the_runs_end_reach_a_url_and_a_command_with_their_json) {
  std::mutex mutex;
  std::vector<json> posted;
  httplib::Server server;
  server.Post("/hook", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mutex);
    posted.push_back(json::parse(req.body));
    res.set_content("{}", "application/json");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { server.listen_after_bind(); });
  auto script = state_.write("to-file.sh", "#!/bin/sh\ncat >> \"$1\"\n");
  ::chmod(script.c_str(), 0755);
  auto received = state_.path() / "received.jsonl";
  run_with(R"({"rules": [
    {"id": "hook", "events": ["task_blocked", "run_finished"],
     "url": "http://127.0.0.1:)" + std::to_string(port) + R"(/hook"},
    {"id": "script", "events": ["task_blocked", "run_finished"],
     "command": [")" + script.string() + R"(", ")" + received.string() + R"("]}]})");
  server.stop();
  serving.join();
  EXPECT_EQ(result_.exit_code, 2) << result_.out << result_.err;

  std::ifstream in(received);
  std::stringstream text;
  text << in.rdbuf();
  auto by_command = json_lines(text.str());
  std::lock_guard lock(mutex);
  for (const auto& [rule, got] : {std::pair{"hook", posted}, std::pair{"script", by_command}}) {
    ASSERT_EQ(got.size(), 2u) << rule << ": " << text.str() << result_.err;
    EXPECT_EQ(got[0]["notification"], "task_blocked") << rule;
    EXPECT_EQ(got[0]["event"], "task_blocked") << rule;
    EXPECT_EQ(got[0]["task"], "g/02_bad") << rule;
    EXPECT_EQ(got[0]["rule"], rule);
    EXPECT_EQ(got[0]["workspace"], fs::canonical(ws_.path()).string());
    EXPECT_FALSE(got[0]["reason"].get<std::string>().empty()) << got[0];
    EXPECT_EQ(got[1]["notification"], "run_finished") << rule;
    EXPECT_EQ(got[1]["event"], "summary") << rule;
    EXPECT_EQ(got[1]["exit_code"], 2) << rule;
    EXPECT_EQ(got[1]["blocked"], 1) << rule;
    EXPECT_EQ(got[1]["complete"], 1) << rule;
  }
  // What the run printed is unchanged: its summary is its last line.
  auto printed = json_lines(result_.out);
  ASSERT_FALSE(printed.empty());
  EXPECT_EQ(printed.back()["event"], "summary");
  EXPECT_EQ(printed.back()["exit_code"], 2);
}

// Each try may take 30 s and is retried; the grace of 1 s bounds the run.
constexpr const char* slow_settings = R"("timeout_s": 30, "retries": 3, "grace_s": 1)";

// The blocked task's command hangs; the run's end, for another rule, is
// sent all the same: the hanging one gives way to it.
TEST_F(notify, a_command_that_hangs_is_killed_at_the_grace_and_the_exit_code_stays) {
  auto pids = state_.path() / "pids";
  auto script = state_.write("to-file.sh", "#!/bin/sh\ncat >> \"$1\"\n");
  ::chmod(script.c_str(), 0755);
  auto received = state_.path() / "received.jsonl";
  double took = run_with(std::string("{") + slow_settings + R"(, "rules": [
    {"id": "hang", "events": ["task_blocked"],
     "command": ["sh", "-c", "echo $$ >> )" + pids.string() + R"(; exec sleep 600"]},
    {"id": "end", "events": ["run_finished"],
     "command": [")" + script.string() + R"(", ")" + received.string() + R"("]}]})");
  EXPECT_EQ(result_.exit_code, 2) << result_.out << result_.err;
  EXPECT_LT(took, 15) << result_.err;
  EXPECT_TRUE(contains(result_.err, "notify: rule hang: task_blocked g/02_bad command sh: "
                                    "stopped as the run ends: killed with its process group"))
    << result_.err;
  std::ifstream got(received);
  std::stringstream text;
  text << got.rdbuf();
  auto ends = json_lines(text.str());
  ASSERT_EQ(ends.size(), 1u) << text.str() << result_.err;
  EXPECT_EQ(ends[0]["notification"], "run_finished");
  EXPECT_EQ(ends[0]["exit_code"], 2);
  // The command ran, and nothing of it outlived the run.
  std::ifstream in(pids);
  int count = 0;
  for (pid_t pid; in >> pid; ++count)
    EXPECT_NE(::kill(pid, 0), 0) << "pid " << pid << " still runs";
  EXPECT_GE(count, 1);
}

TEST_F(notify, a_url_that_never_answers_does_not_hold_the_run) {
  // Listens, never accepts or reads: a connection is made and hangs.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  double took = run_with(std::string("{") + slow_settings + R"(, "rules": [
    {"id": "silent", "events": ["task_blocked", "run_finished"],
     "url": "http://127.0.0.1:)" + std::to_string(ntohs(addr.sin_port)) + R"(/hook"}]})");
  ::close(fd);
  EXPECT_EQ(result_.exit_code, 2) << result_.out << result_.err;
  EXPECT_LT(took, 15) << result_.err;
  EXPECT_TRUE(contains(result_.err, "notify: rule silent")) << result_.err;
}

// https: the server's certificate is checked against the system's CA store
// (SSL_CERT_FILE stands in for it here): trusted, the JSON arrives;
// untrusted, the POST is refused and the run goes on.
TEST_F(notify, an_https_url_gets_the_json_once_its_certificate_is_trusted) {
  auto key = state_.path() / "key.pem";
  auto cert = state_.path() / "cert.pem";
  auto made = run_binary("/usr/bin/openssl",
                         {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.string(),
                          "-out", cert.string(), "-days", "1", "-subj", "/CN=127.0.0.1",
                          "-addext", "subjectAltName=IP:127.0.0.1"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::mutex mutex;
  std::vector<json> posted;
  httplib::SSLServer server(cert.c_str(), key.c_str());
  ASSERT_TRUE(server.is_valid());
  server.Post("/hook", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mutex);
    posted.push_back(json::parse(req.body));
    res.set_content("{}", "application/json");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { server.listen_after_bind(); });
  std::string rules = R"({"timeout_s": 5, "retries": 0, "rules": [{"id": "tls", "events": ["run_finished"],
    "url": "https://127.0.0.1:)" + std::to_string(port) + R"(/hook"}]})";
  ::setenv("SSL_CERT_FILE", cert.c_str(), 1);
  run_with(rules);
  ::unsetenv("SSL_CERT_FILE");
  auto trusted = result_;
  ::setenv("SSL_CERT_FILE", "/dev/null", 1);
  run_with(rules);
  ::unsetenv("SSL_CERT_FILE");
  server.stop();
  serving.join();
  EXPECT_EQ(trusted.exit_code, 2) << trusted.err;
  EXPECT_EQ(result_.exit_code, 2) << result_.err;
  std::lock_guard lock(mutex);
  ASSERT_EQ(posted.size(), 1u) << trusted.err << result_.err;
  EXPECT_EQ(posted[0]["notification"], "run_finished");
  EXPECT_EQ(posted[0]["rule"], "tls");
  EXPECT_TRUE(contains(result_.err, "notify: rule tls: run_finished POST https://127.0.0.1:"))
    << result_.err;
  EXPECT_TRUE(contains(result_.err, "SSLServerVerification")) << result_.err;
}

// agent-dispatch starts itself once more with huge pages for its heap
// (runtime/core/heap_tuning.hpp): the dispatcher's own start carries the
// tunable, and what it starts (here a notify command, as keepers and agents)
// sees GLIBC_TUNABLES as the user gave it. A user's own hugetlb is kept. The
// process keeps its name across the second start (ps, top, pgrep and
// killall see agent-dispatch).
TEST_F(notify, what_the_dispatcher_starts_sees_the_users_glibc_tunables) {
  auto script = state_.write("env.sh",
                             "#!/bin/sh\n"
                             "{ echo \"own=${GLIBC_TUNABLES-unset}\"\n"
                             "  echo \"saved=${AGENT_DISPATCH_SAVED_TUNABLES-unset}\"\n"
                             // The tunables of the dispatcher's own start, one a
                             // line: glibc may cut its copy of GLIBC_TUNABLES at
                             // each colon as it reads it.
                             "  printf 'dispatcher='\n"
                             "  tr '\\0:' '\\n\\n' < /proc/$PPID/environ | sed -n "
                             "'s/^\\(GLIBC_TUNABLES=\\)\\{0,1\\}\\(glibc\\.malloc\\.[a-z]*=[0-9]*\\)$/\\2 /p' "
                             "| tr -d '\\n'\n"
                             "  printf '\\ncomm=%s\\n' \"$(cat /proc/$PPID/comm)\"\n"
                             "} > \"$1\"\n");
  ::chmod(script.c_str(), 0755);
  auto seen = state_.path() / "env.txt";
  std::string rules = R"({"rules": [{"id": "env", "events": ["run_finished"],
     "command": [")" + script.string() + R"(", ")" + seen.string() + R"("]}]})";
  struct expectation {
    const char* given;  // nullptr: unset
    const char* own;
    const char* dispatcher;
  };
  for (const auto& e :
       {expectation{nullptr, "unset", "glibc.malloc.hugetlb=1 "},
        expectation{"glibc.malloc.check=0", "glibc.malloc.check=0",
                    "glibc.malloc.check=0 glibc.malloc.hugetlb=1 "},
        expectation{"glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=0",
                    "glibc.malloc.hugetlb=0 "}}) {
    if (e.given)
      ::setenv("GLIBC_TUNABLES", e.given, 1);
    else
      ::unsetenv("GLIBC_TUNABLES");
    fs::remove(seen);
    run_with(rules);
    ::unsetenv("GLIBC_TUNABLES");
    EXPECT_EQ(result_.exit_code, 2) << result_.err;
    std::ifstream in(seen);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(),
              std::string("own=") + e.own + "\nsaved=unset\ndispatcher=" + e.dispatcher +
                "\ncomm=agent-dispatch\n")
      << (e.given ? e.given : "unset");
  }
}

} // namespace
} // namespace ad::test
