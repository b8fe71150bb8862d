#include "runtime/distributed/node_setup.hpp"

#include <algorithm>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/cli_probe.hpp"

namespace ad::runtime {

result<std::vector<std::string>> parse_adapter_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty())
      continue;
    auto kind = parse_adapter_kind(item);
    if (!kind.is_ok())
      return status::invalid_argument("--adapters: '" + std::string(item) +
                                      "' is not an adapter (codex, claude, agy, pi, command)");
    if (std::find(out.begin(), out.end(), item) != out.end())
      return status::invalid_argument("--adapters: '" + std::string(item) + "' is given twice");
    out.emplace_back(item);
  }
  if (out.empty())
    return status::invalid_argument("--adapters: no adapter given");
  return out;
}

std::vector<std::string> adapters_on_path(std::string_view path_value) {
  std::vector<std::string> out;
  for (auto kind : {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy, adapter_kind::pi})
    if (!resolve_executable(cli_executable_name(kind), path_value).empty())
      out.emplace_back(to_string(kind));
  out.emplace_back(to_string(adapter_kind::command));
  return out;
}

middleman_timing middleman_timing_for(int64_t lease_ms) noexcept {
  middleman_timing t;
  t.heartbeat_ms = std::clamp<int64_t>(lease_ms / 20, 100, 1000);
  t.connection_timeout_ms = 4 * t.heartbeat_ms;
  return t;
}

} // namespace ad::runtime
