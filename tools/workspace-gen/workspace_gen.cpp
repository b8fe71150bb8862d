#include "tools/workspace-gen/workspace_gen.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

#include "runtime/policy/policy.hpp"
#include "tools/demo-gen/demo_workspace.hpp"

namespace ad::workspace_gen {

namespace fs = std::filesystem;
using runtime::json;

namespace {

std::string two_digits(int n) {
  char buf[16]; // any int fits: "-2147483648"
  std::snprintf(buf, sizeof buf, "%02d", n);
  return buf;
}

std::string subtask_folder(int index, const std::vector<int>& deps, const std::string& slug) {
  std::string out = two_digits(index);
  for (size_t i = 0; i < deps.size(); ++i)
    out += (i == 0 ? "+" : ",") + two_digits(deps[i]);
  return out + "_" + slug;
}

// Predecessors of subtask `index` (1-based) of a group for the given shape.
std::vector<int> deps_for(dag_shape shape, int index, int max_deps, std::mt19937_64& rng) {
  if (index == 1)
    return {};
  switch (shape) {
    case dag_shape::chain:
      return {index - 1};
    case dag_shape::fanout:
      return {1};
    case dag_shape::random:
      break;
  }
  int limit = std::min(max_deps, index - 1);
  int count = static_cast<int>(rng() % static_cast<uint64_t>(limit + 1));
  std::set<int> picked;
  while (static_cast<int>(picked.size()) < count)
    picked.insert(1 + static_cast<int>(rng() % static_cast<uint64_t>(index - 1)));
  return {picked.begin(), picked.end()};
}

// The plan and review files' shared content for one generated task.
demo::demo_plan plan_of(const gen_task& t) {
  demo::demo_plan p;
  p.task = t.name;
  p.lane = "cloud";
  p.grade = 5;
  p.tag = "gen";
  p.goal = "Generated task " + t.slug + " of group " + t.group + ": update the files below.";
  for (const auto& f : t.files)
    p.files.push_back("`" + f + "`");
  p.steps = {"Edit every file of the Modified Files Summary", "Record the change in the review"};
  return p;
}

} // namespace

std::string_view to_string(dag_shape s) {
  switch (s) {
    case dag_shape::chain: return "chain";
    case dag_shape::fanout: return "fanout";
    case dag_shape::random: return "random";
  }
  return "chain";
}

runtime::result<dag_shape> dag_shape_from(std::string_view name) {
  for (auto s : {dag_shape::chain, dag_shape::fanout, dag_shape::random})
    if (to_string(s) == name)
      return s;
  return runtime::status::invalid_argument("unknown shape '" + std::string(name) +
                                           "' (chain, fanout, random)");
}

runtime::result<gen_plan> plan_workspace(const gen_options& o) {
  if (o.tasks < 1 || o.tasks > 99 * 999)
    return runtime::status::invalid_argument("--tasks must be 1..98901");
  if (o.group_size < 1 || o.group_size > 99)
    return runtime::status::invalid_argument("--group-size must be 1..99");
  if (o.overlap < 0 || o.overlap > 1)
    return runtime::status::invalid_argument("--overlap must be within 0..1");
  if (o.shared_files < 1 || o.max_deps < 0)
    return runtime::status::invalid_argument("--shared-files must be >= 1 and --max-deps >= 0");
  gen_plan plan;
  plan.options = o;
  std::mt19937_64 rng(o.seed);
  // Balanced groups: as few as the group size allows, sizes differing by one.
  int groups = (o.tasks + o.group_size - 1) / o.group_size;
  int base = o.tasks / groups, extra = o.tasks % groups;
  int serial = 0;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int g = 0; g < groups; ++g) {
    int size = base + (g < extra ? 1 : 0);
    std::string group = "grp" + (groups > 99 ? std::to_string(g + 1) : two_digits(g + 1));
    for (int i = 1; i <= size; ++i) {
      gen_task t;
      t.group = group;
      char slug[16];
      std::snprintf(slug, sizeof slug, "t%04d", ++serial);
      t.slug = slug;
      t.index = i;
      t.deps = deps_for(o.shape, i, o.max_deps, rng);
      t.name = group + "/" + subtask_folder(i, t.deps, t.slug);
      t.files = {"src/" + group + "/" + t.slug + ".cpp", "src/" + group + "/" + t.slug + ".hpp"};
      if (o.overlap > 0 && unit(rng) < o.overlap)
        t.files.push_back("src/shared/common_" +
                          std::to_string(rng() % static_cast<uint64_t>(o.shared_files)) + ".hpp");
      plan.tasks.push_back(std::move(t));
    }
  }
  return plan;
}

runtime::status write_workspace(const gen_plan& plan, const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir / "agent-task", ec))
    return runtime::status::conflict(dir.string() +
                                     " already holds agent-task/; choose an empty folder");
  demo::demo_writer w(dir);
  for (const auto& t : plan.tasks)
    w.active_task(plan_of(t));
  return w.result();
}

std::string render_ninja(const gen_plan& plan, const ninja_options& o) {
  // Ninja paths: escape '$', ' ' and ':' (none occur in generated names, but
  // the workspace and tool paths come from the caller).
  auto esc = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '$' || c == ' ' || c == ':')
        out += '$';
      out += c;
    }
    return out;
  };
  std::string out;
  out += "# Generated by workspace-gen: " + std::to_string(plan.tasks.size()) + " tasks, shape " +
         std::string(to_string(plan.options.shape)) + ", seed " +
         std::to_string(plan.options.seed) + ".\n";
  out += "# Each task: a worker edge after its predecessors' reviews, then a review edge.\n";
  out += "ninja_required_version = 1.5\n";
  out += "sim = " + esc(o.agent_sim.string()) + "\n";
  out += "ws = " + esc(o.workspace.string()) + "\n";
  out += "stamps = " + esc(o.stamp_dir.string()) + "\n\n";
  out += "rule agent\n";
  out += "  command = $sim --as command --role $role --task $task --workspace $ws\n";
  out += "  description = $role $task\n\n";
  // index -> slug per group, to name predecessor stamps.
  std::string current_group;
  std::vector<std::string> slug_by_index;
  std::string all;
  for (const auto& t : plan.tasks) {
    if (t.group != current_group) {
      current_group = t.group;
      slug_by_index.assign(100, std::string());
    }
    slug_by_index[static_cast<size_t>(t.index)] = t.slug;
    out += "build $stamps/" + t.slug + ".worker: agent";
    if (!t.deps.empty()) {
      out += " |";
      for (int d : t.deps)
        out += " $stamps/" + slug_by_index[static_cast<size_t>(d)] + ".review";
    }
    out += "\n  role = worker\n  task = " + esc(t.name) + "\n";
    out += "build $stamps/" + t.slug + ".review: agent $stamps/" + t.slug + ".worker\n";
    out += "  role = review\n  task = " + esc(t.name) + "\n";
    all += " $stamps/" + t.slug + ".review";
  }
  out += "\nbuild all: phony" + all + "\ndefault all\n";
  return out;
}

const std::vector<std::string>& scripted_failure_names() {
  static const std::vector<std::string> names = {
      "rate_limit",        "quota_exceeded",      "resource_exhausted", "context_length",
      "model_unavailable", "connection_refused",  "stream_disconnected", "file_exists",
      "file_not_found",    "error",               "signal",             "review_overloaded",
      "review_fail_verdict"};
  return names;
}

json failure_scenario(const gen_plan& plan) {
  // Distinct tasks, chosen by the seed.
  std::vector<size_t> order(plan.tasks.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::mt19937_64 rng(plan.options.seed ^ 0x5eedf00dULL);
  std::shuffle(order.begin(), order.end(), rng);

  json tasks = json::object();
  const auto& names = scripted_failure_names();
  for (size_t k = 0; k < names.size() && k < order.size(); ++k) {
    const auto& t = plan.tasks[order[k]];
    const auto& kind = names[k];
    json first = json::array();
    std::string role = "worker";
    if (kind == "rate_limit") {
      first = {{{"kind", "events"}, {"count", 2}},
               {{"kind", "fail"}, {"failure", "rate_limit"}, {"retry_after_seconds", 1}}};
    } else if (kind == "stream_disconnected") {
      first = {{{"kind", "events"}, {"count", 3}},
               {{"kind", "fail"}, {"failure", "stream_disconnected"}}};
    } else if (kind == "file_exists") {
      first = {{{"kind", "work"}, {"checklist", "none"}},
               {{"kind", "fail"}, {"failure", "file_exists"}, {"path", t.files.front()}}};
    } else if (kind == "file_not_found") {
      first = {{{"kind", "fail"},
                {"failure", "file_not_found"},
                {"path", "src/" + t.group + "/missing_" + t.slug + ".hpp"}}};
    } else if (kind == "error") {
      first = {{{"kind", "fail"}, {"failure", "error"}, {"message", "segfault in tool"},
                {"exit_code", 3}}};
    } else if (kind == "signal") {
      first = {{{"kind", "events"}, {"count", 1}},
               {{"kind", "fail"}, {"failure", "error"}, {"signal", "SIGKILL"}}};
    } else if (kind == "review_overloaded") {
      role = "review";
      first = {{{"kind", "fail"}, {"failure", "model_overloaded"}}};
    } else if (kind == "review_fail_verdict") {
      role = "review";
      first = {{{"kind", "review"}, {"verdict", "FAIL"}}};
    } else {
      first = {{{"kind", "fail"}, {"failure", kind}}};
    }
    tasks[t.name] = {{role, {{"1", {{"actions", first}}}}}};
  }
  return {{"version", 1},
          {"description", "workspace-gen: one scripted failure of every class, then competent runs"},
          {"tasks", tasks}};
}

json fast_policy(double wait_scale) {
  json targets = runtime::default_policy_json().at("targets");
  for (auto& t : targets)
    t.erase("quota_probe");
  auto s = [&](double seconds) { return seconds * wait_scale; };
  return {{"targets", targets},
          {"backoff", {{"initial_s", s(0.1)}, {"coefficient", 2}, {"max_s", s(1)}}},
          {"timeouts",
           {{"heartbeat_s", 30},
            {"silence_inspection_s", 180},
            {"stall_limit_s", 0},
            {"reset_wait_max_s", s(2)},
            {"quota_cooldown_s", s(2)}}}};
}

} // namespace ad::workspace_gen
