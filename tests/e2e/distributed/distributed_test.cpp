// End-to-end distributed mode (docs/distributed.md): a coordinator and
// worker nodes as separate processes over one generated workspace, the
// agent simulator as the agents.
// - Three nodes on loopback: 30 tasks complete, spread over the nodes,
//   never two live agents of one task, never more than --max-parallel;
//   every attempt_started names its node; the run's trace replays
//   without the nodes; the dashboard's /api/v1/nodes shows each node's
//   slots and held lease, and node_status events carry them.
// - SIGKILL of a node mid-attempt, a partition of a node in a network
//   namespace (veth link down, then up), SIGKILL of the coordinator and a
//   restart: every task archived exactly once, no duplicate live agent at
//   any moment, the lost attempts recorded node-lost, the lost node's
//   agents stopped by their keepers within the lease, and the replacement
//   started no earlier than lease + margin after the node was last heard
//   from and soon after.
// - A partition shorter than the lease loses nothing: the node is followed
//   again and its agent lives on.
// - Mutual TLS: certificates from one CA work; a certificate from another
//   CA and a plaintext peer are refused; listening beyond loopback without
//   certificates is refused.
// - After each: every node still running exits 0 on SIGTERM.
#include <csignal>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <sstream>
#include <memory>
#include <thread>

#include "tests/e2e/distributed/distributed_support.hpp"
#include "tools/cli/http_library.hpp"
#include "runtime/core/files.hpp"
#include "tools/agent-sim/registry.hpp"

namespace ad::test {
namespace {

using namespace std::chrono_literals;
using runtime::json;
namespace wg = workspace_gen;
using clock_type = std::chrono::steady_clock;


// Per task: a worker and a PASS review that write an event line every
// interval for `seconds` simulator seconds (x0.01 real), then their effect.
// The worker then exits; the review (codex) ends with its final answer,
// which reports the turn's usage. With a release file, each worker first
// waits until the file exists.
json chatty_scenario(const wg::gen_plan& plan, int worker_seconds, int review_seconds,
                     const std::string& release = {}) {
  auto actions = [](int seconds, json effect) {
    return json::array({{{"kind", "events"}, {"count", std::max(1, seconds / 5)}, {"interval_seconds", 5}},
                        std::move(effect)});
  };
  json tasks = json::object();
  for (const auto& t : plan.tasks) {
    tasks[t.name]["worker"]["default"] = actions(worker_seconds, {{"kind", "work"}});
    tasks[t.name]["worker"]["default"].push_back({{"kind", "exit"}, {"code", 0}});
    if (!release.empty())
      tasks[t.name]["worker"]["default"].insert(tasks[t.name]["worker"]["default"].begin(),
                                                json{{"kind", "wait_file"}, {"path", release}});
    tasks[t.name]["review"]["default"] =
      actions(review_seconds, {{"kind", "review"}, {"verdict", "PASS"}});
  }
  return {{"version", 1}, {"tasks", tasks}};
}

class distributed : public ::testing::Test {
protected:
  void TearDown() override {
    // A node still running stops on SIGTERM and exits 0: under the
    // sanitizers a leak or an error at its shutdown fails the test.
    std::vector<child_run*> stopping;
    for (auto* node : nodes_)
      if (node->pid() > 0 && !node->wait(0ms)) {
        node->send(SIGTERM);
        stopping.push_back(node);
      }
    for (auto* node : stopping) {
      auto code = node->wait(30s);
      if (!code)
        ADD_FAILURE() << "a node did not stop within 30 s of SIGTERM\n" << node->tail();
      else
        EXPECT_EQ(*code, 0) << "node exit\n" << node->tail();
    }
    for (auto& r : runs_)
      if (r->pid() > 0 && !r->wait(0ms))
        r->send(SIGTERM);
    stop_runs_and_agents(runs_, f_);
  }

  void create(int tasks, int worker_seconds, int review_seconds, uint64_t seed = 7,
              const std::string& release = {}) {
    wg::gen_options o;
    o.tasks = tasks;
    o.shape = wg::dag_shape::random;
    o.seed = seed;
    o.group_size = 10;
    o.overlap = 0.2;
    auto planned = wg::plan_workspace(o);
    ASSERT_TRUE(planned.is_ok()) << planned.error().message();
    f_.time_scale = 0.01;
    f_.create(o, chatty_scenario(*planned, worker_seconds, review_seconds, release));
    watch_.registry = f_.registry;
  }

  // A node; waits until it says it listens.
  child_run& start_node(const std::string& name, const std::string& listen, int slots,
                        std::vector<std::string> extra = {},
                        std::vector<std::string> prefix = {}) {
    std::vector<std::string> args = {"node", "--listen", listen, "--name", name, "--slots",
                                     std::to_string(slots), "--lease-ms", std::to_string(lease_ms)};
    args.insert(args.end(), extra.begin(), extra.end());
    std::filesystem::path program;
    if (!prefix.empty()) {
      program = prefix.front();
      auto rest = std::vector<std::string>(prefix.begin() + 1, prefix.end());
      rest.push_back((binary_dir() / "agent-dispatch").string());
      args.insert(args.begin(), rest.begin(), rest.end());
    }
    runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(f_, args, name, program)));
    auto& node = *runs_.back();
    nodes_.push_back(&node);
    auto until = clock_type::now() + 30s;
    while (clock_type::now() < until && node.out().find("listening on") == std::string::npos &&
           !node.wait(20ms)) {
    }
    EXPECT_NE(node.out().find("listening on"), std::string::npos) << node.tail();
    return node;
  }

  child_run& start_coordinator(const std::vector<std::string>& nodes, int max_parallel,
                               const std::string& log, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "--workspace", f_.workspace.string(), "--max-parallel",
                                     std::to_string(max_parallel), "--json", "-v",
                                     "--lease-ms", std::to_string(lease_ms),
                                     "--lease-margin-ms", std::to_string(margin_ms)};
    for (const auto& n : nodes) {
      args.push_back("--node");
      args.push_back(n);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    watch_.max_parallel = max_parallel;
    runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(f_, args, log)));
    return *runs_.back();
  }

  // Samples until `run` exits or `limit` passes (calling `each` between
  // samples); the exit code if it did.
  std::optional<int> follow(child_run& run, std::chrono::milliseconds limit,
                            const std::function<void()>& each = {}) {
    auto until = clock_type::now() + limit;
    std::optional<int> code;
    while (!code && clock_type::now() < until) {
      watch_.sample();
      if (each)
        each();
      code = run.wait(5ms);
    }
    return code;
  }

  // Samples until an agent runs under `node`; that agent.
  std::optional<agent_watch::seen_agent> wait_for_agent_on(const child_run& node,
                                                           std::chrono::milliseconds limit) {
    auto until = clock_type::now() + limit;
    while (clock_type::now() < until) {
      watch_.sample();
      for (const auto& a : watch_.alive())
        if (a.node == node.pid())
          return a;
      std::this_thread::sleep_for(5ms);
    }
    return std::nullopt;
  }

  // After `lost` (agents of a node cut off at `fault`): when they died and
  // when each task got its replacement agent.
  void check_fault_recovery(const std::vector<agent_watch::seen_agent>& lost,
                            clock_type::time_point fault, const std::string& what) {
    for (const auto& old : lost) {
      const auto& seen = watch_.seen.at(old.pid);
      auto died_ms = std::chrono::duration_cast<std::chrono::milliseconds>(seen.last - fault).count();
      // The keeper checks its lease file every 500 ms; the agent stops on SIGTERM.
      EXPECT_LE(died_ms, lease_ms + 3000) << what << ": the agent of " << old.task
                                          << " outlived the node's lease";
      std::optional<clock_type::time_point> replaced;
      for (const auto& [pid, a] : watch_.seen)
        if (a.task == old.task && a.first > seen.last && (!replaced || a.first < *replaced))
          replaced = a.first;
      if (!replaced)
        continue;  // the task had moved on (a review) before the fault: nothing to replace
      auto after = std::chrono::duration_cast<std::chrono::milliseconds>(*replaced - fault).count();
      std::cout << "[ fault    ] " << what << ": " << old.task << " stopped " << died_ms
                << " ms and replaced " << after << " ms after the fault (lease " << lease_ms
                << " + margin " << margin_ms << ")" << std::endl;
      // Last heard at most one renewal (lease/4) before the fault.
      EXPECT_GE(after, lease_ms + margin_ms - lease_ms / 4 - 100)
        << what << ": " << old.task << " was replaced before lease + margin";
      EXPECT_LE(after, lease_ms + margin_ms + 6000) << what << ": " << old.task;
    }
  }

  void check_outcome(child_run& coordinator, std::optional<int> code) {
    ASSERT_TRUE(code.has_value()) << "the run did not finish\n" << coordinator.tail();
    EXPECT_EQ(*code, 0) << coordinator.tail();
    for (const auto& p : watch_.problems)
      ADD_FAILURE() << p;
    auto archived = f_.archived_tasks();
    for (const auto& t : f_.plan.tasks) {
      auto it = archived.find(t.name);
      EXPECT_TRUE(it != archived.end() && it->second == 1)
        << t.name << " archived " << (it == archived.end() ? 0 : it->second) << " times";
    }
    auto runs = agent_sim::read_registry(f_.registry);
    ASSERT_TRUE(runs.is_ok()) << runs.error().message();
    for (const auto& v : agent_sim::check_registry(*runs, watch_.max_parallel))
      if (v.kind == agent_sim::violation_kind::task_overlap ||
          v.kind == agent_sim::violation_kind::too_many_alive)
        ADD_FAILURE() << v.message;
  }

  // Heartbeats every 150 ms, a connection given up after 600 ms: loose
  // enough for a sanitized build under a loaded ctest -j2.
  int64_t lease_ms = 3000;
  int64_t margin_ms = 7000;  // covers the keeper's 5 s stop grace
  fleet f_;
  agent_watch watch_;
  std::vector<std::unique_ptr<child_run>> runs_;
  std::vector<child_run*> nodes_; // in runs_
};

// The ip program, by path: processes start without a PATH search.
std::string ip_program() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (std::filesystem::exists(p))
      return p;
  return "ip";
}

std::string loopback(int port) { return "127.0.0.1:" + std::to_string(port); }

// The run's --json events of one kind.
std::vector<json> events_of(const std::string& out, const std::string& kind) {
  std::vector<json> found;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.value("event", "") == kind)
      found.push_back(std::move(j));
  }
  return found;
}

// The JSON a GET of `path` on the run's dashboard answers (its address is
// on the run's stderr); null before the dashboard listens or on an error.
json api_get(const child_run& run, const std::string& path) {
  auto err = run.err();
  auto at = err.find("run: dashboard at http://");
  if (at == std::string::npos)
    return nullptr;
  auto rest = err.substr(at + 25);
  auto colon = rest.find(':');
  auto slash = rest.find('/');
  if (colon == std::string::npos || slash == std::string::npos || slash < colon)
    return nullptr;
  httplib::Client http(rest.substr(0, colon), std::stoi(rest.substr(colon + 1, slash - colon - 1)));
  http.set_connection_timeout(1);
  http.set_read_timeout(2);
  auto r = http.Get(path);
  if (!r || r->status != 200)
    return nullptr;
  return json::parse(r->body, nullptr, false);
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST_F(distributed, three_nodes_on_loopback_run_thirty_tasks_spread_over_them) {
  create(30, 30, 10);
  if (HasFatalFailure())
    return;
  std::vector<std::string> nodes;
  for (int i = 1; i <= 3; ++i) {
    auto at = loopback(free_port());
    start_node("n" + std::to_string(i), at, 3);
    nodes.push_back(at);
  }
  auto trace = f_.dir.path() / "trace.jsonl";
  auto& run = start_coordinator(nodes, 6, "coordinator",
                                {"--trace", trace.string(), "--web", "127.0.0.1:0"});
  // The dashboard's node objects, read every 200 ms until each node shows
  // its slots and a held lease.
  std::map<std::string, json> shown;
  auto next_look = clock_type::now();
  auto look = [&] {
    if (shown.size() == 3 || clock_type::now() < next_look)
      return;
    next_look = clock_type::now() + 200ms;
    auto nodes_json = api_get(run, "/api/v1/nodes");
    if (!nodes_json.is_object() || !nodes_json["nodes"].is_array())
      return;
    for (const auto& n : nodes_json["nodes"])
      if (n.is_object() && n.value("lease", json()) == "held" && n.value("slots", 0) == 3)
        shown[n.value("node", "")] = n;
  };
  auto code = follow(run, 300s, look);
  check_outcome(run, code);
  EXPECT_EQ(shown.size(), 3u) << "not every node showed its slots and a held lease";
  for (const auto& [name, n] : shown) {
    std::cout << "[ node     ] " << n.dump() << std::endl;
    EXPECT_GE(n.value("slots_in_use", -1), 0) << name;
    EXPECT_LE(n.value("slots_in_use", 99), 3) << name;
    EXPECT_TRUE(n["lease_until"].is_string()) << name << ": " << n.dump();
  }
  auto statuses = events_of(run.out(), "node_status");
  std::set<std::string> named;
  bool some_busy = false;
  for (const auto& e : statuses) {
    named.insert(e.value("node", ""));
    some_busy = some_busy || e.value("slots_in_use", 0) > 0;
  }
  EXPECT_EQ(named, (std::set<std::string>{"n1", "n2", "n3"}));
  EXPECT_TRUE(some_busy) << "no node_status showed a slot in use";
  // The trace replays without the nodes.
  runs_.push_back(std::make_unique<child_run>(
    child_run::start_dispatcher(f_, {"replay", trace.string()}, "replay")));
  auto replayed = runs_.back()->wait(120s);
  ASSERT_TRUE(replayed.has_value());
  EXPECT_EQ(*replayed, 0) << runs_.back()->tail();
  EXPECT_NE(runs_.back()->out().find("replay: identical"), std::string::npos) << runs_.back()->tail();
  EXPECT_EQ(watch_.nodes_used().size(), 3u) << "the attempts did not spread over the nodes";
  // Every attempt names its node, and each node ran some.
  std::map<std::string, int> per_node;
  auto started = events_of(run.out(), "attempt_started");
  EXPECT_GE(started.size(), 60u);
  for (const auto& e : started)
    ++per_node[e.value("node", "")];
  EXPECT_EQ(per_node.count(""), 0u) << "an attempt without its node";
  for (const char* n : {"n1", "n2", "n3"})
    EXPECT_GT(per_node[n], 0) << n << " ran nothing";
  EXPECT_GE(watch_.most_alive, 3u);
  EXPECT_EQ(count_of(run.out(), "\"failure_class\":\"node-lost\""), 0) << run.tail();
  // What the attempts spent on the nodes reaches the coordinator's state
  // once each: its totals are the sums of the attempts' usage.
  auto reported = usage_reported({run.out()});
  EXPECT_GT(reported.attempts, 0) << "no attempt on a node reported its usage";
  expect_same_usage(usage_summarized(run.out()).total, reported.total, "the run's total");
}

TEST_F(distributed, a_sigkilled_node_is_lost_and_its_attempts_replaced_after_lease_and_margin) {
  // Workers run ~3 s, so the kill finds agents on the node.
  create(8, 300, 10);
  if (HasFatalFailure())
    return;
  auto a = loopback(free_port()), b = loopback(free_port());
  auto& victim = start_node("victim", a, 2);
  // The survivor alone has room for every attempt, so the replacement's
  // time is the lease's, not a wait for a slot.
  start_node("survivor", b, 4);
  auto& run = start_coordinator({a, b}, 4, "coordinator");
  auto first = wait_for_agent_on(victim, 60s);
  ASSERT_TRUE(first.has_value()) << "no agent ran on the victim\n" << run.tail();
  std::vector<agent_watch::seen_agent> lost;
  for (const auto& x : watch_.alive())
    if (x.node == victim.pid())
      lost.push_back(x);
  auto fault = clock_type::now();
  victim.send(SIGKILL);
  ASSERT_TRUE(victim.wait(10s).has_value());
  auto code = follow(run, 300s);
  check_outcome(run, code);
  check_fault_recovery(lost, fault, "SIGKILL of a node");
  EXPECT_GE(count_of(run.out(), "\"failure_class\":\"node-lost\""), static_cast<int>(lost.size()))
    << run.tail();
  // The coordinator told that the victim's lease was lost, and why.
  bool told = false;
  for (const auto& e : events_of(run.out(), "node_status"))
    told = told || (e.value("node", "") == "victim" && e.value("lease", "") == "lost" &&
                    !e.value("reason", "").empty());
  EXPECT_TRUE(told) << "no node_status lost for the killed node\n" << run.tail();
}

// The restart is raced against nothing: the workers wait for a release file
// until the new coordinator has adopted every agent alive at the kill, and
// the lease (10 s) leaves a slow coordinator time to greet the nodes before
// they stop the orphans. (With 3 s workers and a 3 s lease, a sanitized
// coordinator on a busy machine came back after the survivor had ended.)
TEST_F(distributed, a_restarted_coordinator_adopts_what_the_nodes_run_and_finishes_the_run) {
  const auto release = f_.dir.path() / "release";
  create(8, 300, 10, 7, release.string());
  if (HasFatalFailure())
    return;
  lease_ms = 10000;
  margin_ms = 10000;
  auto a = loopback(free_port()), b = loopback(free_port());
  auto& na = start_node("a", a, 2);
  start_node("b", b, 2);
  auto& first = start_coordinator({a, b}, 4, "coordinator1");
  ASSERT_TRUE(wait_for_agent_on(na, 60s).has_value()) << first.tail();
  watch_.sample();
  auto survivors = watch_.alive();
  first.send(SIGKILL);
  ASSERT_TRUE(first.wait(10s).has_value());
  // Between the two, `status` names the node of each running attempt.
  runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(
    f_, {"status", "--workspace", f_.workspace.string()}, "status")));
  ASSERT_TRUE(runs_.back()->wait(60s).has_value());
  EXPECT_TRUE(runs_.back()->out().find("node=a") != std::string::npos ||
              runs_.back()->out().find("node=b") != std::string::npos)
    << runs_.back()->out();
  // The restarted coordinator finds its nodes in the policy.
  auto policy = workspace_gen::fast_policy(1.0);
  policy["nodes"] = {a, b};
  ASSERT_TRUE(runtime::write_file_atomic(f_.workspace / "agent-dispatch.json",
                                         runtime::dump_json(policy, 2),
                                         runtime::durability::buffered)
                .is_ok());
  auto& second = start_coordinator({}, 4, "coordinator2");
  auto adopted_events = [&] {
    int n = 0;
    for (const auto& e : events_of(second.out(), "attempt_started"))
      n += e.value("adopted", "").find("adopted through node") != std::string::npos;
    return n;
  };
  // Wait for the adoptions, sampling the agents meanwhile.
  auto until = clock_type::now() + 120s;
  while (adopted_events() < static_cast<int>(survivors.size()) && clock_type::now() < until &&
         !second.wait(0ms)) {
    watch_.sample();
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_GE(adopted_events(), static_cast<int>(survivors.size())) << "not every survivor was adopted\n"
                                                                   << second.tail();
  const auto adopted_at = clock_type::now();
  ASSERT_TRUE(runtime::write_file_atomic(release, "go").is_ok());
  auto code = follow(second, 300s);
  check_outcome(second, code);
  auto started = events_of(second.out(), "attempt_started");
  EXPECT_FALSE(started.empty());
  for (const auto& e : started)
    EXPECT_TRUE(e.value("node", "") == "a" || e.value("node", "") == "b") << e.dump();
  EXPECT_GT(adopted_events(), 0) << second.tail();
  // Every agent alive at the kill lived on past its adoption, to its end;
  // none was started again.
  for (const auto& s : survivors) {
    int agents = 0;
    for (const auto& [pid, a] : watch_.seen)
      agents += a.task == s.task && a.first <= watch_.seen.at(s.pid).last;
    EXPECT_EQ(agents, 1) << s.task;
    EXPECT_GE(watch_.seen.at(s.pid).last, adopted_at)
      << s.task << ": its agent did not live through the restart";
  }
  EXPECT_EQ(count_of(second.out(), "\"failure_class\":\"node-lost\""), 0) << second.tail();
}

class distributed_tls : public distributed {
protected:
  void SetUp() override {
    std::string error;
    certs_ = f_.dir.path() / "certs";
    std::filesystem::create_directories(certs_);
    ASSERT_TRUE(make_test_certificates(certs_, error)) << error;
  }
  std::vector<std::string> tls(const std::string& who, const std::string& ca = "ca.pem") const {
    return {"--tls-cert", (certs_ / (who + ".pem")).string(), "--tls-key",
            (certs_ / (who + ".key")).string(), "--tls-ca", (certs_ / ca).string()};
  }
  std::filesystem::path certs_;
};

TEST_F(distributed_tls, certificates_from_one_ca_work_and_others_are_refused) {
  create(4, 10, 10);
  if (HasFatalFailure())
    return;
  auto a = loopback(free_port());
  auto& node = start_node("tls", a, 2, tls("node"));
  EXPECT_NE(node.out().find("mutual TLS"), std::string::npos) << node.out();

  // A coordinator whose certificate another CA signed gets nowhere: once it
  // has said that the node refused it (not after a fixed time, which a busy
  // machine outran), no agent runs and it still waits for a node.
  auto refused = [&](child_run& run) {
    auto until = clock_type::now() + 60s;
    while (run.err().find("node " + a) == std::string::npos && clock_type::now() < until &&
           !run.wait(10ms)) {
    }
    return run.err().find("node " + a) != std::string::npos;
  };
  auto& rogue = start_coordinator({a}, 2, "rogue", tls("rogue", "other-ca.pem"));
  EXPECT_TRUE(refused(rogue)) << rogue.tail();
  EXPECT_TRUE(scan_live_agents(f_.registry).empty());
  EXPECT_FALSE(rogue.wait(0ms).has_value()) << rogue.tail();
  rogue.send(SIGINT);
  ASSERT_TRUE(rogue.wait(30s).has_value());

  // So does a plaintext one.
  auto& plain = start_coordinator({a}, 2, "plain");
  EXPECT_TRUE(refused(plain)) << plain.tail();
  EXPECT_TRUE(scan_live_agents(f_.registry).empty());
  plain.send(SIGINT);
  ASSERT_TRUE(plain.wait(30s).has_value());
  EXPECT_EQ(f_.archived_tasks().size(), 0u);

  auto& run = start_coordinator({a}, 2, "coordinator", tls("coord"));
  auto code = follow(run, 120s);
  check_outcome(run, code);
}

TEST_F(distributed_tls, listening_beyond_loopback_needs_certificates) {
  create(1, 10, 10);
  if (HasFatalFailure())
    return;
  runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(
    f_, {"node", "--listen", "0.0.0.0:" + std::to_string(free_port())}, "open")));
  auto code = runs_.back()->wait(20s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_NE(runs_.back()->err().find("needs mutual TLS"), std::string::npos) << runs_.back()->err();
  runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(
    f_, {"node", "--listen", "127.0.0.1:7", "--tls-cert", (certs_ / "node.pem").string()},
    "half")));
  code = runs_.back()->wait(20s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_NE(runs_.back()->err().find("--tls-key is missing"), std::string::npos)
    << runs_.back()->err();
}

TEST_F(distributed_tls, a_partitioned_node_is_fenced_replaced_and_taken_back_after_healing) {
  veth_namespace ns;
  auto why = ns.create("adtest" + std::to_string(::getpid() % 100000), 10 + ::getpid() % 200);
  if (!why.empty())
    FAIL() << "the kernel refused a network namespace with a veth pair: " << why
           << "\n(the partition tests need root and a kernel that allows `ip netns` and veth)";
  // Enough work for the near node alone to outlast the heal (fault + lease
  // + margin + 3 s) by more than the healed node needs to be greeted again:
  // 32 workers of 3 s on its 4 slots take at least 24 s. With 16 (12 s) a
  // run whose keepers cost less ended before the greeting.
  create(32, 300, 10);
  if (HasFatalFailure())
    return;
  auto far = ns.inner_ip() + ":" + std::to_string(free_port());
  auto near = loopback(free_port());
  auto& remote = start_node("far", far, 2, tls("node"), {ip_program(), "netns", "exec", ns.name()});
  start_node("near", near, 4, tls("node"));
  auto& run = start_coordinator({far, near}, 4, "coordinator", tls("coord"));
  ASSERT_TRUE(wait_for_agent_on(remote, 60s).has_value()) << run.tail();
  std::vector<agent_watch::seen_agent> lost;
  for (const auto& x : watch_.alive())
    if (x.node == remote.pid())
      lost.push_back(x);
  auto fault = clock_type::now();
  ASSERT_TRUE(ns.set_link(false));
  // Heal once the replacement has had its time.
  auto healed = follow(run, std::chrono::milliseconds(lease_ms + margin_ms + 3000));
  ASSERT_TRUE(ns.set_link(true));
  // Work is left for long after the heal: the node is greeted again.
  std::optional<int> code = healed;
  if (!code) {
    auto until = clock_type::now() + 30s;
    auto ready_again = [&] { return count_of(run.err(), "node far (" + far + "): ready") >= 2; };
    while (!code && clock_type::now() < until && !ready_again())
      code = follow(run, 100ms);
    EXPECT_TRUE(ready_again()) << "the healed node was not greeted again\n" << run.tail();
  }
  if (!code)
    code = follow(run, 300s);
  check_outcome(run, code);
  check_fault_recovery(lost, fault, "partition of a node");
  EXPECT_GE(count_of(run.out(), "\"failure_class\":\"node-lost\""), static_cast<int>(lost.size()))
    << run.tail();
  EXPECT_FALSE(remote.wait(0ms).has_value()) << "the partitioned node died\n" << remote.tail();
}

TEST_F(distributed_tls, a_partition_shorter_than_the_lease_loses_nothing) {
  veth_namespace ns;
  auto why = ns.create("adblip" + std::to_string(::getpid() % 100000), 10 + (::getpid() + 1) % 200);
  if (!why.empty())
    FAIL() << "the kernel refused a network namespace with a veth pair: " << why
           << "\n(the partition tests need root and a kernel that allows `ip netns` and veth)";
  // A lease long enough to reconnect within it: heartbeats every 300 ms,
  // the connection given up after 1.2 s.
  lease_ms = 6000;
  margin_ms = 8000;
  create(6, 500, 10);
  if (HasFatalFailure())
    return;
  auto far = ns.inner_ip() + ":" + std::to_string(free_port());
  auto near = loopback(free_port());
  auto& remote = start_node("far", far, 2, tls("node"), {ip_program(), "netns", "exec", ns.name()});
  start_node("near", near, 2, tls("node"));
  auto& run = start_coordinator({far, near}, 4, "coordinator", tls("coord"));
  auto held = wait_for_agent_on(remote, 60s);
  ASSERT_TRUE(held.has_value()) << run.tail();
  ASSERT_TRUE(ns.set_link(false));
  // Long enough for the connection to be given up, short of the lease.
  auto cut = follow(run, 2500ms);
  ASSERT_TRUE(ns.set_link(true));
  ASSERT_FALSE(cut.has_value()) << run.tail();
  auto code = follow(run, 300s);
  check_outcome(run, code);
  EXPECT_NE(run.err().find("not reachable"), std::string::npos)
    << "the cut was not noticed, so it proves nothing\n" << run.tail();
  EXPECT_NE(run.err().find("follows " + held->task), std::string::npos) << run.tail();
  EXPECT_EQ(count_of(run.out(), "\"failure_class\":\"node-lost\""), 0) << run.tail();
  // The agent that ran across the cut was the only one of its attempt.
  int agents_of_task = 0;
  for (const auto& [pid, a] : watch_.seen)
    agents_of_task += a.task == held->task && a.first <= watch_.seen.at(held->pid).last;
  EXPECT_EQ(agents_of_task, 1);
  EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(watch_.seen.at(held->pid).last -
                                                                  watch_.seen.at(held->pid).first)
              .count(),
            2500)
    << "the agent did not live through the cut";
}

} // namespace
} // namespace ad::test
