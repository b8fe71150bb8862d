#pragma once
// The command line's outline, read from its own CLI11 definitions after every
// command has added itself: the list of sub-commands (one man page each) and
// a bash completion script. The package build prints both through two root
// flags hidden from --help (docs/packaging.md), so a new sub-command or
// option gets its page and its completion without an edit here. Nothing here
// parses or runs a command; the functions only read the app.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ad::cli {

// A sub-command as a man page names it: its words under the root ("policy
// check") and its description.
struct command_entry {
  std::string path;
  std::string description;
};

// Every sub-command shown by --help (a command in the empty group is hidden),
// depth first, each parent before its own sub-commands; not the root itself.
std::vector<command_entry> list_commands(const CLI::App& app);

// A bash script that completes app's sub-commands, their options (hidden
// ones left out), the choices of an option whose values are a fixed set,
// and file names for text values and positionals. Self-contained: it needs
// no bash-completion helpers.
std::string bash_completion(const CLI::App& app);

// Adds --list-commands (one "PATH<TAB>DESCRIPTION" line per command of
// list_commands) and --bash-completion (the script) to the root, both hidden
// from --help. Each prints to stdout and ends the parse with CLI::Success
// (exit 0) before a sub-command is required.
void add_outline_flags(CLI::App& app);

} // namespace ad::cli
