#pragma once
// Test-only harness for distributed mode: worker nodes and coordinators as
// child processes over a generated fleet workspace (tests/e2e/fleet), a
// sampler that watches every live agent of the fleet for duplicates and
// the parallel cap and attributes each to the node process above it
// (agent -> keeper -> node), test certificates made with openssl, and a
// network namespace joined by a veth pair whose link a test can cut.
// Assertions go through GoogleTest; nothing here throws.

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/fleet/fleet_support.hpp"

namespace ad::test {

// A loopback TCP port nobody listens on right now.
int free_port();

// The node process above a live agent (its keeper's parent), or 0.
pid_t node_of_agent(pid_t agent);

// Watches the fleet's live agents: every sample records duplicates, the
// largest count seen, and per task the agents seen with when each was
// first and last seen alive.
struct agent_watch {
  struct seen_agent {
    pid_t pid = 0;
    std::string task;
    pid_t node = 0;
    std::chrono::steady_clock::time_point first, last;
  };
  std::filesystem::path registry;
  int max_parallel = 0;
  std::vector<std::string> problems;
  std::map<pid_t, seen_agent> seen;
  std::size_t most_alive = 0;

  void sample();
  // Agents alive at the last sample.
  std::vector<seen_agent> alive() const;
  std::set<pid_t> nodes_used() const;

private:
  std::chrono::steady_clock::time_point last_sample_;
};

// CA, certificates and keys made by openssl in dir: ca.pem, node.pem/
// node.key and coord.pem/coord.key signed by that CA, and other-ca.pem
// with rogue.pem/rogue.key signed by another CA. False with the reason in
// `error` when openssl fails.
bool make_test_certificates(const std::filesystem::path& dir, std::string& error);

// A network namespace with a veth pair to this one: here `outer_ip`, in
// the namespace `inner_ip` (a /30). Removed by the destructor.
class veth_namespace {
public:
  // Empty error: created. Else the reason the kernel or ip refused.
  std::string create(const std::string& name, int subnet);
  ~veth_namespace();
  const std::string& name() const { return name_; }
  std::string inner_ip() const;
  bool set_link(bool up);

private:
  std::string name_, outer_;
  int subnet_ = 0;
  bool created_ = false;
};

// Runs argv (no shell), returning its exit code; output into `output`.
int run_command(const std::vector<std::string>& argv, std::string* output = nullptr);

} // namespace ad::test
