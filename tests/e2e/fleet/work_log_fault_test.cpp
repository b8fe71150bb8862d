// The work log's fault loop, end to end (docs/work-log.md): for every k, the
// k-th row write of a dispatcher goes wrong as a full disk or a crash makes
// it (AD_TEST_WORK_LOG_FAULT, docs/test-hooks.md):
//   once   the write is cut short by ENOSPC, later writes succeed;
//   full   the same, and the disk stays full until the dispatcher ends;
//   crash  the write is cut short and the dispatcher dies at once.
// Then the dispatcher is started again (space came back) and must finish
// the run: the task completes exactly once, and its archived work log reads
// as a timeline (no foreign or torn line, every START closed). Before torn
// rows were recognized, a row cut short blocked every restart with exit 3
// ("line N is not a timeline row and cannot be merged safely").
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/core/files.hpp"
#include "runtime/worklog/work_log.hpp"
#include "tests/e2e/fleet/fleet_support.hpp"

namespace ad::test {
namespace {

using namespace std::chrono_literals;
using runtime::json;
namespace fs = std::filesystem;
namespace wg = workspace_gen;

// work_log_<n>.log files under the workspace's archive.
std::vector<fs::path> archived_work_logs(const fs::path& workspace) {
  std::vector<fs::path> out;
  std::error_code ec;
  auto root = workspace / "agent-task" / "archive";
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.starts_with("work_log_") && name.ends_with(".log"))
      out.push_back(it->path());
  }
  return out;
}

class work_log_fault : public ::testing::Test {
protected:
  void TearDown() override {
    ::unsetenv("AD_TEST_WORK_LOG_FAULT");
    if (f_)
      stop_runs_and_agents(runs_, *f_);
  }

  void fresh_fleet() {
    if (f_)
      stop_runs_and_agents(runs_, *f_);
    f_ = std::make_unique<fleet>();
    wg::gen_options o;
    o.tasks = 1;
    o.shape = wg::dag_shape::chain;
    o.group_size = 1;
    f_->create(o, json{{"version", 1}}); // a competent worker and a passing review
  }

  // Runs the dispatcher to its end; the exit code.
  std::optional<int> run(const std::string& log) {
    runs_.push_back(std::make_unique<child_run>(child_run::start_dispatcher(
      *f_, {"run", "--workspace", f_->workspace.string(), "--max-parallel", "1"}, log)));
    auto code = runs_.back()->wait(120s);
    last_ = runs_.back().get();
    return code;
  }

  // The run completed the task once and left a readable timeline.
  void check_outcome(const std::string& label) {
    SCOPED_TRACE(label);
    const auto& task = f_->plan.tasks.front().name;
    EXPECT_EQ(f_->archived_tasks()[task], 1) << last_->tail();
    auto logs = archived_work_logs(f_->workspace);
    ASSERT_EQ(logs.size(), 1u) << last_->tail();
    auto text = runtime::read_file(logs.front());
    ASSERT_TRUE(text.is_ok()) << text.error().message();
    auto doc = runtime::parse_work_log(*text);
    EXPECT_TRUE(doc.foreign.empty()) << *text;
    EXPECT_TRUE(doc.torn.empty()) << *text;
    // Each attempt's START once, and closed by one FINISH.
    std::map<std::tuple<std::string, std::string, int>, int> starts, finishes;
    for (const auto& r : doc.rows) {
      auto key = std::make_tuple(r.task, r.role, r.attempt);
      if (r.event == "START")
        ++starts[key];
      else if (r.event == "FINISH")
        ++finishes[key];
    }
    EXPECT_FALSE(starts.empty());
    for (const auto& [key, n] : starts) {
      EXPECT_EQ(n, 1) << std::get<1>(key) << " attempt " << std::get<2>(key) << "\n" << *text;
      EXPECT_EQ(finishes[key], 1) << std::get<1>(key) << " attempt " << std::get<2>(key) << "\n"
                                  << *text;
    }
    EXPECT_FALSE(fs::exists(runtime::work_log_path(f_->workspace, task.substr(0, task.find('/')))))
      << "the live work log was not archived";
  }

  std::unique_ptr<fleet> f_;
  std::vector<std::unique_ptr<child_run>> runs_;
  child_run* last_ = nullptr;
};

TEST_F(work_log_fault, every_write_failing_once_or_until_space_returns_or_in_a_crash_heals) {
  // How many row writes a clean run makes.
  fresh_fleet();
  ASSERT_FALSE(HasFatalFailure());
  auto clean = run("clean");
  ASSERT_TRUE(clean.has_value());
  ASSERT_EQ(*clean, 0) << last_->tail();
  check_outcome("clean run");
  auto logs = archived_work_logs(f_->workspace);
  ASSERT_EQ(logs.size(), 1u);
  const auto writes = runtime::parse_work_log(*runtime::read_file(logs.front())).rows.size();
  ASSERT_GE(writes, 4u); // START and FINISH of the worker and the review

  int torn_seen = 0;
  for (const std::string mode : {"once", "full", "crash"}) {
    for (std::size_t k = 1; k <= writes; ++k) {
      const std::string label = mode + " k=" + std::to_string(k);
      fresh_fleet();
      ASSERT_FALSE(HasFatalFailure()) << label;
      ::setenv("AD_TEST_WORK_LOG_FAULT", (std::to_string(k) + ":" + mode).c_str(), 1);
      auto faulted = run("faulted");
      ::unsetenv("AD_TEST_WORK_LOG_FAULT");
      ASSERT_TRUE(faulted.has_value()) << label << "\n" << last_->tail();
      if (mode == "crash") {
        EXPECT_EQ(*faulted, 86) << label << ": no crash at the write\n" << last_->tail();
      }
      auto resumed = run("resumed");
      ASSERT_TRUE(resumed.has_value()) << label << "\n" << last_->tail();
      EXPECT_EQ(*resumed, 0) << label << "\n" << last_->tail();
      check_outcome(label);
      // A row cut by the crash was moved aside and said so.
      if (mode == "crash" && last_->err().find("was cut short by a write that did not finish") !=
                               std::string::npos)
        ++torn_seen;
      if (HasFailure())
        return;
    }
  }
  EXPECT_GT(torn_seen, 0) << "no crash left a torn row for a restart to heal";
}

} // namespace
} // namespace ad::test
