#include "tests/contract/run/dispatch_run.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Merges the keys of `overlay` into `base` (one level).
void merge(json& base, const json& overlay) {
  if (!overlay.is_object()) return;
  for (auto it = overlay.begin(); it != overlay.end(); ++it) base[it.key()] = it.value();
}

json sim_target(const std::string& id) {
  return {{"id", id},
          {"adapter", "command"},
          {"model", id},
          {"execution_class", "cloud_model"},
          {"argv",
           {(test::binary_dir() / "agent-sim").string(), "--as", "command", "--task", "{task}",
            "--role", "{role}", "--workspace", "{workspace}", "--model", "{model}", "--prompt",
            "{prompt}"}}};
}

// The real CLI as a policy target, with cli-env.sh's environment.
json cli_target(cli c, const std::vector<std::string>& env_lines) {
  json env = json::object();
  for (const auto& line : env_lines) {
    auto eq = line.find('=');
    env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  json t = {{"id", real_target(c)}, {"adapter", name_of(c)}, {"env", env},
            {"reasoning_effort", "high"}};
  switch (c) {
  case cli::codex:
    t["model"] = "mock-model";
    t["execution_class"] = "cloud_model";
    break;
  case cli::claude:
    t["model"] = "claude-opus-4-8";
    t["execution_class"] = "cloud_model";
    break;
  case cli::pi:
    t["model"] = "laguna-s";
    t["provider"] = "iop";
    t["execution_class"] = "local_model";
    t["selfcheck_required"] = false;
    t["native_resume"] = false;
    break;
  }
  return t;
}

json policy_for(const dispatch_case& c, json real) {
  merge(real["env"], c.target_env);
  merge(real, c.target);
  std::string id = real_target(c.which);
  json candidates = c.simulator_candidate ? json{id, sim_worker} : json{id};
  json pol = {
      {"version", 1},
      {"timezone", "UTC"},
      {"targets", {real, sim_target(sim_worker), sim_target(sim_review)}},
      {"rules",
       {{{"id", "workers"},
         {"stage", "worker"},
         {"lanes", {"local", "cloud"}},
         {"grades", {1, 10}},
         {"candidates", candidates}}}},
      {"review_target", sim_review},
      {"promotion", c.simulator_candidate ? json{{id, sim_worker}} : json::object()},
      {"backoff", {{"initial_s", 0.01}, {"coefficient", 2}, {"max_s", 0.05}}},
      {"timeouts",
       {{"heartbeat_s", 30},
        {"silence_inspection_s", 180},
        {"stall_limit_s", 0},
        {"reset_wait_max_s", 1},
        {"quota_cooldown_s", 2}}},
      // Short enough for a test, and the CLIs' own retries kept short.
      {"no_progress", {{"cli_max_retries", 1}, {"network_wait_s", 3}, {"retrying_s", 60}}}};
  merge(pol["timeouts"], c.timeouts);
  merge(pol, c.policy);
  return pol;
}

// The simulator's default: a competent worker, and a review that stays
// quiet for about a second (100 s at time scale 0.01) before its PASS, so
// the worker's last locator is copied before the completed task's attempt
// folders go.
json default_scenario() {
  return {{"version", 1},
          {"defaults",
           {{"review",
             {{{"kind", "silence"}, {"seconds", 100}}, {{"kind", "review"}, {"verdict", "PASS"}}}}}}};
}

bool write_text(const fs::path& p, const std::string& text) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  std::ofstream out(p, std::ios::binary);
  out << text;
  return out.good();
}

// Copies every file under <state>/.../runs/ to <kept>/ as it changes.
class attempt_keeper {
public:
  attempt_keeper(fs::path state, fs::path kept) : state_(std::move(state)), kept_(std::move(kept)) {}
  ~attempt_keeper() { stop(); }

  void start() {
    thread_ = std::thread([this] {
      while (!done_) {
        sweep();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  void stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
    sweep();
  }

private:
  void sweep() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             state_, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code fe;
      if (!it->is_regular_file(fe)) continue;
      auto rel = it->path().lexically_relative(state_);
      fs::path tail;
      bool in_runs = false;
      for (const auto& part : rel) {
        if (in_runs) tail /= part;
        else if (part == "runs") in_runs = true;
      }
      if (tail.empty()) continue;
      auto size = fs::file_size(it->path(), fe);
      auto mtime = fs::last_write_time(it->path(), fe);
      if (fe) continue;
      auto& last = seen_[it->path()];
      if (last.first == size && last.second == mtime) continue;
      auto to = kept_ / tail;
      fs::create_directories(to.parent_path(), fe);
      fs::copy_file(it->path(), to, fs::copy_options::overwrite_existing, fe);
      if (!fe) last = {size, mtime};
    }
  }

  fs::path state_, kept_;
  std::map<fs::path, std::pair<uintmax_t, fs::file_time_type>> seen_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// SIGKILLs every process (and its group) whose environment holds `marker`;
// returns how many it found.
int kill_marked(const std::string& marker) {
  int found = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    auto name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto environ_text = read_all(entry.path() / "environ");
    size_t pos = 0;
    bool ours = false;
    while (!ours && pos < environ_text.size()) {
      auto end = environ_text.find('\0', pos);
      if (end == std::string::npos) end = environ_text.size();
      ours = environ_text.compare(pos, end - pos, marker) == 0;
      pos = end + 1;
    }
    if (!ours) continue;
    pid_t pid = std::stoi(name);
    pid_t group = ::getpgid(pid);
    if (group > 1 && group != ::getpgrp()) ::kill(-group, SIGKILL);
    ::kill(pid, SIGKILL);
    ++found;
  }
  return found;
}

std::vector<json> json_lines_of(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

} // namespace

std::string real_target(cli c) { return std::string(name_of(c)) + "-real"; }

int closed_port() {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

dispatch_run run_dispatch(const dispatch_case& c) {
  dispatch_run r;
  r.dir = std::make_shared<test::temp_dir>();
  const fs::path root = r.dir->path();
  r.ws = root / "ws";
  r.home = root / "home";
  r.state = root / "state";
  r.kept = root / "kept";
  for (const auto& p : {r.ws / "agent-task", r.home, r.state, r.kept, root / "dump"})
    fs::create_directories(p);
  test::write_plan_and_review(r.ws, task_name, c.lane, c.files);
  for (const auto& f : c.files) fs::create_directories((r.ws / f).parent_path());

  // The mock (or a port nothing listens on) and the CLI's private HOME.
  mock_provider mock;
  if (c.listening) {
    fs::path script = script_path(c.which, c.script);
    if (!c.script_doc.is_null()) {
      script = root / "script.json";
      write_text(script, c.script_doc.dump(2));
    }
    if (auto e = mock.start(c.which, script, root, {"--dump-dir", (root / "dump").string()});
        !e.empty()) {
      r.failure = e;
      return r;
    }
    r.port = mock.port();
  } else {
    r.port = closed_port();
  }
  auto cli_env = run_cli_env(c.which, r.port, r.home, c.env_options, root);
  if (!cli_env.failure.empty()) {
    r.failure = cli_env.failure;
    return r;
  }

  const fs::path policy = root / "policy.json";
  write_text(policy, policy_for(c, cli_target(c.which, cli_env.env)).dump(2));
  write_text(root / "scenario.json", (c.scenario.is_null() ? default_scenario() : c.scenario).dump(2));

  const std::string marker = "AD_CONTRACT_RUN=" + root.string();
  spawn_spec d;
  d.argv = {(test::binary_dir() / "agent-dispatch").string(), "run", "--workspace", r.ws.string(),
            "--policy", policy.string(), "--json"};
  d.env = {"PATH=" + cli_bin_dir().string() + ":" + getenv_or_empty("PATH"),
           "HOME=" + r.home.string(),
           "XDG_STATE_HOME=" + r.state.string(),
           "AGENT_SIM_SCENARIO=" + (root / "scenario.json").string(),
           "AGENT_SIM_REGISTRY=" + (root / "registry.jsonl").string(),
           "AGENT_SIM_TIME_SCALE=0.01",
           "NO_COLOR=1",
           marker};
  d.cwd = r.ws;
  d.stdout_file = root / "dispatch.out";
  d.stderr_file = root / "dispatch.err";
  {
    attempt_keeper keeper(r.state, r.kept);
    keeper.start();
    r.outcome = run_to_end(d, c.timeout);
    kill_marked(marker);
    keeper.stop();
  }
  mock.stop();
  if (!r.outcome.started) r.failure = "cannot start agent-dispatch: " + r.outcome.start_error;
  r.out = read_all(d.stdout_file);
  r.err = read_all(d.stderr_file);
  r.events = json_lines_of(r.out);
  r.requests = mock.requests();
  return r;
}

std::vector<json> dispatch_run::of(std::string_view event) const {
  std::vector<json> out;
  for (const auto& e : events)
    if (e.value("event", "") == event) out.push_back(e);
  return out;
}

std::vector<json> dispatch_run::worker_attempts() const {
  std::vector<json> out;
  for (const auto& e : of("attempt_finished"))
    if (e.value("role", "") == "worker") out.push_back(e);
  return out;
}

fs::path dispatch_run::kept_folder(const json& finished) const {
  fs::path locator = finished.value("locator", "");
  return kept / locator.parent_path().filename();
}

json dispatch_run::locator(const json& finished) const {
  auto j = json::parse(read_all(kept_folder(finished) / "locator.json"), nullptr, false);
  return j.is_object() ? j : json();
}

std::string dispatch_run::kept_file(const json& finished, const std::string& name) const {
  return read_all(kept_folder(finished) / name);
}

fs::path dispatch_run::archived() const {
  std::error_code ec;
  auto root = ws / "agent-task" / "archive";
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->path().filename() == "complete.log" && it->path().parent_path().filename() == "01_a")
      return it->path().parent_path();
  return {};
}

std::vector<json> dispatch_run::dumped_requests() const {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir->path() / "dump", ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<json> out;
  for (const auto& f : files) {
    auto j = json::parse(read_all(f), nullptr, false);
    out.push_back(j.is_discarded() ? json() : j);
  }
  return out;
}

std::string dispatch_run::describe() const {
  std::ostringstream s;
  s << "agent-dispatch exit " << outcome.exit_code << (outcome.timed_out ? " (killed at the timeout)" : "")
    << " after " << outcome.seconds << " s\nevents:\n";
  for (const auto& e : events) {
    if (e.value("event", "") == "tasks_scanned") continue;
    auto line = e.dump();
    s << "  " << (line.size() > 600 ? line.substr(0, 600) + "..." : line) << "\n";
  }
  auto tail = err.size() > 3000 ? err.substr(err.size() - 3000) : err;
  s << "stderr:\n" << tail << "\nmock requests: " << requests.size();
  return s.str();
}

} // namespace ad::contract
