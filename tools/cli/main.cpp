// agent-dispatch: the command-line entry point. The only place that prints to
// the terminal and chooses the exit code. Bad usage exits 2 (SPEC section 10);
// --help and --version exit 0.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "runtime/core/exception_text.hpp"
#include "runtime/core/heap_tuning.hpp"
#include "tools/cli/cli_outline.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/number_option.hpp"

namespace {

// runtime/core/heap_tuning.hpp: the second start puts the user's
// GLIBC_TUNABLES back before anything else; true when this is that start.
bool undo_heap_tuning() {
  auto undo = ad::runtime::heap_tuning_restore(std::getenv(ad::runtime::heap_tuning_saved_var));
  if (!undo.second_start)
    return false;
  if (undo.tunables)
    ::setenv("GLIBC_TUNABLES", undo.tunables->c_str(), 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
  ::unsetenv(ad::runtime::heap_tuning_saved_var);
  return true;
}

// Starts this program again with huge pages for its heap; returns only
// when it cannot (then it runs as it is, with the environment unchanged).
void start_with_heap_tuning(char** argv) {
  const char* given = std::getenv("GLIBC_TUNABLES");
  auto env = ad::runtime::heap_tuning_start(given);
  if (!env)
    return;
  ::setenv("GLIBC_TUNABLES", env->tunables.c_str(), 1);
  ::setenv(ad::runtime::heap_tuning_saved_var, env->saved.c_str(), 1);
  // By the program's own path, so that the process keeps its name (ps, top,
  // pgrep and killall see "agent-dispatch", not "exe"); by /proc/self/exe
  // when that path is gone (the file was replaced since).
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    ::execv(self.c_str(), argv);
  ::execv("/proc/self/exe", argv);
  undo_heap_tuning();  // not started again: put the user's value back here
}

} // namespace

int main(int argc, char** argv) {
  bool heap_tuned = undo_heap_tuning();
  CLI::App app{"agent-dispatch: run fleets of AI coding agents over a repository's task folders"};
  app.set_version_flag("--version", AD_VERSION);
  app.require_subcommand(1);
  app.failure_message(ad::cli::plain_failure_message);
  app.footer("Exit codes: 0 done or something ready, 2 blocked or bad usage, "
             "3 waiting on work outside this process, 130 interrupted.");
  // Hidden: what the package build generates its man pages and completion from.
  ad::cli::add_outline_flags(app);

  ad::cli::handler chosen;
  ad::cli::add_validate_plan_command(app, chosen);
  ad::cli::add_run_command(app, chosen);
  ad::cli::add_policy_command(app, chosen);
  ad::cli::add_status_command(app, chosen);
  ad::cli::add_replay_command(app, chosen);
  ad::cli::add_doctor_command(app, chosen);
  ad::cli::add_node_command(app, chosen);
  ad::cli::add_serve_command(app, chosen);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, std::cout, std::cerr);
    return code == 0 ? 0 : ad::cli::exit_blocked;
  }
  // After the parse: --help and bad usage need no second start. The heaps'
  // number is set in the start that goes on, before its first thread.
  if (chosen)
    for (const auto* command : app.get_subcommands())
      if (ad::runtime::heap_tuning_wanted(command->get_name())) {
        if (!heap_tuned)
          start_with_heap_tuning(argv);
        ad::runtime::limit_heap_arenas();
      }
  try {
    return chosen ? chosen() : ad::cli::exit_blocked;
  } catch (const std::exception& e) {
    // Every reader turns bad input into a clear error; reaching this is a
    // bug, reported without a library's internal tags.
    std::cerr << "agent-dispatch: internal error: " << ad::runtime::exception_text(e)
              << " (this is a bug in agent-dispatch; please report it with the command)\n";
    return ad::cli::exit_blocked;
  }
}
