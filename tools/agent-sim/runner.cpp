#include "tools/agent-sim/runner.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <random>
#include <regex>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/agents/native_sessions.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/hash.hpp"
#include "runtime/core/json.hpp"
#include "tools/agent-sim/emitter.hpp"
#include "tools/agent-sim/registry.hpp"
#include "tools/agent-sim/scenario.hpp"
#include "tools/agent-sim/workspace_effects.hpp"

namespace ad::agent_sim {

namespace {

std::string env_or(const char* name, std::string fallback = {}) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : fallback;
}

// The text of the first user message of a pi session file: the prompt the
// session was started with. A resumed session (`--session FILE`) is told
// only to continue, so its task and role come from there. "" when unreadable.
std::string first_user_prompt(const std::string& session_file) {
  auto text = runtime::read_file(session_file);
  if (!text) return {};
  auto field = [](const runtime::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::size_t pos = 0;
  while (pos < text->size()) {
    std::size_t nl = text->find('\n', pos);
    std::string_view line = std::string_view(*text).substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text->size() : nl + 1;
    auto entry = runtime::parse_json(line, "session entry");
    if (!entry || !entry->is_object() || field(*entry, "type") != "message") continue;
    auto m = entry->find("message");
    if (m == entry->end() || !m->is_object() || field(*m, "role") != "user") continue;
    auto content = m->find("content");
    if (content == m->end()) continue;
    if (content->is_string()) return content->get<std::string>();
    std::string out;
    if (content->is_array())
      for (const auto& block : *content)
        if (block.is_object() && field(block, "type") == "text") out += field(block, "text");
    return out;
  }
  return {};
}

// The agent's time zone as its CLIs name it: TZ (without a leading ':'),
// else the zone /etc/localtime links to; "UTC" for Etc/UTC or when unknown.
void read_time_zone(cli_environment& cli) {
  std::string name = env_or("TZ");
  if (!name.empty() && name.front() == ':') name.erase(0, 1);
  std::optional<runtime::time_zone> zone;
  if (!name.empty()) {
    if (auto z = runtime::load_time_zone(name)) zone = *z;
  } else {
    std::error_code ec;
    auto target = std::filesystem::read_symlink("/etc/localtime", ec).string();
    auto at = target.find("zoneinfo/");
    name = ec || at == std::string::npos ? "UTC" : target.substr(at + 9);
    if (auto bytes = runtime::read_file("/etc/localtime"))
      if (auto z = runtime::parse_tzif(*bytes, name)) zone = *z;
  }
  if (name == "Etc/UTC" || name == "Etc/Universal" || name == "Universal" || name == "Zulu" || name == "Etc/Zulu")
    name = "UTC";
  if (!zone) name = "UTC";
  cli.zone_name = name;
  cli.zone = zone ? *zone : runtime::time_zone{};
}

cli_environment cli_environment_from_process() {
  cli_environment cli;
  if (env_or("AGENT_SIM_NATIVE_SESSIONS") == "1") {
    std::string home = env_or("HOME");
    cli.codex_home = env_or("CODEX_HOME");
    if (cli.codex_home.empty() && !home.empty()) cli.codex_home = home + "/.codex";
    if (!home.empty() || !env_or("CLAUDE_CONFIG_DIR").empty())
      cli.claude_projects = runtime::claude_projects_root(home, env_or("CLAUDE_CONFIG_DIR")).string();
  }
  std::string retries = env_or("CLAUDE_CODE_MAX_RETRIES");
  if (!retries.empty() && retries.find_first_not_of("0123456789") == std::string::npos && retries.size() < 4)
    cli.claude_max_retries = std::stoi(retries);
  cli.anthropic_base_url = env_or("ANTHROPIC_BASE_URL");
  cli.anthropic_api_key = !env_or("ANTHROPIC_API_KEY").empty();
  cli.openai_base_url = env_or("OPENAI_BASE_URL");
  cli.stdin_is_terminal = ::isatty(0) == 1;
  read_time_zone(cli);
  return cli;
}

sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

// Everything one run accumulates, and the single exit path.
class agent_run {
public:
  agent_run(const invocation& inv, const run_environment& env, std::ostream& out, std::ostream& err)
      : inv_(inv), env_(env), out_(out), err_(err) {
    record_.start_ms = wall_.now();
    record_.pid = static_cast<int>(::getpid());
    record_.pgid = static_cast<int>(::getpgrp());
    record_.argv = inv.argv;
    record_.cwd = env.cwd;
    record_.marker = env.marker;
    record_.cli = std::string(to_string(inv.as));
    if (!env.fixed_time.empty()) {
      if (auto t = runtime::parse_utc_iso(env.fixed_time)) fixed_.set(*t);
      event_clock_ = &fixed_;
    }
    uint64_t seed = std::random_device{}();
    if (!env.seed.empty()) seed = std::stoull(runtime::sha256_hex(env.seed).substr(0, 15), nullptr, 16);
    ids_ = std::make_unique<id_source>(seed);
  }

  int run() {
    workspace_ = inv_.workspace.empty() ? env_.cwd : inv_.workspace;
    std::error_code ec;
    workspace_ = std::filesystem::weakly_canonical(workspace_, ec).string();

    // pi refuses options it does not have before anything else.
    if (auto refusal = launch_refusal(inv_, env_.pi_dispatcher_flavor, {})) {
      err_ << *refusal << std::endl;
      return finish(1, 0);
    }

    scenario sc;
    std::string scenario_path = inv_.scenario.empty() ? env_.scenario_path : inv_.scenario;
    if (!scenario_path.empty()) {
      auto loaded = load_scenario_file(scenario_path);
      if (!loaded) return usage_error("bad scenario: " + loaded.error().message());
      sc = std::move(*loaded);
    }

    // A resumed pi session may be told only to continue: read its first prompt.
    std::string prompt = inv_.prompt;
    if (inv_.task.empty() && !inv_.session_file.empty() && !task_from_prompt(workspace_, prompt)) {
      std::string earlier = first_user_prompt(inv_.session_file);
      if (!earlier.empty()) prompt = earlier;
    }
    record_.role = !inv_.role.empty() ? inv_.role : role_from_prompt(prompt);
    if (record_.role != "worker" && record_.role != "selfcheck" && record_.role != "review")
      return usage_error("unknown role \"" + record_.role + "\"");
    auto task = inv_.task.empty() ? task_from_prompt(workspace_, prompt) : task_from_name(workspace_, inv_.task);
    if (task) {
      task_ = *task;
      record_.task = task_.name;
    } else if (!inv_.task.empty()) {
      record_.task = inv_.task;  // folder missing: workspace actions will fail
      task_error_ = task.error().message();
    } else {
      return usage_error("cannot tell the task: " + task.error().message());
    }

    auto attempt = resolve_attempt(scenario_path);
    if (!attempt) return usage_error(attempt.error().message());
    record_.attempt = *attempt;

    action_list actions = select_actions(sc, record_.task, record_.role, record_.attempt);
    if (auto refusal = launch_refusal(inv_, env_.pi_dispatcher_flavor, actions)) {
      err_ << *refusal << std::endl;
      return finish(1, 0);
    }
    emit_context ctx{inv_, workspace_, event_clock_, ids_.get(), env_.cli, [this](double seconds) {
                       wait_for(seconds);
                       return true;
                     }};
    emitter_ = make_emitter(ctx, out_, err_);
    usage_ = sc.usage;
    emitter_->set_request_usage(usage_);
    emitter_->begin();
    for (const action& a : actions) {
      if (int sig = pending_termination()) return finish(0, sig);
      if (auto code = perform(a)) return *code;
    }
    emitter_->success("Finished " + record_.role + " of " + record_.task + " (attempt " +
                      std::to_string(record_.attempt) + ").");
    return finish(0, 0);
  }

private:
  runtime::result<int> resolve_attempt(const std::string& scenario_path) {
    std::string counter = env_.counter_path;
    if (counter.empty() && !env_.registry_path.empty()) counter = env_.registry_path + ".attempts";
    if (counter.empty() && !scenario_path.empty()) counter = scenario_path + ".attempts";
    if (!counter.empty()) return next_attempt(counter, record_.task, record_.role);
    static const std::regex marker_attempt{R"(__a(\d{1,6})(?:__|$))"};
    std::smatch m;
    if (std::regex_search(env_.marker, m, marker_attempt)) return std::stoi(m[1]);
    return 1;
  }

  // nullopt: continue with the next action; a value: the run is over.
  std::optional<int> perform(const action& a) {
    effect_report report;
    runtime::status st;
    switch (a.kind) {
      case action_kind::work:
        if (!task_error_.empty()) return fail_with(task_error_);
        st = do_work(task_, a,
                     "agent-sim " + record_.role + " edit: task=" + record_.task + " attempt=" +
                         std::to_string(record_.attempt),
                     report);
        break;
      case action_kind::selfcheck:
        if (!task_error_.empty()) return fail_with(task_error_);
        st = do_selfcheck(task_, report);
        break;
      case action_kind::review:
        if (!task_error_.empty()) return fail_with(task_error_);
        st = do_review(task_, a.verdict, a.follow_up, event_clock_->now(), report);
        break;
      case action_kind::write:
        st = do_write(workspace_, a.path, a.content, report);
        break;
      case action_kind::events:
        for (int i = 0; i < a.count; ++i) {
          emitter_->step(++steps_, "sed -n 1,80p " + (task_.plan.empty() ? std::string("README.md")
                                                                          : task_.plan.filename().string()));
          if (a.seconds > 0 && i + 1 < a.count) {
            if (auto code = wait_for(a.seconds)) return code;
          }
        }
        return std::nullopt;
      case action_kind::silence:
        return wait_for(a.seconds);
      case action_kind::wait_file:
        return wait_for_file(a.path, a.seconds);
      case action_kind::hang:
        if (a.place == hang_place::tool_call) emitter_->tool_pending("sleep infinity");
        return wait_for(-1);
      case action_kind::fail: {
        failure_report f = describe_failure(a, inv_.model, workspace_, event_clock_->now());
        int code = emitter_->failure(f);
        return finish(a.exit_code.value_or(code), a.signal);
      }
      case action_kind::retried:
        emitter_->retried(describe_failure(a, inv_.model, workspace_, event_clock_->now()), a.count);
        return std::nullopt;
      case action_kind::spawn_child:
        spawn_child(a.seconds * env_.time_scale);
        return std::nullopt;
      case action_kind::exit:
        return finish(a.exit_code.value_or(0), a.signal);
      case action_kind::collab_tool:
        emitter_->collab_tool(a.tool);
        return std::nullopt;
      case action_kind::usage:
        usage_ = overlay(usage_, a.usage);
        emitter_->set_request_usage(usage_);
        return std::nullopt;
    }
    for (const auto& p : report.written) {
      record_.files_written.push_back(p);
      emitter_->step(++steps_, "apply_patch " + relative(p));
    }
    for (const auto& p : report.refused) {
      record_.refused_paths.push_back(p);
      err_ << "agent-sim: refused to write " << p << ": outside the workspace " << workspace_ << std::endl;
    }
    if (!st) return fail_with(st.message());
    return std::nullopt;
  }

  std::string relative(const std::string& p) const {
    return std::filesystem::path(p).lexically_relative(workspace_).string();
  }

  std::optional<int> fail_with(const std::string& message) {
    action a;
    a.kind = action_kind::fail;
    a.failure = failure_kind::error;
    a.message = message;
    return finish(emitter_->failure(describe_failure(a, inv_.model, workspace_, event_clock_->now())), 0);
  }

  int usage_error(const std::string& message) {
    err_ << "agent-sim: " << message << std::endl;
    return finish(2, 0);
  }

  // Sleeps, waking for a termination signal (then records it and dies by it).
  std::optional<int> wait_for(double seconds) {
    using steady = std::chrono::steady_clock;
    const bool forever = seconds < 0;
    return wait_until(steady::now() + std::chrono::duration_cast<steady::duration>(
                                        std::chrono::duration<double>(forever ? 0 : seconds * env_.time_scale)),
                      forever);
  }

  // Waits until `path` exists, looking every 20 ms of real time, at most
  // `seconds` real seconds (0: no limit); a termination signal as above.
  std::optional<int> wait_for_file(const std::string& path, double seconds) {
    using steady = std::chrono::steady_clock;
    const auto limit = steady::now() + std::chrono::duration_cast<steady::duration>(
                                         std::chrono::duration<double>(seconds));
    std::error_code ec;
    while (!std::filesystem::exists(path, ec)) {
      if (seconds > 0 && steady::now() >= limit) return std::nullopt;
      if (auto code = wait_until(steady::now() + std::chrono::milliseconds(20), false)) return code;
    }
    return std::nullopt;
  }

  std::optional<int> wait_until(std::chrono::steady_clock::time_point deadline, bool forever) {
    using steady = std::chrono::steady_clock;
    sigset_t set = termination_signals();
    for (;;) {
      std::chrono::nanoseconds slice = std::chrono::hours(1);
      if (!forever) {
        slice = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - steady::now());
        if (slice.count() <= 0) return std::nullopt;
      }
      timespec ts{static_cast<time_t>(slice.count() / 1000000000), static_cast<long>(slice.count() % 1000000000)};
      int sig = ::sigtimedwait(&set, nullptr, &ts);
      if (sig > 0) return finish(0, sig);
    }
  }

  void spawn_child(double seconds) {
    out_.flush();
    err_.flush();
    pid_t child = ::fork();
    if (child == 0) {
      // Same process group as the agent: only a group kill reaps it.
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      int devnull = ::open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
      }
      timespec ts{static_cast<time_t>(seconds), static_cast<long>((seconds - std::floor(seconds)) * 1e9)};
      while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
      ::_exit(0);
    }
    if (child > 0) {
      children_.push_back(static_cast<int>(child));
      emitter_->step(++steps_, "nohup sleep " + std::to_string(static_cast<long>(seconds)) + " & # pid " +
                                   std::to_string(child));
    } else {
      err_ << "agent-sim: fork failed: " << std::strerror(errno) << std::endl;
    }
  }

  // A termination signal that arrived while the run was busy (it stays
  // blocked until the run looks for it), or 0.
  static int pending_termination() {
    sigset_t pending;
    sigemptyset(&pending);
    ::sigpending(&pending);
    for (int sig : {SIGTERM, SIGINT, SIGHUP})
      if (sigismember(&pending, sig)) return sig;
    return 0;
  }

  // The one way out: record the run, then exit with code or die by signal.
  // A termination signal still pending wins over a normal exit.
  int finish(int code, int sig) {
    if (sig == 0) sig = pending_termination();
    record_.end_ms = wall_.now();
    record_.exit_code = sig ? 128 + sig : code;
    record_.exit_signal = sig ? signal_name(sig) : "";
    record_.children = children_;
    if (emitter_) {
      for (const auto& e : emitter_->write_errors()) err_ << "agent-sim: " << e << std::endl;
    }
    if (!env_.registry_path.empty()) {
      if (auto st = append_record(env_.registry_path, record_); !st)
        err_ << "agent-sim: registry: " << st.message() << std::endl;
    }
    out_.flush();
    err_.flush();
    if (sig) {
      std::signal(sig, SIG_DFL);
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, sig);
      ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
      ::raise(sig);
      ::_exit(128 + sig);
    }
    return code;
  }

  const invocation& inv_;
  const run_environment& env_;
  std::ostream& out_;
  std::ostream& err_;
  runtime::system_clock wall_;
  runtime::manual_clock fixed_;
  const runtime::clock* event_clock_ = &wall_;
  std::unique_ptr<id_source> ids_;
  std::unique_ptr<emitter> emitter_;
  runtime::token_usage usage_;  // what the requests report (scenario, then usage actions)
  std::string workspace_;
  task_files task_;
  std::string task_error_;
  run_record record_;
  std::vector<int> children_;
  int steps_ = 0;
};

} // namespace

run_environment environment_from_process() {
  run_environment env;
  env.scenario_path = env_or("AGENT_SIM_SCENARIO");
  env.registry_path = env_or("AGENT_SIM_REGISTRY");
  env.counter_path = env_or("AGENT_SIM_COUNTER");
  env.marker = env_or("AGENT_DISPATCH_EXECUTION_ID");
  env.fixed_time = env_or("AGENT_SIM_FIXED_TIME");
  env.seed = env_or("AGENT_SIM_SEED");
  std::string scale = env_or("AGENT_SIM_TIME_SCALE");
  if (!scale.empty()) {
    char* end = nullptr;
    double v = std::strtod(scale.c_str(), &end);
    if (end && *end == '\0' && v >= 0) env.time_scale = v;
  }
  env.pi_dispatcher_flavor = env_or("AGENT_SIM_PI_FLAVOR") == "dispatcher";
  env.cli = cli_environment_from_process();
  std::error_code ec;
  env.cwd = std::filesystem::current_path(ec).string();
  return env;
}

int run_agent(const invocation& inv, const run_environment& env, std::ostream& out, std::ostream& err) {
  sigset_t set = termination_signals();
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  agent_run run(inv, env, out, err);
  return run.run();
}

} // namespace ad::agent_sim
