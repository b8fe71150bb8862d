#include "runtime/distributed/node_protocol.hpp"
#include "runtime/distributed/node_setup.hpp"
#include "runtime/distributed/remote_results.hpp"
#include "runtime/distributed/tcp_probe.hpp"

#include <arpa/inet.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(node_endpoint, host_and_port_in_both_address_families) {
  auto v4 = parse_node_endpoint("127.0.0.1:7300", "--node");
  ASSERT_TRUE(v4.is_ok()) << v4.error().message();
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 7300);
  auto v6 = parse_node_endpoint("[::1]:80", "--node");
  ASSERT_TRUE(v6.is_ok()) << v6.error().message();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->text(), "[::1]:80");
  EXPECT_EQ(parse_node_endpoint("build-7.lan:9000", "--node")->host, "build-7.lan");
}

TEST(node_endpoint, a_bad_address_names_the_option_and_the_form) {
  for (const char* bad : {"7300", "host:", ":7300", "host:0", "host:65536", "host:7x", "::1:80",
                          "[::1]80"}) {
    auto e = parse_node_endpoint(bad, "--listen");
    ASSERT_FALSE(e.is_ok()) << bad;
    EXPECT_EQ(e.error().message().rfind("--listen: '" + std::string(bad) + "'", 0), 0u)
      << e.error().message();
    EXPECT_NE(e.error().message().find("HOST:PORT"), std::string::npos);
  }
}

TEST(node_listen, beyond_loopback_only_with_certificates) {
  EXPECT_TRUE(check_node_listen({"127.0.0.1", 1}, false).is_ok());
  EXPECT_TRUE(check_node_listen({"127.4.5.6", 1}, false).is_ok());
  EXPECT_TRUE(check_node_listen({"::1", 1}, false).is_ok());
  EXPECT_TRUE(check_node_listen({"localhost", 1}, false).is_ok());
  auto open = check_node_listen({"0.0.0.0", 1}, false);
  ASSERT_FALSE(open.is_ok());
  EXPECT_NE(open.message().find("--tls-cert"), std::string::npos) << open.message();
  EXPECT_TRUE(check_node_listen({"0.0.0.0", 1}, true).is_ok());
  EXPECT_FALSE(check_node_listen({"10.1.2.3", 1}, false).is_ok());
}

TEST(node_protocol, another_version_is_refused_naming_both) {
  EXPECT_TRUE(check_protocol(node_protocol_version, "n1").is_ok());
  auto st = check_protocol(node_protocol_version + 1, "n1");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("node n1 speaks wire protocol " +
                              std::to_string(node_protocol_version) + " and the coordinator " +
                              std::to_string(node_protocol_version + 1)),
            std::string::npos)
    << st.message();
}

// A workspace and a runs folder holding the coordinator's probe, as the
// coordinator tells a node of them.
shared_files shared_folders(const test::temp_dir& dir) {
  std::filesystem::create_directories(dir.path() / "ws");
  std::filesystem::create_directories(dir.path() / "state" / "runs");
  auto probe = dir.write("state/runs/.node-probe", "epoch 7");
  return {(dir.path() / "ws").string(), (dir.path() / "state" / "runs").string(), probe.string(),
          "epoch 7"};
}

TEST(shared_files, the_node_must_see_the_coordinators_own_folders) {
  test::temp_dir dir;
  auto files = shared_folders(dir);
  std::filesystem::path probe = files.probe_file;
  EXPECT_TRUE(judge_shared_files(files, "n1").is_ok());

  auto no_ws = files;
  no_ws.workspace = (dir.path() / "elsewhere").string();
  auto st = judge_shared_files(no_ws, "n1");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("node n1 has no workspace at " + no_ws.workspace), std::string::npos)
    << st.message();

  auto no_runs = files;
  no_runs.runs_dir = (dir.path() / "other" / "runs").string();
  st = judge_shared_files(no_runs, "n1");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("has no state folder at"), std::string::npos) << st.message();

  // The same paths but a copy, not the coordinator's folder.
  auto copy = files;
  copy.probe_token = "epoch 8";
  st = judge_shared_files(copy, "n1");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("differs"), std::string::npos) << st.message();
  std::filesystem::remove(probe);
  st = judge_shared_files(files, "n1");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("is missing"), std::string::npos) << st.message();
}

// What judge_shared_files says in a child process in which dir cannot be
// written: as root, whom permissions do not stop, dir is bind-mounted
// read-only in a mount namespace of the child's own (as systemd's
// ProtectSystem=strict does); as another user its mode is 0555.
std::string judged_with_read_only(const shared_files& files, const std::string& dir) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::geteuid() == 0) {
      if (::unshare(CLONE_NEWNS) != 0 ||
          ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          ::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
          ::mount(nullptr, dir.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) != 0)
        ::_exit(3);
    } else if (::chmod(dir.c_str(), 0555) != 0) {
      ::_exit(3);
    }
    auto st = judge_shared_files(files, "n1");
    std::string text = st.is_ok() ? "ok" : st.message();
    ::_exit(::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : 4);
  }
  ::close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  ::chmod(dir.c_str(), 0755);
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
    << "the child could not make " << dir << " read-only (status " << wstatus << ")";
  return text;
}

// A folder the node sees but cannot write (a read-only export, or systemd's
// ProtectSystem=strict without the folder in ReadWritePaths=) is refused at
// the hello, naming it, rather than failing the node's first attempt.
TEST(shared_files, a_folder_the_node_cannot_write_is_refused_naming_it) {
  test::temp_dir dir;
  auto files = shared_folders(dir);

  auto text = judged_with_read_only(files, files.workspace);
  EXPECT_NE(text.find("node n1 cannot write the workspace " + files.workspace), std::string::npos)
    << text;
  EXPECT_NE(text.find("ReadWritePaths="), std::string::npos) << text;
  text = judged_with_read_only(files, files.runs_dir);
  EXPECT_NE(text.find("node n1 cannot write the state folder " + files.runs_dir),
            std::string::npos)
    << text;
  EXPECT_TRUE(judge_shared_files(files, "n1").is_ok());
}

TEST(node_setup, an_adapter_list_is_checked) {
  auto ok = parse_adapter_list("codex,pi");
  ASSERT_TRUE(ok.is_ok());
  EXPECT_EQ(*ok, (std::vector<std::string>{"codex", "pi"}));
  EXPECT_NE(parse_adapter_list("codex,gpt").error().message().find("'gpt' is not an adapter"),
            std::string::npos);
  EXPECT_NE(parse_adapter_list("pi,pi").error().message().find("given twice"), std::string::npos);
  EXPECT_FALSE(parse_adapter_list(",").is_ok());
}

TEST(node_setup, adapters_on_path_are_the_clis_found_and_command) {
  test::temp_dir dir;
  auto pi = dir.write("pi", "#!/bin/sh\n");
  std::filesystem::permissions(pi, std::filesystem::perms::owner_all);
  EXPECT_EQ(adapters_on_path(dir.path().string()), (std::vector<std::string>{"pi", "command"}));
  EXPECT_EQ(adapters_on_path(""), (std::vector<std::string>{"command"}));
}

TEST(node_setup, both_sides_derive_the_same_heartbeat_from_the_lease) {
  EXPECT_EQ(middleman_timing_for(10'000).heartbeat_ms, 500);
  EXPECT_EQ(middleman_timing_for(10'000).connection_timeout_ms, 2000);
  EXPECT_EQ(middleman_timing_for(1000).heartbeat_ms, 100);
  EXPECT_EQ(middleman_timing_for(600'000).heartbeat_ms, 1000);
}

TEST(remote_results, a_lost_node_is_a_failure_of_its_own_class) {
  attempt_order o;
  o.task = "g/01_t";
  o.plan_number = 1;
  o.role = "worker";
  o.attempt = 2;
  auto r = node_lost_result(o, "n1 (127.0.0.1:7301)", "not heard from for 12000 ms", 99);
  EXPECT_EQ(r.identity, "g__01_t__p1__worker__a02");
  EXPECT_EQ(r.status, "failed");
  EXPECT_EQ(r.failure_class, "node-lost");
  EXPECT_EQ(r.evidence, "node n1 (127.0.0.1:7301) lost: not heard from for 12000 ms");
  EXPECT_EQ(r.finished_at, 99);
  auto c = cancelled_while_waiting(o, 5);
  EXPECT_EQ(c.failure_class, "cancelled");
  EXPECT_EQ(c.identity, r.identity);
}

TEST(tcp_probe, a_listening_port_answers_and_a_closed_one_is_refused_at_once) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  node_endpoint e{"127.0.0.1", ntohs(addr.sin_port)};
  EXPECT_TRUE(probe_tcp(e, 1000).is_ok());
  ::close(fd);
  auto closed = probe_tcp(e, 1000);
  ASSERT_FALSE(closed.is_ok());
  EXPECT_NE(closed.message().find("node 127.0.0.1:"), std::string::npos) << closed.message();
}

} // namespace
} // namespace ad::runtime
