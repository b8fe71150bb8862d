#include "tests/e2e/distributed/distributed_support.hpp"

#include <arpa/inet.h>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ad::test {

namespace fs = std::filesystem;

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

namespace {

pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream rest(text.substr(close + 2));
  char state = 0;
  pid_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

} // namespace

pid_t node_of_agent(pid_t agent) {
  pid_t keeper = parent_of(agent);
  return keeper > 0 ? parent_of(keeper) : 0;
}

void agent_watch::sample() {
  reap_orphans();
  auto now = std::chrono::steady_clock::now();
  auto live = scan_live_agents(registry);
  for (const auto& d : duplicate_live_agents(live))
    problems.push_back("two live agents of one task: " + d);
  if (max_parallel > 0 && static_cast<int>(live.size()) > max_parallel)
    problems.push_back(std::to_string(live.size()) + " live agents with --max-parallel " +
                       std::to_string(max_parallel));
  most_alive = std::max(most_alive, live.size());
  for (const auto& a : live) {
    auto [it, fresh] = seen.try_emplace(a.pid);
    if (fresh) {
      it->second.pid = a.pid;
      it->second.task = a.task_key;
      it->second.node = node_of_agent(a.pid);
      it->second.first = now;
    }
    it->second.last = now;
  }
  last_sample_ = now;
}

std::vector<agent_watch::seen_agent> agent_watch::alive() const {
  std::vector<seen_agent> out;
  for (const auto& [pid, a] : seen)
    if (a.last == last_sample_)
      out.push_back(a);
  return out;
}

std::set<pid_t> agent_watch::nodes_used() const {
  std::set<pid_t> out;
  for (const auto& [pid, a] : seen)
    if (a.node > 0)
      out.insert(a.node);
  return out;
}

int run_command(const std::vector<std::string>& argv, std::string* output) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0)
    return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipefd[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0)
    text.append(buf, static_cast<std::size_t>(n));
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (output)
    *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool make_test_certificates(const fs::path& dir, std::string& error) {
  auto p = [&](const char* name) { return (dir / name).string(); };
  auto ssl = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "openssl");
    std::string out;
    if (run_command(args, &out) != 0) {
      error = args[1] + " " + args[2] + ": " + out;
      return false;
    }
    return true;
  };
  auto ca = [&](const char* key, const char* cert, const char* cn) {
    return ssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p(key), "-out",
                p(cert), "-days", "2", "-subj", std::string("/CN=") + cn});
  };
  auto leaf = [&](const char* name, const char* ca_cert, const char* ca_key) {
    std::string key = std::string(name) + ".key", csr = std::string(name) + ".csr",
                pem = std::string(name) + ".pem";
    return ssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", p(key.c_str()), "-out",
                p(csr.c_str()), "-subj", std::string("/CN=") + name}) &&
           ssl({"x509", "-req", "-in", p(csr.c_str()), "-CA", p(ca_cert), "-CAkey", p(ca_key),
                "-CAcreateserial", "-out", p(pem.c_str()), "-days", "2"});
  };
  return ca("ca.key", "ca.pem", "agent-dispatch test CA") && leaf("node", "ca.pem", "ca.key") &&
         leaf("coord", "ca.pem", "ca.key") &&
         ca("other-ca.key", "other-ca.pem", "another CA") &&
         leaf("rogue", "other-ca.pem", "other-ca.key");
}

std::string veth_namespace::create(const std::string& name, int subnet) {
  name_ = name;
  outer_ = "vo" + std::to_string(subnet) + "x" + std::to_string(::getpid() % 10000);
  std::string inner = "vi" + std::to_string(subnet) + "x" + std::to_string(::getpid() % 10000);
  subnet_ = subnet;
  std::string out;
  if (run_command({"ip", "netns", "add", name_}, &out) != 0)
    return "ip netns add " + name_ + ": " + out;
  created_ = true;
  auto base = "10.213." + std::to_string(subnet) + ".";
  for (const auto& args : std::vector<std::vector<std::string>>{
         {"ip", "link", "add", outer_, "type", "veth", "peer", "name", inner},
         {"ip", "link", "set", inner, "netns", name_},
         {"ip", "addr", "add", base + "1/30", "dev", outer_},
         {"ip", "link", "set", outer_, "up"},
         {"ip", "netns", "exec", name_, "ip", "addr", "add", base + "2/30", "dev", inner},
         {"ip", "netns", "exec", name_, "ip", "link", "set", inner, "up"},
         {"ip", "netns", "exec", name_, "ip", "link", "set", "lo", "up"}}) {
    if (run_command(args, &out) != 0) {
      std::string line;
      for (const auto& a : args)
        line += a + " ";
      return line + ": " + out;
    }
  }
  return "";
}

veth_namespace::~veth_namespace() {
  if (!created_)
    return;
  run_command({"ip", "link", "del", outer_});
  run_command({"ip", "netns", "del", name_});
}

std::string veth_namespace::inner_ip() const {
  return "10.213." + std::to_string(subnet_) + ".2";
}

bool veth_namespace::set_link(bool up) {
  return run_command({"ip", "link", "set", outer_, up ? "up" : "down"}) == 0;
}

} // namespace ad::test
