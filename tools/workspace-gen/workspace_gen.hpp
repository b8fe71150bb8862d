#pragma once
// Synthetic workspaces for benchmarks and end-to-end tests: N tasks laid out
// as a chain, a wide fan-out or a random DAG (SPEC section 2: dependencies
// only inside a group, so a large DAG is a few groups of up to 99 subtasks),
// optionally with overlapping write sets. From the same plan it renders a
// build.ninja whose edges run the simulator's command mode for each task
// (worker, then review) so ninja and the dispatcher do the same work, an
// agent-sim scenario that scripts one failure of every class on chosen tasks,
// and a policy file tuned for fast runs (no quota probes, short backoff).
// Planning and rendering are pure and deterministic for a given seed;
// write_workspace is the only function that touches the file system. Errors
// are status values (invalid_argument for bad options, io_error for writes);
// nothing here throws or prints.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::workspace_gen {

enum class dag_shape : uint8_t { chain, fanout, random };

std::string_view to_string(dag_shape s);
runtime::result<dag_shape> dag_shape_from(std::string_view name);

struct gen_options {
  int tasks = 10;
  dag_shape shape = dag_shape::chain;
  uint64_t seed = 1;
  int group_size = 99;     // subtasks per group, 1..99
  double overlap = 0;      // share of tasks that also claim a file of the shared pool
  int shared_files = 4;    // size of the shared pool (src/shared/common_K.hpp)
  int max_deps = 3;        // random shape: predecessors per subtask, at most
};

struct gen_task {
  std::string group;               // "grp01"
  std::string slug;                // "t0007"
  std::string name;                // "grp01/03+01,02_t0007"
  int index = 0;                   // subtask index within the group, 1..99
  std::vector<int> deps;           // predecessor indexes in the same group
  std::vector<std::string> files;  // write set, workspace-relative
};

struct gen_plan {
  gen_options options;
  std::vector<gen_task> tasks;     // in group order, then index order
};

// Lays out the tasks; invalid_argument for out-of-range options.
runtime::result<gen_plan> plan_workspace(const gen_options& options);

// Writes agent-task/<group>/<subtask>/{PLAN,CODE_REVIEW}-cloud-G05.md for every
// task into dir (created when missing). Refuses a dir that already holds an
// agent-task/ folder (conflict) so a typo cannot mix two workspaces.
runtime::status write_workspace(const gen_plan& plan, const std::filesystem::path& dir);

struct ninja_options {
  std::filesystem::path workspace;   // absolute workspace the commands run in
  std::filesystem::path agent_sim;   // absolute path of the agent-sim binary
  std::filesystem::path stamp_dir;   // where edge outputs go (outside agent-task/)
};

// build.ninja: per task a worker edge (after its predecessors' reviews) and a
// review edge (after its worker), each `agent-sim --as command --role R
// --task T --workspace W`; `all` is the default target.
std::string render_ninja(const gen_plan& plan, const ninja_options& options);

// The failure classes the scenario scripts, in the order tasks are chosen.
const std::vector<std::string>& scripted_failure_names();

// An agent-sim scenario: one task per failure class (chosen by the seed,
// distinct tasks) whose first run of that role fails that way; every later
// run is competent. Fewer tasks than classes: the first classes only.
runtime::json failure_scenario(const gen_plan& plan);

// A policy overlay for agent-dispatch.json: the default targets without
// quota probes, short backoff and quota waits (seconds scaled by wait_scale).
runtime::json fast_policy(double wait_scale);

} // namespace ad::workspace_gen
