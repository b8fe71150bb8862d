#include "tests/e2e/supervision/supervision_support.hpp"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "runtime/core/files.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test {

namespace fs = std::filesystem;
using runtime::json;

supervision_ws::supervision_ws() {
  adopt_orphans();
  f_.workspace = f_.dir.path() / "ws";
  f_.scenario = f_.dir.path() / "scenario.json";
  f_.registry = f_.dir.path() / "registry.jsonl";
  f_.state_home = f_.dir.path() / "state";
  f_.time_scale = 0.01;
  EXPECT_TRUE(runtime::make_directories(f_.workspace / "agent-task").is_ok());
  EXPECT_TRUE(runtime::make_directories(f_.state_home).is_ok());
  write_scenario({{"version", 1}});
  write_policy(json::object());
}

supervision_ws::~supervision_ws() { kill_live_agents(f_.registry); }

void supervision_ws::write_task(const std::string& task, const std::string& lane,
                                const std::vector<std::string>& files) const {
  write_plan_and_review(f_.workspace, task, lane, files);
  for (const auto& f : files)
    EXPECT_TRUE(runtime::make_directories((f_.workspace / f).parent_path()).is_ok());
}

void supervision_ws::write_policy(const json& overlay) const {
  json pol = {{"backoff", {{"initial_s", 0.01}, {"coefficient", 2}, {"max_s", 0.05}}},
              {"timeouts",
               {{"heartbeat_s", 30},
                {"silence_inspection_s", 180},
                {"stall_limit_s", 0},
                {"reset_wait_max_s", 5},
                {"quota_cooldown_s", 2}}}};
  for (auto it = overlay.begin(); it != overlay.end(); ++it)
    pol[it.key()] = it.value();
  EXPECT_TRUE(runtime::write_file_atomic(f_.workspace / "agent-dispatch.json",
                                         runtime::dump_json(pol, 2), runtime::durability::buffered)
                .is_ok());
}

void supervision_ws::write_scenario(const json& scenario) const {
  EXPECT_TRUE(runtime::write_file_atomic(f_.scenario, runtime::dump_json(scenario, 2),
                                         runtime::durability::buffered)
                .is_ok());
}

child_run supervision_ws::start(const std::vector<std::string>& extra_args) const {
  std::vector<std::string> args{"run", "--workspace", f_.workspace.string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  static int n = 0;
  return child_run::start_dispatcher(f_, args, "dispatcher-" + std::to_string(++n));
}

supervision_ws::outcome supervision_ws::run(const std::vector<std::string>& extra_args,
                                            const std::string& crash_at,
                                            std::chrono::seconds timeout) const {
  if (crash_at.empty())
    ::unsetenv("AD_TEST_CRASH_AT");
  else
    ::setenv("AD_TEST_CRASH_AT", crash_at.c_str(), 1);
  auto child = start(extra_args);
  ::unsetenv("AD_TEST_CRASH_AT");
  outcome o;
  auto code = child.wait(timeout);
  if (!code) {
    child.send(SIGKILL);
    code = child.wait(std::chrono::seconds(10));
    ADD_FAILURE() << "dispatcher did not finish in " << timeout.count() << " s\n" << child.tail();
  }
  o.code = code.value_or(-1);
  o.out = child.out();
  o.err = child.err();
  return o;
}

std::string prompt_of(const std::vector<std::string>& argv, const std::string& cli) {
  if (cli == "agy") {
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "--print")
        return argv[i + 1];
    return {};
  }
  return argv.empty() ? std::string() : argv.back();
}

std::vector<sim_run> supervision_ws::runs() const {
  std::vector<sim_run> out;
  std::ifstream in(f_.registry);
  for (std::string line; std::getline(in, line);) {
    auto j = runtime::parse_json(line, "registry line");
    if (!j.is_ok() || !j->is_object()) {
      ADD_FAILURE() << "unreadable registry line: " << line;
      continue;
    }
    sim_run r;
    r.raw = *j;
    r.cli = j->value("cli", "");
    r.role = j->value("role", "");
    r.task = j->value("task", "");
    r.marker = j->value("marker", "");
    r.attempt = j->value("attempt", 0);
    r.start_ms = j->value("start_ms", int64_t{0});
    r.end_ms = j->value("end_ms", int64_t{0});
    if (j->contains("exit") && (*j)["exit"].contains("code"))
      r.exit_code = (*j)["exit"]["code"].get<int>();
    if (j->contains("argv"))
      for (const auto& a : (*j)["argv"])
        r.argv.push_back(a.get<std::string>());
    r.prompt = prompt_of(r.argv, r.cli);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<sim_run> supervision_ws::runs_of(const std::string& role) const {
  std::vector<sim_run> out;
  for (auto& r : runs())
    if (r.role == role)
      out.push_back(std::move(r));
  return out;
}

std::string supervision_ws::status_json() const {
  ::setenv("XDG_STATE_HOME", f_.state_home.c_str(), 1);
  auto r = run_binary(agent_dispatch(), {"status", "--json", "--workspace", f_.workspace.string()});
  ::unsetenv("XDG_STATE_HOME");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.out;
}

json supervision_ws::status_of(const std::string& task) const {
  std::istringstream in(status_json());
  for (std::string line; std::getline(in, line);) {
    auto j = runtime::parse_json(line, "status line");
    if (j.is_ok() && j->is_object() && j->value("event", "") == "task" &&
        j->value("task", "") == task)
      return *j;
  }
  return nullptr;
}

int supervision_ws::check_registry(std::string* report) const {
  auto r = run_binary((binary_dir() / "agent-sim").string(), {"check-registry", f_.registry.string()});
  if (report)
    *report = r.out + r.err;
  return r.exit_code;
}

fs::path supervision_ws::archived(const std::string& task) const {
  auto root = f_.workspace / "agent-task" / "archive";
  std::error_code ec;
  auto slash = task.find('/');
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().filename() == "complete.log" &&
        it->path().parent_path().filename() == task.substr(slash + 1))
      return it->path().parent_path();
  return {};
}

std::vector<std::string> read_cmdline(int pid) {
  auto text = read_text("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\0', pos);
    if (end == std::string::npos)
      end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

runtime::json worker_attempts(const std::string& task, const runtime::json& by_attempt) {
  return {{"version", 1}, {"tasks", {{task, {{"worker", by_attempt}}}}}};
}

} // namespace ad::test
