#include "runtime/attempt/attempt_run.hpp"

#include <chrono>
#include <cstdlib>

#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/json_fields.hpp"
#include "runtime/agents/native_sessions.hpp"
#include "runtime/agents/usage_reader.hpp"
#include "runtime/attempt/pi_watch.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "runtime/keeper/stream_seal.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/process/spawn.hpp"
#include "runtime/worklog/work_log.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

namespace {

// A variable of the agent's environment: a NAME= addition for the child
// wins over the dispatcher's own value; "" when neither is set.
std::string agent_env(const std::vector<std::string>& env_additions, std::string_view name) {
  std::string prefix = std::string(name) + "=";
  for (auto it = env_additions.rbegin(); it != env_additions.rend(); ++it)
    if (it->rfind(prefix, 0) == 0)
      return it->substr(prefix.size());
  const char* value = std::getenv(std::string(name).c_str());
  return value != nullptr ? std::string{value} : std::string{};
}

// The agent's UTC offset now: its TZ (a zone name, ":name" or unset for the
// system's /etc/localtime); 0 when the zone cannot be read.
int32_t agent_utc_offset(const std::vector<std::string>& env_additions, millis now) {
  std::string tz = agent_env(env_additions, "TZ");
  if (!tz.empty() && tz.front() == ':')
    tz.erase(0, 1);
  if (!tz.empty()) {
    auto zone = load_time_zone(tz);
    return zone ? zone->utc_offset_s(now) : 0;
  }
  auto bytes = read_file("/etc/localtime");
  if (!bytes)
    return 0;
  auto zone = parse_tzif(*bytes, "localtime");
  return zone ? zone->utc_offset_s(now) : 0;
}

} // namespace

void mark_launch_failure(attempt_end& end, std::string reason) {
  end.launch = launch_outcome::failed_to_start;
  end.launch_error = std::move(reason);
  end.exit_code = launch_failure_exit_code;
}

std::string finish_row_result(const failure_verdict& v, const failure_inputs& in,
                              const token_usage& spent) {
  std::string out;
  if (!v.failed()) {
    out = "succeeded:0";
  } else if (v.failure_class == "cancelled") {
    out = "failed:cancelled";
  } else {
    bool signaled = in.exit.ended == agent_exit_status::how::signaled;
    int code = signaled ? 128 + in.exit.signal : in.exit.code;
    if (in.launch == launch_outcome::failed_to_start)
      code = launch_failure_exit_code;
    out = "failed:" + v.failure_class + ":" + std::to_string(code);
  }
  if (!spent.empty())
    out += " (spent " + usage_summary(spent) + ")";
  return out;
}

result<std::unique_ptr<attempt_run>> attempt_run::open(attempt_setup setup, const clock& clk) {
  std::unique_ptr<attempt_run> run{new attempt_run};
  run->clock_ = &clk;
  auto& loc = run->locator_;
  loc.identity = make_attempt_identity(setup.task, setup.plan_number, setup.role, setup.attempt);
  loc.started_at = clk.now();
  run->attempt_dir_ = setup.runs_dir / attempt_run_folder_name(loc.started_at, loc.identity);
  run->locator_path_ = run->attempt_dir_ / "locator.json";

  auto& launch = setup.launch;
  launch.workspace = setup.workspace;
  launch.attempt_dir = run->attempt_dir_;
  launch.task = setup.task;
  launch.role = setup.role;
  if (launch.session_id.empty() &&
      (launch.kind == adapter_kind::claude || launch.kind == adapter_kind::pi))
    launch.session_id = random_uuid();
  auto argv = build_argv(launch);
  if (!argv)
    return argv.error().with_context("argv of " + loc.identity);
  run->argv_ = std::move(*argv);

  if (auto st = make_directories(run->attempt_dir_); !st)
    return st.with_context("attempt folder");

  if (auto st = run->start_output(setup); !st)
    return st;

  auto open_file = [&](const char* name, line_file& out) -> status {
    auto keep = std::string_view(name) == "heartbeat.log" ? line_retention{} : attempt_log_retention;
    auto f = line_file::create(run->attempt_dir_ / name, keep);
    if (!f)
      return f.error();
    out = std::move(*f);
    return status::ok();
  };
  for (auto [name, file] : {std::pair{"stream.log", &run->stream_},
                            std::pair{"normalized-output.log", &run->normalized_},
                            std::pair{"heartbeat.log", &run->heartbeat_}}) {
    if (setup.kept && file == &run->stream_)
      continue; // the keeper writes it
    if (auto st = open_file(name, *file); !st)
      return st;
  }

  if (setup.work_log.empty())
    setup.work_log = work_log_path(setup.workspace, task_group(setup.task));
  loc.task = setup.task;
  loc.plan_number = setup.plan_number;
  loc.role = setup.role;
  loc.attempt = setup.attempt;
  loc.workspace = setup.workspace.string();
  loc.workspace_id = setup.workspace_id;
  loc.dispatcher_pid = setup.dispatcher_pid;
  loc.dispatcher_start_token = setup.dispatcher_start_token;
  loc.cli = std::string{to_string(launch.kind)};
  loc.model = launch.model;
  if (launch.kind == adapter_kind::codex || launch.kind == adapter_kind::claude)
    loc.effort = effective_effort(launch);
  loc.process_marker =
    attempt_process_marker(setup.workspace_id, loc.identity, random_uuid().substr(0, 8));
  if (!launch.plan_path.empty())
    loc.plan_path = launch.plan_path.string();
  if (!launch.review_path.empty())
    loc.review_path = launch.review_path.string();
  if (!launch.session_id.empty())
    loc.session_id = launch.session_id;
  run->find_agent_homes(setup);
  if (!launch.caps.version.empty())
    loc.cli_version = launch.caps.version;
  if (launch.kind == adapter_kind::claude)
    loc.native_session_path =
      claude_session_path(run->claude_projects_, setup.workspace, launch.session_id).string();
  if (launch.kind == adapter_kind::agy)
    run->agy_before_ = list_files(agy_conversations_dir(run->home_), ".db");
  if (launch.kind == adapter_kind::pi && !launch.native_session_file.empty()) {
    loc.native_session_path = launch.native_session_file.string();
    if (!setup.resumed_from_locator.empty())
      loc.resumed_from_locator = setup.resumed_from_locator;
  }
  // A pi that names its session file itself: the id comes from its stream.
  if (launch.kind == adapter_kind::pi && !pi_takes_session_id(launch))
    loc.session_id = std::nullopt;
  if (!setup.node.empty())
    loc.node = setup.node;
  loc.stream_log = (run->attempt_dir_ / "stream.log").string();
  loc.normalized_output_log = run->normalized_.path().string();
  loc.heartbeat_log = run->heartbeat_.path().string();
  if (launch.kind == adapter_kind::agy)
    loc.cli_log = agy_cli_log_path(run->attempt_dir_).string();
  loc.work_log = setup.work_log.string();
  loc.status = attempt_status::running;
  loc.selector_evidence = setup.selector_evidence;
  loc.stage_budget = setup.stage_budget;
  if (!setup.retry_handoff_id.empty())
    loc.retry_handoff_id = setup.retry_handoff_id;
  run->setup_ = std::move(setup);

  // Durable before anything can start: a later dispatcher must find it.
  auto text = dump_json(locator_to_json(loc), 2);
  if (auto st = write_file_atomic(run->locator_path_, text); !st)
    return st.with_context("first locator");
  return run;
}

status attempt_run::start_output(const attempt_setup& setup) {
  patterns_ = setup.failure_patterns ? *setup.failure_patterns : default_compiled_failure_patterns();
  output_.emplace(setup.launch.kind,
                  setup.role == "review" ? review_guard::codex_review : review_guard::off,
                  setup.progress, &patterns_, setup.usage_reader);
  return status::ok();
}

void attempt_run::find_agent_homes(const attempt_setup& setup) {
  home_ = agent_env(setup.env_additions, "HOME");
  std::string codex_home = agent_env(setup.env_additions, "CODEX_HOME");
  codex_home_ = codex_home.empty() ? home_ / ".codex" : std::filesystem::path{codex_home};
  claude_projects_ = claude_projects_root(home_, agent_env(setup.env_additions, "CLAUDE_CONFIG_DIR"));
}

result<std::unique_ptr<attempt_run>> attempt_run::adopt(attempt_setup setup,
                                                        const std::filesystem::path& locator_path,
                                                        const clock& clk) {
  std::unique_ptr<attempt_run> run{new attempt_run};
  run->clock_ = &clk;
  auto text = read_file(locator_path);
  if (!text)
    return text.error().with_context("adopted attempt");
  auto doc = parse_json(*text, locator_path.string());
  if (!doc)
    return doc.error();
  auto loc = locator_from_json(*doc);
  if (!loc)
    return loc.error().with_context(locator_path.string());
  auto identity = make_attempt_identity(setup.task, setup.plan_number, setup.role, setup.attempt);
  if (loc->identity != identity)
    return status::invalid_argument(locator_path.string() + " is the locator of " +
                                    loc->identity + ", not of " + identity);
  run->locator_ = std::move(*loc);
  run->adopted_ = true;
  run->locator_path_ = locator_path;
  run->attempt_dir_ = locator_path.parent_path();
  setup.kept = true;
  setup.launch.workspace = setup.workspace;
  setup.launch.attempt_dir = run->attempt_dir_;
  if (auto st = run->start_output(setup); !st)
    return st;
  run->find_agent_homes(setup);
  // Normalized output is rendered again from the spool's first line; the
  // heartbeat log goes on.
  auto normalized = line_file::create(run->attempt_dir_ / "normalized-output.log",
                                      attempt_log_retention);
  if (!normalized)
    return normalized.error();
  run->normalized_ = std::move(*normalized);
  auto heartbeats = line_file::append_to(run->attempt_dir_ / "heartbeat.log");
  if (!heartbeats)
    return heartbeats.error();
  run->heartbeat_ = std::move(*heartbeats);
  if (setup.work_log.empty())
    setup.work_log = run->locator_.work_log ? std::filesystem::path(*run->locator_.work_log)
                                            : work_log_path(setup.workspace, task_group(setup.task));
  auto& loc_ref = run->locator_;
  loc_ref.extra["adopted_from_dispatcher_pid"] = loc_ref.dispatcher_pid;
  loc_ref.dispatcher_pid = setup.dispatcher_pid;
  loc_ref.dispatcher_start_token = setup.dispatcher_start_token;
  run->setup_ = std::move(setup);
  run->heartbeat_line(format_utc_iso(clk.now()) + " [adopted] dispatcher pid " +
                      std::to_string(run->setup_.dispatcher_pid) +
                      " follows this attempt from its keeper's files");
  run->write_locator();
  return run;
}

std::filesystem::path attempt_run::pi_session_file() const {
  return setup_.launch.native_session_file;
}

std::filesystem::path attempt_run::pi_session_folder() const {
  if (!setup_.launch.native_session_file.empty())
    return setup_.launch.native_session_file.parent_path();
  return pi_session_dir(attempt_dir_);
}

token_usage attempt_run::usage() const {
  if (settled_usage_)
    return *settled_usage_;
  if (!output_)
    return {};
  return priced_usage(output_->usage(), setup_.prices ? &*setup_.prices : nullptr);
}

void attempt_run::settle_usage_at_end(uint64_t lost_stream_lines) {
  std::optional<token_usage> session;
  const auto& stream = output_->usage_stream();
  if (wants_session_usage(stream, lost_stream_lines) && locator_.native_session_path) {
    auto read = read_session_usage(stream.format(), *locator_.native_session_path,
                                   locator_.started_at);
    if (read)
      session = *read;
    else
      heartbeat_line(format_utc_iso(clock_->now()) + " [usage] " + read.error().to_string());
  }
  settled_usage_ = priced_usage(settle_usage(stream, lost_stream_lines, session),
                                setup_.prices ? &*setup_.prices : nullptr);
}

void attempt_run::write_locator(durability mode) {
  locator_written_at_ = clock_->now();
  locator_.updated_at = locator_written_at_;
  // An adopted attempt's stream is read again from its first line: what the
  // locator says already stays until the new reading has found usage.
  if (auto u = usage(); !u.empty())
    locator_.usage = std::move(u);
  auto text = dump_json(locator_to_json(locator_), 2);
  if (auto st = write_file_atomic(locator_path_, text, mode); !st)
    locator_.extra["locator_write_error"] = st.to_string();
  else if (locator_.extra.contains("locator_write_error"))
    locator_.extra.erase("locator_write_error");
}

status attempt_run::write_start_row() {
  work_log_event ev{"START", locator_.task, locator_.role, static_cast<int>(locator_.attempt),
                    locator_.model, "running", locator_path_.string()};
  if (auto st = append_row(ev); !st)
    return st;
  rows_written_.push_back(std::move(ev));
  return status::ok();
}

void attempt_run::note_containment() {
  if (!setup_.kept)
    return;
  auto exit = read_exit_record(attempt_dir_);
  if (!exit || exit->state != keeper_exit_state::ended)
    return;
  const containment_report& c = exit->record.containment;
  json processes = json::array();
  for (const auto& p : c.ended)
    processes.push_back(p.name + " (pid " + std::to_string(p.pid) + ")");
  json note{{"mechanism", to_string(c.kind)}, {"ended", processes}};
  if (!c.kept.empty())
    note["kept_alive"] = c.kept.size();
  if (c.usage.cpu_usec)
    note["cpu_usec"] = *c.usage.cpu_usec;
  if (c.usage.memory_peak_bytes)
    note["memory_peak_bytes"] = *c.usage.memory_peak_bytes;
  locator_.extra["containment"] = std::move(note);
  // Each process the agent left and its keeper had to end is named in the
  // work log, once (an adopting dispatcher may find it written).
  for (const auto& p : c.ended) {
    work_log_event kill{"KILL", locator_.task, locator_.role, static_cast<int>(locator_.attempt), "",
                        p.name + " (pid " + std::to_string(p.pid) + ")", locator_path_.string()};
    if (adopted_ && find_work_log_row(setup_.work_log, kill))
      continue;
    if (auto st = append_row(kill); !st)
      heartbeat_line(format_utc_iso(clock_->now()) + " [work-log] " + st.to_string());
  }
}

status attempt_run::append_row(const work_log_event& event) {
  auto row = append_work_log(setup_.work_log, event, *clock_);
  if (!row)
    return row.error();
  if (row->healed) {
    std::string note = row->healed->message();
    heartbeat_line(format_utc_iso(clock_->now()) + " [work-log] " + note);
    work_log_warnings_.push_back(std::move(note));
  }
  return status::ok();
}

void attempt_run::on_keeper_started(int pid, std::string start_token) {
  locator_.keeper_pid = pid;
  locator_.keeper_start_token = std::move(start_token);
  write_locator(durability::buffered);
}

void attempt_run::on_started(int pid, std::string start_token) {
  locator_.agent_pid = pid;
  locator_.agent_start_token = std::move(start_token);
  write_locator(durability::buffered);
}

line_outcome attempt_run::on_line(output_channel channel, std::string_view text, bool truncated,
                                  uint64_t dropped_bytes, std::optional<int64_t> at) {
  line_outcome out;
  std::string line = channel == output_channel::out ? "[stdout] " : "[stderr] ";
  line.append(text);
  if (truncated)
    line += " [line cut: " + std::to_string(dropped_bytes) + " bytes dropped]";
  if (!setup_.kept)
    (void)stream_.append_line(line);

  auto step = output_->feed(channel, text, at.value_or(clock_->now()));
  for (auto& shown : step.rendered)
    if (!shown.empty())
      (void)normalized_.append_line(shown);
  out.review_control_tool = std::move(step.collaboration_tool);
  out.no_progress = std::move(step.no_progress);
  if (clock_->now() - locator_written_at_ >= usage_refresh_ms)
    if (auto u = usage(); !u.empty() && locator_.usage != u)
      write_locator(durability::buffered);  // tokens so far, for the live views

  if (step.discovered_session_id && locator_.session_id != step.discovered_session_id) {
    locator_.session_id = *step.discovered_session_id;
    if (kind() == adapter_kind::claude)
      locator_.native_session_path =
        claude_session_path(claude_projects_, setup_.workspace, *locator_.session_id).string();
    resolve_native_session();
    write_locator(durability::buffered);
    out.session_discovered = true;
  }
  return out;
}

void attempt_run::on_pi_phase(std::string session_file, std::string phase, std::string reason,
                              std::vector<std::string> pending_tool_call_ids) {
  if (!session_file.empty())
    locator_.native_session_path = std::move(session_file);
  pi_phase_ = std::move(phase);
  pi_phase_reason_ = std::move(reason);
  pi_pending_ = std::move(pending_tool_call_ids);
  locator_.extra["pi_session_phase"] = pi_phase_;
  locator_.extra["pi_session_phase_reason"] = pi_phase_reason_;
  locator_.extra["pi_pending_tool_call_ids"] = pi_pending_;
}

void attempt_run::resolve_native_session() {
  auto& path = locator_.native_session_path;
  const std::string id = locator_.session_id.value_or("");
  switch (kind()) {
    case adapter_kind::pi:
      if (!path) {
        auto files = list_files(pi_session_folder(), ".jsonl");
        auto found = id.empty() ? newest_jsonl(files) : find_pi_session(files, id);
        if (found)
          path = found->string();
      }
      break;
    case adapter_kind::claude:
      // The expected path may not exist: a long workspace path gets a cut
      // folder name with a hash.
      if (!id.empty()) {
        std::error_code ec;
        if (!path || !std::filesystem::exists(*path, ec))
          if (auto found = find_claude_session(claude_projects_, setup_.workspace, id))
            path = found->string();
      }
      break;
    case adapter_kind::codex:
      if (!path && !id.empty())
        for (const auto& day : codex_day_dirs(codex_home_, locator_.started_at, clock_->now()))
          if (auto found = find_codex_rollout(list_files(day, ".jsonl"), id)) {
            path = found->string();
            break;
          }
      break;
    case adapter_kind::agy:
      // The newest changed conversation may move on while the agent runs.
      if (auto found = newest_changed_agy_conversation(
            agy_before_, list_files(agy_conversations_dir(home_), ".db")))
        path = found->string();
      break;
    default:
      break;
  }
}

void attempt_run::heartbeat_line(std::string_view text) {
  (void)heartbeat_.append_line(text);
}

void attempt_run::heartbeat(int64_t silent_ms) {
  ++heartbeats_;
  resolve_native_session();
  std::string mtime = "none";
  if (locator_.native_session_path) {
    std::error_code ec;
    auto t = std::filesystem::last_write_time(*locator_.native_session_path, ec);
    if (!ec) {
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::file_clock::to_sys(t).time_since_epoch())
                  .count();
      locator_.native_session_mtime_ns = ns;
      mtime = std::to_string(ns);
    }
  }
  std::string line = format_utc_iso(clock_->now()) + " [heartbeat] silent_ms=" +
                     std::to_string(silent_ms) + " locator=" + locator_path_.string() +
                     " native_session=" + locator_.native_session_path.value_or("none") +
                     " native_mtime_ns=" + mtime;
  if (kind() == adapter_kind::pi)
    line += " pi_phase=" + (pi_phase_.empty() ? std::string{"starting"} : pi_phase_);
  heartbeat_line(line);
  write_locator(durability::buffered);
}

void attempt_run::inspect_silence(int64_t silent_ms) {
  silence_inspection s;
  s.at = clock_->now();
  s.silence_ms = silent_ms;
  s.stream_tail = log_tail(locator_.stream_log);
  std::string what = kind() == adapter_kind::pi
                       ? "pi (phase " + (pi_phase_.empty() ? std::string{"starting"} : pi_phase_) +
                           ") wrote no output"
                       : locator_.cli + " wrote no output";
  heartbeat_line(format_utc_iso(s.at) + " [silence-inspection] silent_ms=" +
                 std::to_string(silent_ms) + " " + what +
                 "; stream tail recorded in the locator");
  locator_.silence = std::move(s);
  // The count survives in a locator read back from disk, so it is outside
  // input here: a damaged value starts the count again.
  locator_.extra["silence_inspections"] =
    agent_json::integer(locator_.extra, "silence_inspections").value_or(0) + 1;
  write_locator();
}

void attempt_run::seal_logs() {
  for (line_file* f : {&stream_, &normalized_})
    if (auto st = f->seal(); !st)
      heartbeat_line(format_utc_iso(clock_->now()) + " [log] " + st.to_string());
  if (!setup_.kept)
    return;
  // The keeper's spool: its kept tail goes into stream.log with the counts
  // of its exit record. Without one (the keeper died) the segments stay,
  // and readers of the log read them (log_tail).
  auto exit = read_exit_record(attempt_dir_);
  if (!exit.is_ok() || exit->state != keeper_exit_state::ended)
    return;
  const auto& counts = exit->record.stream;
  if (auto st = seal_stream(locator_.stream_log, counts.cut_lines, counts.cut_bytes); !st)
    heartbeat_line(format_utc_iso(clock_->now()) + " [log] " + st.to_string());
}

void attempt_run::stall(int64_t silent_ms, int64_t limit_ms) {
  heartbeat_line(format_utc_iso(clock_->now()) + " [stall] silent_ms=" +
                 std::to_string(silent_ms) + " limit_ms=" + std::to_string(limit_ms) +
                 "; terminating the process group");
}

void attempt_run::finish_line(const failure_verdict& v) {
  std::string exit = "none";
  if (locator_.termination_signal)
    exit = *locator_.termination_signal;
  else if (locator_.exit_code)
    exit = std::to_string(*locator_.exit_code);
  heartbeat_line(format_utc_iso(clock_->now()) + " [finish] status=" +
                 std::string{to_string(locator_.status)} + " exit=" + exit +
                 " class=" + (v.failed() ? v.failure_class : std::string{"none"}));
}

failure_verdict attempt_run::fail_before_start(std::string failure_class,
                                               std::string failure_source,
                                               std::string evidence) {
  seal_logs();
  failure_verdict v;
  v.failure_class = std::move(failure_class);
  v.failure_source = std::move(failure_source);
  v.evidence = std::move(evidence);
  v.evidence_origin = "dispatcher";
  if (v.failure_class != work_log_failure_class) {
    work_log_event ev{"FINISH", locator_.task, locator_.role, static_cast<int>(locator_.attempt),
                      locator_.model, "failed:" + v.failure_class, locator_path_.string()};
    if (auto row = append_row(ev); !row) {
      locator_.extra["prior_failure_class"] = v.failure_class;
      v.failure_class = std::string{work_log_failure_class};
      v.failure_source = "work-log";
      v.evidence = row.to_string();
    } else {
      rows_written_.push_back(std::move(ev));
    }
  }
  locator_.status = attempt_status::failed;
  locator_.finished_at = clock_->now();
  locator_.failure_class = v.failure_class;
  locator_.failure_source = v.failure_source;
  locator_.failure_evidence = v.evidence;
  locator_.failure_evidence_origin = v.evidence_origin;
  finish_line(v);
  write_locator();
  return v;
}

void attempt_run::read_codex_rollout() {
  resolve_native_session();
  if (!locator_.native_session_path)
    return;
  auto text = read_file_tail(*locator_.native_session_path, 256 * 1024);
  if (!text)
    return;
  auto err = last_codex_rollout_error(*text);
  if (!err)
    return;
  terminal_diagnostic d{"codex:rollout", dump_json(json{{"code", err->code},
                                                         {"message", err->message}})};
  output_->add_diagnostic(d);
  file_diagnostics_.push_back(std::move(d));
}

failure_verdict attempt_run::finish(const attempt_end& end) {
  seal_logs();
  if (kind() == adapter_kind::agy && locator_.cli_log) {
    if (auto text = read_file_tail(*locator_.cli_log, 256 * 1024))
      file_diagnostics_ = output_->add_agy_cli_log(*text, patterns_);
  }
  if (kind() == adapter_kind::codex && output_->outcome().end == cli_end::failed)
    read_codex_rollout();
  // Aggregate-initialized on purpose (see attempt_end).
  failure_inputs in{
    .launch = end.launch,
    .launch_error = end.launch_error,
    .exit = agent_exit_status{end.how == exit_how::signaled ? agent_exit_status::how::signaled
                                                       : agent_exit_status::how::exited,
                         end.exit_code, end.exit_signal},
    .stop = end.stop,
    .no_progress = output_->no_progress().value_or(no_progress_stop{}),
    .review_control_tool = output_->review_violation(),
    .kind = kind(),
    .outcome = output_->outcome(),
    .diagnostics_newest_first = output_->diagnostics().newest_first(),
    .observed_at = clock_->now(),
    .utc_offset_s = agent_utc_offset(setup_.env_additions, clock_->now()),
  };
  auto v = classify_attempt(in, patterns_);
  if (!end.end_note.empty()) {
    heartbeat_line(format_utc_iso(clock_->now()) + " [keeper] " + end.end_note);
    if (v.failed() && v.evidence.empty()) {
      v.evidence = end.end_note;
      v.evidence_origin = "dispatcher:keeper";
    }
  }
  classified_ = true;
  classification_inputs_ = in;
  classification_ = v;
  resolve_native_session();
  settle_usage_at_end(end.lost_stream_lines);
  if (kind() == adapter_kind::pi && locator_.native_session_path) {
    // The watcher's last reading may be a poll old: the final phase is read
    // again at the end.
    auto reading = read_pi_target(*locator_.native_session_path, {}, {});
    on_pi_phase(reading.file.string(), std::string{to_string(reading.state.phase)},
                reading.state.reason, reading.state.pending_tool_call_ids);
  }

  note_containment();
  work_log_event ev{"FINISH", locator_.task, locator_.role, static_cast<int>(locator_.attempt),
                    locator_.model, finish_row_result(v, in, usage()), locator_path_.string()};
  // The dispatcher that started an adopted attempt may have died between
  // its FINISH row and the locator: the row written stays the record.
  std::optional<work_log_row> earlier;
  if (adopted_)
    earlier = find_work_log_row(setup_.work_log, ev);
  if (earlier) {
    heartbeat_line(format_utc_iso(clock_->now()) + " [adopted] FINISH row " +
                   std::to_string(earlier->seq) + " was written before the restart");
  } else if (auto row = append_row(ev); row) {
    rows_written_.push_back(std::move(ev));
  } else {
    if (v.failed())
      locator_.extra["prior_failure_class"] = v.failure_class;
    locator_.extra["work_log_error"] = row.to_string();
    failure_verdict w;
    w.failure_class = std::string{work_log_failure_class};
    w.failure_source = "work-log";
    w.evidence = row.to_string();
    w.evidence_origin = "dispatcher:work-log";
    w.termination_signal = v.termination_signal;
    w.termination_signal_name = v.termination_signal_name;
    w.termination_signal_inferred = v.termination_signal_inferred;
    v = std::move(w);
  }

  locator_.status = v.failed() ? attempt_status::failed : attempt_status::succeeded;
  locator_.finished_at = clock_->now();
  if (end.launch == launch_outcome::failed_to_start)
    locator_.exit_code = launch_failure_exit_code;
  else if (end.how == exit_how::signaled)
    locator_.exit_code = 128 + end.exit_signal;
  else
    locator_.exit_code = end.exit_code;
  if (v.failed()) {
    locator_.failure_class = v.failure_class;
    locator_.failure_source = v.failure_source;
    if (!v.evidence.empty()) {
      locator_.failure_evidence = v.evidence;
      locator_.failure_evidence_origin = v.evidence_origin;
    }
    locator_.failure_evidence_truncated = v.evidence_truncated;
    locator_.provider_transport_failure_confirmed = v.provider_transport_failure_confirmed;
    locator_.quota_reset_at = v.reset_at;
  }
  if (v.termination_signal) {
    locator_.termination_signal = v.termination_signal_name;
    locator_.termination_signal_inferred = v.termination_signal_inferred;
    locator_.termination_initiator =
      end.stop != dispatcher_stop::none || output_->review_violation() ? "dispatcher" : "unknown";
  }
  if (output_->outcome().recovered_errors > 0)
    locator_.extra["cli_recovered_errors"] = output_->outcome().recovered_errors;
  if (output_->outcome().end != cli_end::unknown) {
    locator_.extra["cli_end"] = std::string{to_string(output_->outcome().end)};
  }
  finish_line(v);
  write_locator();
  return v;
}

} // namespace ad::runtime
