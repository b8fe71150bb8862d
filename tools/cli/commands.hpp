#pragma once
// Sub-command registration for the agent-dispatch CLI. Each command lives in
// its own file and adds itself to the app; main() parses and runs the chosen
// handler, whose return value is the process exit code (SPEC section 10:
// 0 complete/ready, 2 blocked or bad usage, 3 waiting on outside work, 130
// interrupted). Command files only translate arguments, call runtime/ and
// print; the decisions live in runtime/.

#include <CLI/CLI.hpp>
#include <functional>

namespace ad::cli {

using handler = std::function<int()>;

// Each adds a sub-command to app and stores the handler to run when it is chosen.
void add_validate_plan_command(CLI::App& app, handler& out);
void add_run_command(CLI::App& app, handler& out);
void add_policy_command(CLI::App& app, handler& out);
void add_status_command(CLI::App& app, handler& out);
void add_replay_command(CLI::App& app, handler& out);
void add_doctor_command(CLI::App& app, handler& out);
void add_node_command(CLI::App& app, handler& out);
void add_serve_command(CLI::App& app, handler& out);

// Exit codes shared by the commands.
inline constexpr int exit_ok = 0;
inline constexpr int exit_blocked = 2;   // also bad usage and unreadable input
inline constexpr int exit_waiting = 3;

} // namespace ad::cli
