#pragma once
// Is an agent's keeper (or the agent) still running? The pid and the start
// token recorded in keeper.json name one process for good: a live process
// with that pid and the same start token is it; a missing process, a reused
// pid (another start token) or a zombie (it ended, its parent has not
// reaped it yet) is gone. Reads /proc only; no state, no threads; never
// throws (an unreadable process counts as gone).

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "runtime/keeper/keeper_records.hpp"

namespace ad::runtime {

enum class process_presence : uint8_t { alive, gone };

process_presence probe_process(int pid, std::string_view start_token,
                               const std::filesystem::path& proc_root = "/proc");

inline process_presence probe_keeper(const keeper_record& record,
                                     const std::filesystem::path& proc_root = "/proc") {
  return probe_process(record.keeper_pid, record.keeper_start_token, proc_root);
}

inline process_presence probe_agent(const keeper_record& record,
                                    const std::filesystem::path& proc_root = "/proc") {
  return probe_process(record.agent_pid, record.agent_start_token, proc_root);
}

} // namespace ad::runtime
