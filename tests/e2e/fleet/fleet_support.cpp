#include "tests/e2e/fleet/fleet_support.hpp"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/core/files.hpp"

extern char** environ;

namespace ad::test {

namespace fs = std::filesystem;

namespace {

// Exit statuses of every child reaped so far, by pid.
std::map<pid_t, int>& reaped() {
  static std::map<pid_t, int> statuses;
  return statuses;
}

int code_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

runtime::token_usage usage_in(const runtime::json& j) {
  auto u = runtime::usage_from_json(j);
  EXPECT_TRUE(u.is_ok()) << j.dump();
  return u.is_ok() ? *u : runtime::token_usage{};
}

template <class F>
void each_event(const std::string& output, F&& f) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    auto j = runtime::json::parse(line, nullptr, false);
    if (j.is_object())
      f(j);
  }
}

} // namespace

reported_usage usage_reported(const std::vector<std::string>& outputs) {
  reported_usage out;
  for (const auto& output : outputs)
    each_event(output, [&](const runtime::json& e) {
      if (e.value("event", "") != "attempt_finished" || !e.contains("usage"))
        return;
      auto u = usage_in(e["usage"]);
      out.total += u;
      out.by_target[e.value("target", "")] += u;
      ++out.attempts;
    });
  return out;
}

summary_usage usage_summarized(const std::string& output) {
  summary_usage out;
  each_event(output, [&](const runtime::json& e) {
    if (e.value("event", "") != "summary")
      return;
    out = {};
    if (e.contains("usage"))
      out.total = usage_in(e["usage"]);
    if (e.contains("usage_by_target"))
      for (const auto& [target, u] : e["usage_by_target"].items())
        out.by_target[target] = usage_in(u);
  });
  return out;
}

void expect_same_usage(const runtime::token_usage& a, const runtime::token_usage& b,
                       const std::string& what) {
  auto counts = [](runtime::token_usage u) {
    u.cost_usd.reset();
    return runtime::usage_to_json(u);
  };
  EXPECT_EQ(counts(a), counts(b)) << what;
  EXPECT_EQ(a.cost_usd.has_value(), b.cost_usd.has_value()) << what;
  if (a.cost_usd && b.cost_usd) {
    EXPECT_NEAR(*a.cost_usd, *b.cost_usd, 1e-9) << what;
  }
}

void fleet::create(const workspace_gen::gen_options& options, const runtime::json& scenario_doc) {
  adopt_orphans();
  reap_orphans();
  reaped().clear();
  workspace = dir.path() / "ws";
  scenario = dir.path() / "scenario.json";
  registry = dir.path() / "registry.jsonl";
  state_home = dir.path() / "state";
  auto planned = workspace_gen::plan_workspace(options);
  ASSERT_TRUE(planned.is_ok()) << planned.error().message();
  plan = *planned;
  ASSERT_TRUE(workspace_gen::write_workspace(plan, workspace).is_ok());
  ASSERT_TRUE(runtime::write_file_atomic(workspace / "agent-dispatch.json",
                                         runtime::dump_json(workspace_gen::fast_policy(1.0), 2),
                                         runtime::durability::buffered)
                  .is_ok());
  ASSERT_TRUE(runtime::write_file_atomic(scenario, runtime::dump_json(scenario_doc, 2),
                                         runtime::durability::buffered)
                  .is_ok());
  ASSERT_TRUE(runtime::make_directories(state_home).is_ok());
}

std::vector<std::string> fleet::environment() const {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos)
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  auto sim_bin = (binary_dir() / "sim-bin").string();
  env["PATH"] = sim_bin + (env.count("PATH") ? ":" + env["PATH"] : std::string(":/usr/bin:/bin"));
  env["XDG_STATE_HOME"] = state_home.string();
  env["AGENT_SIM_SCENARIO"] = scenario.string();
  env["AGENT_SIM_REGISTRY"] = registry.string();
  env["AGENT_SIM_TIME_SCALE"] = std::to_string(time_scale);
  env["NO_COLOR"] = "1";
  env.erase("AGENT_DISPATCH_EXECUTION_ID");
  env.erase("AGENT_SIM_COUNTER");
  std::vector<std::string> out;
  for (const auto& [k, v] : env)
    out.push_back(k + "=" + v);
  return out;
}

std::map<std::string, int> fleet::archived_tasks() const {
  // archive/<YYYY>/<MM>/<group>/<subtask>[_k]/complete.log
  std::map<std::string, int> out;
  std::error_code ec;
  auto root = workspace / "agent-task" / "archive";
  if (!fs::exists(root, ec))
    return out;
  static const std::regex suffix{R"(_\d+$)"};
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec)
      break;
    if (it->path().filename() != "complete.log")
      continue;
    auto task_dir = it->path().parent_path();
    std::string subtask = task_dir.filename().string();
    std::string group = task_dir.parent_path().filename().string();
    // Strip an archive collision suffix only when the plain name is a task we wrote.
    std::string name = group + "/" + subtask;
    bool known = false;
    for (const auto& t : plan.tasks)
      known = known || t.name == name;
    if (!known)
      name = group + "/" + std::regex_replace(subtask, suffix, "");
    ++out[name];
  }
  return out;
}

child_run child_run::start_dispatcher(const fleet& f, const std::vector<std::string>& args,
                                      const std::string& log_name,
                                      const std::filesystem::path& binary) {
  child_run run;
  run.out_ = f.dir.path() / (log_name + ".out");
  run.err_ = f.dir.path() / (log_name + ".err");
  std::string program = (binary.empty() ? binary_dir() / "agent-dispatch" : binary).string();
  auto env = f.environment();
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int out_fd = ::open(run.out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err_fd = ::open(run.err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    if (::chdir(f.workspace.c_str()) != 0)
      ::_exit(126);
    ::execve(program.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out_fd);
  ::close(err_fd);
  ::close(null_fd);
  reaped().erase(pid);  // a stale status of an earlier process with this pid
  run.pid_ = pid;
  return run;
}

std::optional<int> child_run::wait(std::chrono::milliseconds timeout) {
  if (exit_)
    return exit_;
  auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    reap_orphans();
    if (auto it = reaped().find(pid_); it != reaped().end()) {
      exit_ = code_of(it->second);
      reaped().erase(it);
      return exit_;
    }
    if (std::chrono::steady_clock::now() >= until)
      return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void child_run::send(int sig) const {
  if (pid_ > 0 && !exit_)
    ::kill(pid_, sig);
}

std::string child_run::out() const { return read_text(out_); }
std::string child_run::err() const { return read_text(err_); }

std::string child_run::tail() const {
  auto last = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
      lines.push_back(l);
    std::string out;
    for (size_t i = lines.size() > 25 ? lines.size() - 25 : 0; i < lines.size(); ++i)
      out += "  " + lines[i] + "\n";
    return out;
  };
  return "stdout tail:\n" + last(out()) + "stderr tail:\n" + last(err());
}

std::vector<marked_process> scan_marked_processes(const fs::path& registry) {
  const std::string want_registry = "AGENT_SIM_REGISTRY=" + registry.string();
  std::vector<marked_process> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    auto name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    auto environ_text = read_text(entry.path() / "environ");
    if (environ_text.empty())
      continue;
    std::string marker;
    bool ours = false;
    size_t pos = 0;
    while (pos < environ_text.size()) {
      auto end = environ_text.find('\0', pos);
      if (end == std::string::npos)
        end = environ_text.size();
      std::string_view kv(environ_text.data() + pos, end - pos);
      if (kv.starts_with("AGENT_DISPATCH_EXECUTION_ID="))
        marker = std::string(kv.substr(28));
      else if (kv == want_registry)
        ours = true;
      pos = end + 1;
    }
    if (!ours || marker.empty())
      continue;
    auto cmdline = read_text(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    while (!cmdline.empty() && cmdline.back() == ' ')
      cmdline.pop_back();
    // stat is "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    pid_t parent = 0;
    auto stat = read_text(entry.path() / "stat");
    if (auto close = stat.rfind(')'); close != std::string::npos) {
      std::istringstream fields(stat.substr(close + 1));
      std::string state;
      fields >> state >> parent;
    }
    out.push_back({std::stoi(name), parent, std::move(marker), std::move(cmdline)});
  }
  return out;
}

std::vector<marked_process> agents_of(std::vector<marked_process> processes) {
  // Each launch gets its own marker (attempt identity plus a random suffix),
  // so processes sharing a marker are one agent with what it started: its
  // children, and the LeakSanitizer tracer a sanitized agent clones at its
  // exit. The agent is the one whose parent is outside the group; pids wrap,
  // so the lowest pid may be a child. When the agent is gone and only its
  // children are left, the lowest of them stands for it.
  std::map<std::string, std::vector<const marked_process*>> groups;
  for (const auto& p : processes)
    groups[p.marker].push_back(&p);
  std::vector<marked_process> out;
  for (const auto& [marker, group] : groups) {
    std::set<pid_t> pids;
    for (const auto* p : group)
      pids.insert(p->pid);
    const marked_process* agent = nullptr;
    for (const auto* p : group)
      if (!pids.count(p->ppid) && (!agent || p->pid < agent->pid))
        agent = p;
    if (!agent) // a cycle cannot happen; read races can leave no root
      agent = *std::min_element(group.begin(), group.end(),
                                [](const auto* a, const auto* b) { return a->pid < b->pid; });
    out.push_back(*agent);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
  return out;
}

std::vector<live_agent> scan_live_agents(const fs::path& registry) {
  static const std::regex marker_task{R"(^w[0-9a-f]+__(.+)__p\d+__[a-z]+__a\d+__)"};
  std::vector<live_agent> out;
  for (auto& p : agents_of(scan_marked_processes(registry))) {
    live_agent a;
    a.pid = p.pid;
    a.marker = std::move(p.marker);
    std::smatch m;
    a.task_key = std::regex_search(a.marker, m, marker_task) ? m[1].str() : a.marker;
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<std::string> duplicate_live_agents(const std::vector<live_agent>& agents) {
  std::map<std::string, std::vector<const live_agent*>> by_task;
  for (const auto& a : agents)
    by_task[a.task_key].push_back(&a);
  std::vector<std::string> out;
  for (const auto& [task, list] : by_task) {
    if (list.size() < 2)
      continue;
    std::string line = task + ":";
    for (const auto* a : list)
      line += " " + std::to_string(a->pid) + " (" + a->marker + ")";
    out.push_back(line);
  }
  return out;
}

int kill_live_agents(const fs::path& registry) {
  // Every marked process, also those that left their agent's group.
  std::set<std::string> markers;
  for (const auto& p : scan_marked_processes(registry)) {
    pid_t group = ::getpgid(p.pid);
    if (group > 1 && group != ::getpgrp())
      ::kill(-group, SIGKILL);
    ::kill(p.pid, SIGKILL);
    markers.insert(p.marker);
  }
  reap_orphans();
  return static_cast<int>(markers.size());
}

std::map<std::string, int> orphan_signal_deaths() {
  reap_orphans();
  std::map<std::string, int> out;
  for (const auto& [pid, status] : reaped())
    if (WIFSIGNALED(status))
      ++out[std::string("SIG") + (::sigabbrev_np(WTERMSIG(status)) ? ::sigabbrev_np(WTERMSIG(status)) : "?")];
  return out;
}

void adopt_orphans() {
  static bool done = false;
  if (!done)
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  done = true;
}

void reap_orphans() {
  for (;;) {
    int status = 0;
    pid_t p = ::waitpid(-1, &status, WNOHANG);
    if (p <= 0)
      return;
    reaped()[p] = status;
  }
}

void stop_runs_and_agents(std::vector<std::unique_ptr<child_run>>& runs, const fleet& f) {
  for (auto& r : runs)
    if (r->pid() > 0 && !r->wait(std::chrono::milliseconds(0))) {
      r->send(SIGKILL);
      r->wait(std::chrono::seconds(10));
    }
  if (!f.registry.empty()) {
    EXPECT_EQ(kill_live_agents(f.registry), 0) << "agents left behind by the test";
  }
}

std::vector<std::string> run_args(const fleet& f, int max_parallel) {
  return {"run", "--workspace", f.workspace.string(), "--max-parallel", std::to_string(max_parallel)};
}

} // namespace ad::test
