// Writes outside a task's claim in a real `run` (docs/claims.md), end to end
// with the simulator under its keeper: the attempt actor tells the run's
// claim watcher when each agent starts and ends, and a worker that writes a
// file outside its write set is recorded, shown and (under `block`) stopped:
// - with fanotify (the default `watch: auto`, as root), named by its marker;
// - with snapshots forced (`watch: snapshots`), by elimination;
// - `on_violation: block` blocks the writer's task, exit 2.
#include <csignal>
#include <gtest/gtest.h>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/e2e/fleet/fleet_support.hpp"

namespace ad::test {
namespace {

using namespace std::chrono_literals;
using runtime::json;
namespace fs = std::filesystem;
namespace wg = workspace_gen;

class claims_run : public ::testing::Test {
protected:
  void TearDown() override { stop_runs_and_agents(runs_, f_); }

  // Two independent tasks; the first one's worker writes STRAY.md (in no
  // write set) before doing its work. Every write of the simulator goes
  // through a temporary file renamed into place, as many tools do: those
  // are no violations. The policy gets `claims`.
  void create(const json& claims) {
    wg::gen_options o;
    o.tasks = 2;
    o.shape = wg::dag_shape::chain;
    o.group_size = 1;
    auto planned = wg::plan_workspace(o);
    ASSERT_TRUE(planned.is_ok()) << planned.error().message();
    writer_ = planned->tasks[0].name;
    json tasks = json::object();
    // It lives on for a while (events every 0.1 s real time), as an agent
    // does, so its writes are drained while it runs.
    json chatter{{"kind", "events"}, {"count", 5}, {"interval_seconds", 10}};
    tasks[writer_]["worker"]["1"] = json::array(
      {chatter, json{{"kind", "write"}, {"path", "STRAY.md"}, {"content", "stray\n"}}, chatter,
       json{{"kind", "work"}}});
    f_.create(o, json{{"version", 1}, {"tasks", tasks}});
    if (HasFatalFailure())
      return;
    auto policy_file = f_.workspace / "agent-dispatch.json";
    auto policy = runtime::parse_json(read_text(policy_file), policy_file.string());
    ASSERT_TRUE(policy.is_ok()) << policy.error().message();
    (*policy)["claims"] = claims;
    ASSERT_TRUE(runtime::write_file_atomic(policy_file, runtime::dump_json(*policy, 2),
                                           runtime::durability::buffered)
                  .is_ok());
  }

  // Runs a dispatcher command to its end; its exit code.
  int run_to_end(const std::vector<std::string>& args, const std::string& log) {
    runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(f_, args, log)));
    auto& r = *runs_.back();
    std::optional<int> code;
    for (auto until = std::chrono::steady_clock::now() + 120s;
         !code && std::chrono::steady_clock::now() < until;)
      code = r.wait(20ms);
    EXPECT_TRUE(code.has_value()) << r.tail();
    last_ = &r;
    return code.value_or(-1);
  }

  // The claim_violation events of the last command's --json output.
  std::vector<json> violations() const {
    std::vector<json> out;
    const std::string text = last_->out();
    size_t pos = 0;
    while (pos < text.size()) {
      auto end = text.find('\n', pos);
      if (end == std::string::npos)
        end = text.size();
      auto doc = runtime::parse_json(text.substr(pos, end - pos), "event");
      if (doc.is_ok() && doc->value("event", "") == "claim_violation")
        out.push_back(*doc);
      pos = end + 1;
    }
    return out;
  }

  std::string stray() const { return (fs::canonical(f_.workspace) / "STRAY.md").string(); }

  fleet f_;
  std::string writer_;
  std::vector<std::unique_ptr<child_run>> runs_;
  child_run* last_ = nullptr;
};

std::vector<std::string> run_json(const fleet& f) {
  return {"run", "--workspace", f.workspace.string(), "--max-parallel", "1", "--json"};
}

TEST_F(claims_run, with_fanotify_the_agent_writing_outside_its_claim_is_named_by_its_marker) {
  create(json{{"watch", "auto"}, {"on_violation", "warn"}});
  if (HasFatalFailure())
    return;
  ASSERT_EQ(run_to_end(run_json(f_), "run"), 0) << last_->tail();
  auto seen = violations();
  ASSERT_EQ(seen.size(), 1u) << "fanotify refused here? " << last_->tail();
  EXPECT_EQ(seen[0].value("task", ""), writer_);
  EXPECT_EQ(seen[0].value("path", ""), stray());
  EXPECT_EQ(seen[0].value("attribution", ""), "fanotify");
  EXPECT_EQ(seen[0].value("action", ""), "warn");
  EXPECT_EQ(f_.archived_tasks().size(), 2u) << "warn stops nothing";

  // The durable record, as `status` shows it.
  ASSERT_EQ(run_to_end({"status", "--workspace", f_.workspace.string()}, "status"), 0);
  EXPECT_NE(last_->out().find("claim violation: " + writer_), std::string::npos) << last_->out();
  EXPECT_NE(last_->out().find("wrote " + stray() + " outside its claim"), std::string::npos);
}

TEST_F(claims_run, with_snapshots_forced_the_lone_running_agent_is_the_writer_by_elimination) {
  create(json{{"watch", "snapshots"}, {"on_violation", "warn"}});
  if (HasFatalFailure())
    return;
  ASSERT_EQ(run_to_end(run_json(f_), "run"), 0) << last_->tail();
  auto seen = violations();
  ASSERT_EQ(seen.size(), 1u) << last_->tail();
  EXPECT_EQ(seen[0].value("task", ""), writer_);
  EXPECT_EQ(seen[0].value("path", ""), stray());
  EXPECT_EQ(seen[0].value("attribution", ""), "elimination");
  EXPECT_EQ(f_.archived_tasks().size(), 2u);
}

TEST_F(claims_run, under_block_the_writers_task_is_blocked_and_the_run_exits_2) {
  create(json{{"watch", "snapshots"}, {"on_violation", "block"}});
  if (HasFatalFailure())
    return;
  EXPECT_EQ(run_to_end(run_json(f_), "run"), 2) << last_->tail();
  auto seen = violations();
  ASSERT_EQ(seen.size(), 1u) << last_->tail();
  EXPECT_EQ(seen[0].value("action", ""), "block");
  auto archived = f_.archived_tasks();
  EXPECT_EQ(archived.count(writer_), 0u) << "the writer went on to its review";
  ASSERT_EQ(run_to_end({"status", "--workspace", f_.workspace.string()}, "status"), 0);
  EXPECT_NE(last_->out().find(stray()), std::string::npos) << last_->out();
}

} // namespace
} // namespace ad::test
