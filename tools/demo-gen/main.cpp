// ad-demo-gen: writes a demo workspace for agent-dispatch.
//   ad-demo-gen DIR [--scenario NAME] [--fresh]   (--list prints the scenarios)
#include <CLI/CLI.hpp>
#include <iostream>

#include "tools/demo-gen/demo_workspace.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ad-demo-gen: write a demo workspace (agent-task/ folders) for agent-dispatch"};
  app.set_version_flag("--version", AD_VERSION);
  std::string dir;
  std::string scenario = ad::demo::demo_scenarios().front().name;
  bool fresh = false;
  bool list = false;
  app.add_option("DIR", dir, "folder to create the workspace in");
  app.add_option("--scenario", scenario, "scenario name (see --list)");
  app.add_flag("--fresh", fresh, "replace DIR when it is an earlier demo workspace");
  app.add_flag("--list", list, "list the scenarios and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, std::cout, std::cerr);
    return code == 0 ? 0 : 2;
  }
  if (list) {
    for (const auto& s : ad::demo::demo_scenarios())
      std::cout << s.name << ": " << s.description << "\n";
    return 0;
  }
  if (dir.empty()) {
    std::cerr << "ad-demo-gen: DIR is required\n";
    return 2;
  }
  auto st = ad::demo::generate_demo(
      dir, scenario, fresh ? ad::demo::replace_mode::replace : ad::demo::replace_mode::refuse);
  if (!st.is_ok()) {
    std::cerr << "ad-demo-gen: " << st.message() << "\n";
    return 2;
  }
  std::cout << "ad-demo-gen: wrote scenario '" << scenario << "' to " << dir << "\n";
  return 0;
}
