// ad-keeper: starts one agent and keeps it, its output and its exit status,
// independent of the dispatcher that started it (docs/keeper.md). It talks
// to the dispatcher only through files in the attempt folder and signals.

#include <cstdio>
#include <string_view>
#include <sys/stat.h>
#include <vector>

#include "runtime/keeper/keeper_args.hpp"
#include "tools/keeper/keeper_run.hpp"

int main(int argc, char** argv) {
  using namespace ad;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  auto parsed = runtime::parse_keeper_args(args);
  if (!parsed) {
    std::fprintf(stderr, "ad-keeper: %s\n%.*s", parsed.error().message().c_str(),
                 static_cast<int>(runtime::keeper_usage().size()), runtime::keeper_usage().data());
    return keeper::exit_usage;
  }
  if (parsed->command == runtime::keeper_command::help) {
    std::fwrite(runtime::keeper_usage().data(), 1, runtime::keeper_usage().size(), stdout);
    return keeper::exit_ok;
  }
  const runtime::keeper_invocation& inv = parsed->invocation;
  struct stat st {};
  if (!inv.lease_file.empty() && ::stat(inv.lease_file.c_str(), &st) != 0) {
    std::fprintf(stderr, "ad-keeper: --lease-file: %s does not exist\n", inv.lease_file.c_str());
    return keeper::exit_usage;
  }
  keeper::keeper_outcome outcome = keeper::run_keeper(inv);
  if (!outcome.message.empty())
    std::fprintf(stderr, "ad-keeper: %s\n", outcome.message.c_str());
  return outcome.exit_code;
}
