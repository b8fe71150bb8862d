#include "runtime/keeper/keeper_records.hpp"

#include <csignal>
#include <cstring>
#include <stdexcept>

#include "runtime/core/files.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/strict_json.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

constexpr int max_pid = 1 << 22; // PID_MAX_LIMIT on 64-bit Linux
constexpr int max_signal = 64;

void expect_header(const json& j, std::string_view format) {
  if (!j.is_object())
    throw std::invalid_argument(std::string("must be a JSON object, not ") + j.type_name());
  if (strict_json::string(j, "format") != format)
    throw_json_member_error("format", "is not \"" + std::string(format) + "\"");
  strict_json::integer(j, "version", 1, 1);
}

int signal_from_name(const json& j, std::string_view key) {
  const json& v = strict_json::member(j, key);
  if (v.is_null())
    return 0;
  if (!v.is_string())
    throw_json_member_error(key, std::string("must be a signal name or null, not ") + v.type_name());
  std::string name = v.get<std::string>();
  for (int s = 1; s <= max_signal; ++s)
    if (signal_name(s) == name)
      return s;
  throw_json_member_error(key, "names no signal (" + name + ")");
}

template <class E, std::size_t N>
E enum_from(const json& j, std::string_view key, const E (&values)[N]) {
  std::string text = strict_json::string(j, key);
  for (E v : values)
    if (text == to_string(v))
      return v;
  throw_json_member_error(key, "has an unknown value (" + text + ")");
}

containment_kind containment_from(const json& j, std::string_view key) {
  auto kind = parse_containment_kind(strict_json::string(j, key));
  if (!kind)
    throw_json_member_error(key, "is neither cgroup nor subreaper");
  return *kind;
}

std::vector<leftover_process> processes_from(const json& j, std::string_view key) {
  const json& list = strict_json::member(j, key);
  if (!list.is_array())
    throw_json_member_error(key, std::string("must be an array, not ") + list.type_name());
  std::vector<leftover_process> out;
  for (const json& p : list) {
    leftover_process lp;
    lp.pid = static_cast<int>(strict_json::integer(p, "pid", 1, max_pid));
    lp.name = strict_json::string(p, "name");
    out.push_back(std::move(lp));
  }
  return out;
}

std::optional<uint64_t> optional_unsigned(const json& j, std::string_view key) {
  if (strict_json::member(j, key).is_null())
    return std::nullopt;
  return strict_json::unsigned_integer(j, key);
}

containment_report read_containment(const json& c) {
  containment_report out;
  out.kind = containment_from(c, "mechanism");
  out.cgroup = strict_json::string(c, "cgroup");
  out.ended = processes_from(c, "ended");
  out.kept = processes_from(c, "kept");
  const json& gave_up = strict_json::member(c, "gave_up");
  if (!gave_up.is_boolean())
    throw_json_member_error("gave_up", std::string("must be true or false, not ") + gave_up.type_name());
  out.gave_up = gave_up.get<bool>();
  out.usage.cpu_usec = optional_unsigned(c, "cpu_usec");
  out.usage.memory_peak_bytes = optional_unsigned(c, "memory_peak_bytes");
  return out;
}

// Reads dir/name (regular file, size-capped) and parses it with read.
template <class T, class Read>
result<T> read_record(const fs::path& path, Read&& read) {
  auto text = read_file(path, keeper_record_max_bytes);
  if (!text)
    return text.error();
  auto parsed = parse_json(*text, path.string());
  if (!parsed)
    return parsed.error();
  return read(*parsed, path.string());
}

} // namespace

const char* to_string(keeper_end end) noexcept {
  switch (end) {
    case keeper_end::exited: return "exited";
    case keeper_end::signaled: return "signaled";
    case keeper_end::launch_failed: return "launch_failed";
  }
  return "exited";
}

const char* to_string(keeper_initiator initiator) noexcept {
  switch (initiator) {
    case keeper_initiator::none: return "none";
    case keeper_initiator::dispatcher: return "dispatcher";
    case keeper_initiator::lease: return "lease";
  }
  return "none";
}

json keeper_record_to_json(const keeper_record& r) {
  return json{{"format", keeper_record_format},
              {"version", 1},
              {"keeper_pid", r.keeper_pid},
              {"keeper_start_token", r.keeper_start_token},
              {"agent_pid", r.agent_pid},
              {"agent_pgid", r.agent_pgid},
              {"agent_start_token", r.agent_start_token},
              {"marker", r.marker},
              {"argv0", r.argv0},
              {"started_at_ms", r.started_at_ms},
              {"line_cap", r.line_cap},
              {"head_bytes", r.head_bytes},
              {"tail_bytes", r.tail_bytes},
              {"containment", to_string(r.containment)},
              {"cgroup", r.cgroup}};
}

result<keeper_record> keeper_record_from_json(const json& j, std::string_view source) {
  try {
    expect_header(j, keeper_record_format);
    keeper_record r;
    r.keeper_pid = static_cast<int>(strict_json::integer(j, "keeper_pid", 1, max_pid));
    r.keeper_start_token = strict_json::string(j, "keeper_start_token");
    r.agent_pid = static_cast<int>(strict_json::integer(j, "agent_pid", 1, max_pid));
    r.agent_pgid = static_cast<int>(strict_json::integer(j, "agent_pgid", 1, max_pid));
    r.agent_start_token = strict_json::string(j, "agent_start_token");
    r.marker = strict_json::string(j, "marker");
    r.argv0 = strict_json::string(j, "argv0");
    r.started_at_ms = strict_json::integer(j, "started_at_ms", 0);
    r.line_cap = strict_json::unsigned_integer(j, "line_cap");
    r.head_bytes = strict_json::unsigned_integer(j, "head_bytes");
    r.tail_bytes = strict_json::unsigned_integer(j, "tail_bytes");
    if (r.line_cap == 0)
      throw_json_member_error("line_cap", "must be positive");
    if (j.contains("containment")) {
      r.containment = containment_from(j, "containment");
      r.cgroup = strict_json::string(j, "cgroup");
    }
    return r;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string(source) + ": " + e.what());
  }
}

json exit_record_to_json(const keeper_exit_record& r) {
  const stream_counts& s = r.stream;
  json termination{{"initiator", to_string(r.termination.initiator)},
                   {"signal", r.termination.signal > 0 ? json(signal_name(r.termination.signal))
                                                        : json(nullptr)}};
  json stream{{"lines", s.lines},
              {"bytes", s.bytes},
              {"cut_lines", s.cut_lines},
              {"cut_bytes", s.cut_bytes},
              {"dropped_line_bytes", s.dropped_line_bytes},
              {"write_failures", s.write_failures}};
  const containment_report& c = r.containment;
  auto processes = [](const std::vector<leftover_process>& list) {
    json out = json::array();
    for (const auto& p : list)
      out.push_back({{"pid", p.pid}, {"name", p.name}});
    return out;
  };
  auto optional_number = [](const std::optional<uint64_t>& v) { return v ? json(*v) : json(nullptr); };
  json containment{{"mechanism", to_string(c.kind)},
                   {"cgroup", c.cgroup},
                   {"ended", processes(c.ended)},
                   {"kept", processes(c.kept)},
                   {"gave_up", c.gave_up},
                   {"cpu_usec", optional_number(c.usage.cpu_usec)},
                   {"memory_peak_bytes", optional_number(c.usage.memory_peak_bytes)}};
  return json{{"format", keeper_exit_format},
              {"version", 1},
              {"end", to_string(r.end)},
              {"exit_code", r.exit_code},
              {"signal", r.signal},
              {"reason", r.reason},
              {"termination", std::move(termination)},
              {"stream", std::move(stream)},
              {"ended_at_ms", r.ended_at_ms},
              {"containment", std::move(containment)}};
}

result<keeper_exit_record> exit_record_from_json(const json& j, std::string_view source) {
  try {
    expect_header(j, keeper_exit_format);
    keeper_exit_record r;
    r.end = enum_from(j, "end", {keeper_end::exited, keeper_end::signaled, keeper_end::launch_failed});
    r.exit_code = static_cast<int>(strict_json::integer(j, "exit_code", 0, 255));
    r.signal = static_cast<int>(strict_json::integer(j, "signal", 0, max_signal));
    if (r.end == keeper_end::signaled && r.signal == 0)
      throw_json_member_error("signal", "must name the signal of a signaled end");
    r.reason = strict_json::string(j, "reason");
    r.termination = strict_json::nested(j, "termination", [](const json& t) {
      keeper_termination out;
      out.initiator = enum_from(t, "initiator", {keeper_initiator::none, keeper_initiator::dispatcher,
                                                 keeper_initiator::lease});
      out.signal = signal_from_name(t, "signal");
      return out;
    });
    r.stream = strict_json::nested(j, "stream", [](const json& s) {
      stream_counts c;
      c.lines = strict_json::unsigned_integer(s, "lines");
      c.bytes = strict_json::unsigned_integer(s, "bytes");
      c.cut_lines = strict_json::unsigned_integer(s, "cut_lines");
      c.cut_bytes = strict_json::unsigned_integer(s, "cut_bytes");
      c.dropped_line_bytes = strict_json::unsigned_integer(s, "dropped_line_bytes");
      c.write_failures = strict_json::unsigned_integer(s, "write_failures");
      if (c.cut_lines > c.lines || c.cut_bytes > c.bytes)
        throw std::invalid_argument("cut more than was written");
      return c;
    });
    r.ended_at_ms = strict_json::integer(j, "ended_at_ms", 0);
    if (j.contains("containment"))
      r.containment = strict_json::nested(j, "containment", read_containment);
    return r;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string(source) + ": " + e.what());
  }
}

status write_keeper_record(const fs::path& dir, const keeper_record& record) {
  return write_file_atomic(dir / keeper_record_file, dump_json(keeper_record_to_json(record), 1) + "\n",
                           durability::buffered);
}

status write_exit_record(const fs::path& dir, const keeper_exit_record& record) {
  return write_file_atomic(dir / keeper_exit_file, dump_json(exit_record_to_json(record), 1) + "\n",
                           durability::buffered);
}

result<keeper_record> read_keeper_record(const fs::path& dir) {
  return read_record<keeper_record>(dir / keeper_record_file, keeper_record_from_json);
}

result<exit_lookup> read_exit_record(const fs::path& dir) {
  auto record = read_record<keeper_exit_record>(dir / keeper_exit_file, exit_record_from_json);
  if (!record) {
    if (record.error().is_not_found())
      return exit_lookup{};
    return record.error();
  }
  return exit_lookup{keeper_exit_state::ended, std::move(*record)};
}

} // namespace ad::runtime
