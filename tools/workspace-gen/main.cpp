// workspace-gen: writes an N-task workspace (chain, fan-out or random DAG) for
// benchmarks and end-to-end tests, plus optionally a build.ninja running the
// same work through the simulator, a failure scenario and a fast policy.
//   workspace-gen --tasks N --shape chain|fanout|random --seed S --out DIR
//                 [--overlap F] [--ninja FILE] [--scenario FILE] [--fast-policy]
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "tools/workspace-gen/workspace_gen.hpp"

namespace {

namespace fs = std::filesystem;
namespace wg = ad::workspace_gen;

// The agent-sim built next to this tool, when there is one.
fs::path default_agent_sim() {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    return "agent-sim";
  return self.parent_path() / "agent-sim";
}

int fail(const std::string& message) {
  std::cerr << "workspace-gen: " << message << "\n";
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"workspace-gen: write a synthetic agent-task/ workspace for benchmarks and tests"};
  app.set_version_flag("--version", AD_VERSION);
  wg::gen_options opt;
  std::string shape = "chain";
  std::string out, ninja_file, ninja_workspace, stamp_dir, scenario_file, agent_sim;
  bool fast_policy = false;
  double wait_scale = 1.0;
  app.add_option("--tasks", opt.tasks, "number of tasks")->required();
  app.add_option("--shape", shape, "chain, fanout or random")
      ->check(CLI::IsMember({"chain", "fanout", "random"}));
  app.add_option("--seed", opt.seed, "seed for the random shape, overlaps and failure choice");
  app.add_option("--out", out, "workspace folder to create")->required();
  app.add_option("--group-size", opt.group_size, "subtasks per group (1..99)");
  app.add_option("--overlap", opt.overlap,
                 "share of tasks that also claim one file of a small shared pool (0..1)");
  app.add_option("--shared-files", opt.shared_files, "size of the shared pool");
  app.add_option("--max-deps", opt.max_deps, "random shape: most predecessors per subtask");
  app.add_option("--ninja", ninja_file, "also write a build.ninja running the same work");
  app.add_option("--ninja-workspace", ninja_workspace,
                 "workspace the ninja commands run in (default: --out)");
  app.add_option("--stamp-dir", stamp_dir, "ninja edge outputs (default: <ninja file dir>/stamps)");
  app.add_option("--agent-sim", agent_sim, "agent-sim binary for the ninja commands");
  app.add_option("--scenario", scenario_file,
                 "also write an agent-sim scenario with one failure of every class");
  app.add_flag("--fast-policy", fast_policy,
               "write <out>/agent-dispatch.json: default targets without quota probes, short "
               "backoff and quota waits");
  app.add_option("--wait-scale", wait_scale, "multiplies the fast policy's waits");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, std::cout, std::cerr);
    return code == 0 ? 0 : 2;
  }
  auto parsed_shape = wg::dag_shape_from(shape);
  if (!parsed_shape)
    return fail(parsed_shape.error().message());
  opt.shape = *parsed_shape;
  auto plan = wg::plan_workspace(opt);
  if (!plan)
    return fail(plan.error().message());
  std::error_code ec;
  fs::path out_dir = fs::absolute(out, ec);
  auto st = wg::write_workspace(*plan, out_dir);
  if (!st)
    return fail(st.message());
  if (fast_policy) {
    st = ad::runtime::write_file_atomic(out_dir / "agent-dispatch.json",
                                        ad::runtime::dump_json(wg::fast_policy(wait_scale), 2) + "\n",
                                        ad::runtime::durability::buffered);
    if (!st)
      return fail(st.message());
  }
  if (!scenario_file.empty()) {
    st = ad::runtime::write_file_atomic(scenario_file,
                                        ad::runtime::dump_json(wg::failure_scenario(*plan), 2) + "\n",
                                        ad::runtime::durability::buffered);
    if (!st)
      return fail(st.message());
  }
  if (!ninja_file.empty()) {
    fs::path ninja_path = fs::absolute(ninja_file, ec);
    wg::ninja_options n;
    n.workspace = ninja_workspace.empty() ? out_dir : fs::absolute(ninja_workspace, ec);
    n.agent_sim = agent_sim.empty() ? default_agent_sim() : fs::absolute(agent_sim, ec);
    n.stamp_dir = stamp_dir.empty() ? ninja_path.parent_path() / "stamps" : fs::absolute(stamp_dir, ec);
    auto made = ad::runtime::make_directories(ninja_path.parent_path());
    if (!made)
      return fail(made.message());
    st = ad::runtime::write_file_atomic(ninja_path, wg::render_ninja(*plan, n),
                                        ad::runtime::durability::buffered);
    if (!st)
      return fail(st.message());
  }
  std::cout << "workspace-gen: " << plan->tasks.size() << " tasks (" << shape << ", seed "
            << opt.seed << ") in " << out_dir.string() << "\n";
  return 0;
}
