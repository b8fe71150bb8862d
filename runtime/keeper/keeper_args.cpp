#include "runtime/keeper/keeper_args.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <set>

namespace ad::runtime {

namespace {

constexpr std::array<std::string_view, 12> known_options = {
  "--attempt-dir", "--marker",     "--cwd",        "--env",        "--grace-ms",    "--line-cap",
  "--head-bytes",  "--tail-bytes", "--lease-file", "--lease-ms",   "--containment", "--keep-alive"};

constexpr std::string_view usage_text =
  "usage: ad-keeper --attempt-dir DIR --marker MARKER [--cwd DIR] [--env NAME=VALUE]...\n"
  "                 [--grace-ms N] [--line-cap BYTES] [--head-bytes N] [--tail-bytes N]\n"
  "                 [--lease-file FILE --lease-ms N] [--containment auto|subreaper]\n"
  "                 [--keep-alive NAME]... -- AGENT_ARGV...\n";

status bad(std::string_view option, const std::string& what) {
  return status::invalid_argument(std::string(option) + ": " + what);
}

result<uint64_t> number(std::string_view option, std::string_view text, uint64_t min, uint64_t max,
                        std::string_view unit) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return bad(option, "expected a number of " + std::string(unit) + ", got '" + std::string(text) + "'");
  if (v < min || v > max)
    return bad(option, std::string(text) + " is out of range (" + std::to_string(min) + " to " +
                         std::to_string(max) + ")");
  return v;
}

} // namespace

std::string_view keeper_usage() noexcept { return usage_text; }

result<parsed_keeper_args> parse_keeper_args(const std::vector<std::string_view>& args) {
  constexpr uint64_t max_ms = uint64_t{1} << 40; // about 35 years
  constexpr uint64_t max_bytes = uint64_t{1} << 50;
  parsed_keeper_args out;
  keeper_invocation& inv = out.invocation;
  std::set<std::string_view> seen;
  bool has_separator = false;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") {
      has_separator = true;
      ++i;
      break;
    }
    if (arg == "--help" || arg == "-h") {
      out.command = keeper_command::help;
      return out;
    }
    if (!arg.starts_with("--"))
      return status::invalid_argument("unexpected argument '" + std::string(arg) +
                                      "' (the agent's command goes after --)");
    std::string_view name = arg, value;
    bool inline_value = false;
    if (auto eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    auto known_name = std::find(known_options.begin(), known_options.end(), name);
    if (known_name == known_options.end())
      return status::invalid_argument("unknown option " + std::string(name));
    if (!inline_value) {
      if (i + 1 >= args.size() || args[i + 1] == "--")
        return bad(name, "needs a value");
      value = args[++i];
    }
    if (name != "--env" && name != "--keep-alive" && !seen.insert(*known_name).second)
      return bad(name, "given more than once");
    if (name == "--attempt-dir" || name == "--cwd" || name == "--lease-file") {
      if (value.empty())
        return bad(name, "needs a path");
      (name == "--attempt-dir" ? inv.attempt_dir : name == "--cwd" ? inv.cwd : inv.lease_file) = value;
    } else if (name == "--marker") {
      if (value.empty())
        return bad(name, "must not be empty");
      inv.marker = value;
    } else if (name == "--containment") {
      if (value != "auto" && value != "subreaper")
        return bad(name, "expected auto or subreaper, got '" + std::string(value) + "'");
      inv.containment =
        value == "auto" ? containment_request::automatic : containment_request::subreaper;
    } else if (name == "--keep-alive") {
      if (value.empty() || value.find('/') != std::string_view::npos)
        return bad(name, "expected a process name, got '" + std::string(value) + "'");
      inv.keep_alive.emplace_back(value);
    } else if (name == "--env") {
      auto eq = value.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return bad(name, "expected NAME=VALUE, got '" + std::string(value) + "'");
      inv.env.emplace_back(std::string(value.substr(0, eq)), std::string(value.substr(eq + 1)));
    } else if (name == "--grace-ms" || name == "--lease-ms") {
      auto v = number(name, value, name == "--lease-ms" ? 1 : 0, max_ms, "milliseconds");
      if (!v)
        return v.error();
      (name == "--grace-ms" ? inv.grace_ms : inv.lease_ms) = static_cast<int64_t>(*v);
    } else {
      auto v = number(name, value, name == "--line-cap" ? 1 : 0, max_bytes, "bytes");
      if (!v)
        return v.error();
      (name == "--line-cap" ? inv.line_cap : name == "--head-bytes" ? inv.retention.head_bytes
                                                                     : inv.retention.tail_bytes) = *v;
    }
  }
  for (; i < args.size(); ++i)
    inv.agent_argv.emplace_back(args[i]);
  if (inv.attempt_dir.empty())
    return status::invalid_argument("--attempt-dir is required");
  if (inv.marker.empty())
    return status::invalid_argument("--marker is required");
  if (inv.lease_file.empty() != (inv.lease_ms == 0))
    return status::invalid_argument(inv.lease_file.empty() ? "--lease-ms needs --lease-file"
                                                           : "--lease-file needs --lease-ms");
  if (!has_separator || inv.agent_argv.empty() || inv.agent_argv.front().empty())
    return status::invalid_argument("no agent command: give it after --");
  return out;
}

std::vector<std::string> keeper_arguments(const keeper_invocation& inv) {
  const keeper_invocation defaults;
  std::vector<std::string> out = {"--attempt-dir", inv.attempt_dir.string(), "--marker", inv.marker};
  auto add = [&](std::string name, std::string value) {
    out.push_back(std::move(name));
    out.push_back(std::move(value));
  };
  if (!inv.cwd.empty())
    add("--cwd", inv.cwd.string());
  for (const auto& [name, value] : inv.env)
    add("--env", name + "=" + value);
  if (inv.grace_ms != defaults.grace_ms)
    add("--grace-ms", std::to_string(inv.grace_ms));
  if (inv.line_cap != defaults.line_cap)
    add("--line-cap", std::to_string(inv.line_cap));
  if (inv.retention.head_bytes != defaults.retention.head_bytes)
    add("--head-bytes", std::to_string(inv.retention.head_bytes));
  if (inv.retention.tail_bytes != defaults.retention.tail_bytes)
    add("--tail-bytes", std::to_string(inv.retention.tail_bytes));
  if (!inv.lease_file.empty()) {
    add("--lease-file", inv.lease_file.string());
    add("--lease-ms", std::to_string(inv.lease_ms));
  }
  if (inv.containment != defaults.containment)
    add("--containment", "subreaper");
  for (const auto& name : inv.keep_alive)
    add("--keep-alive", name);
  out.emplace_back("--");
  out.insert(out.end(), inv.agent_argv.begin(), inv.agent_argv.end());
  return out;
}

} // namespace ad::runtime
