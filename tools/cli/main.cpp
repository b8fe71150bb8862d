// agent-dispatch: the command-line entry point. The only place that prints to
// the terminal and chooses the exit code.
#include <CLI/CLI.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  CLI::App app{"agent-dispatch: run fleets of AI coding agents over a repository's task folders"};
  app.set_version_flag("--version", AD_VERSION);
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
