#pragma once
// Running the built ad-keeper in tests: start it the way the dispatcher
// will (posix_spawn, own session, argv from keeper_arguments), wait for it
// with a timeout, and look at processes. Every wait is bounded; a keeper
// that overstays is killed with its agent. Test-only.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/keeper/keeper_args.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "tests/support/eventually.hpp"

namespace ad::test::keeper {

using namespace std::chrono_literals;

std::filesystem::path keeper_binary();
std::filesystem::path test_agent();

// A unique marker per call.
std::string unique_marker();

// An invocation of the test agent with these steps, writing to dir.
runtime::keeper_invocation invocation(const std::filesystem::path& dir, std::vector<std::string> steps);

enum class session_choice : uint8_t { own_session, callers_session };

// Starts ad-keeper with args; its stdout and stderr go to output_file.
// extra_env is added to the test's environment.
pid_t spawn_keeper(const std::vector<std::string>& args, const std::filesystem::path& output_file,
                   session_choice session = session_choice::own_session,
                   const std::vector<std::string>& extra_env = {});

// The wait status of child pid, or nullopt when it did not end in time.
std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout);

struct keeper_result {
  int exit_code = -1; // -1: killed after the timeout
  std::string output; // its stdout and stderr
  std::chrono::milliseconds took{0};
};

// Runs ad-keeper to its end (at most timeout).
keeper_result run_keeper(const runtime::keeper_invocation& inv, std::chrono::milliseconds timeout = 20s);

using ad::test::eventually;

// No such process, or a zombie.
bool process_gone(int pid);

// Pids of the processes whose environment holds the marker.
std::vector<int> processes_with_marker(const std::string& marker);
// SIGKILLs them (cleanup after a test).
void kill_marked(const std::string& marker);

std::string read_text(const std::filesystem::path& p);
std::vector<std::string> lines_of(const std::string& text);

runtime::keeper_exit_record exit_record_of(const std::filesystem::path& dir);

} // namespace ad::test::keeper
