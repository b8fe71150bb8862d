#include "actors/scheduler/scheduler_io.hpp"

#include <optional>

#include "actors/scheduler/quota_prober.hpp"
#include "runtime/core/heap_tuning.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/schedule/review_observe.hpp"
#include "runtime/workspace/early_scan.hpp"
#include "runtime/worklog/work_log.hpp"
#include "runtime/worklog/work_log_archive.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::actors {

namespace {

std::optional<std::string> group_option(const run_context& ctx) {
  if (ctx.task_group.empty())
    return std::nullopt;
  return ctx.task_group;
}

class file_scheduler_io final : public scheduler_io {
public:
  file_scheduler_io(const run_context& ctx, std::unique_ptr<runtime::early_scan> scan)
      : ctx_(ctx), scan_(std::move(scan)) {}

  runtime::result<runtime::scan_reading> refresh_scan(
    const std::vector<std::string>& also) override {
    auto refreshed = scan_->refresh({also.begin(), also.end()});
    if (!refreshed)
      return refreshed.error();
    return scan_->scanner().reading(*refreshed);
  }

  std::map<std::string, std::vector<std::string>> archived_task_folders(
    const std::vector<std::string>& tasks) const override {
    std::map<std::string, std::vector<std::string>> out;
    for (auto& [task, folders] : runtime::find_archived_task_folders(ctx_.task_root, tasks))
      out[task].assign(folders.begin(), folders.end());
    return out;
  }

  std::map<std::string, bool> probe_work_logs(const std::vector<std::string>& tasks) override {
    std::map<std::string, bool> out;
    for (const auto& t : tasks)
      out[t] = runtime::probe_work_log_writable(
                 runtime::work_log_path(ctx_.workspace, runtime::task_group(t)))
                 .is_ok();
    return out;
  }

  runtime::work_log_archive_outcome archive_work_log(const std::string& group) override {
    runtime::work_log_archive_request req;
    req.workspace = ctx_.workspace;
    req.group = group;
    auto moved = runtime::archive_work_log(req, *ctx_.clk);
    runtime::work_log_archive_outcome out;
    out.attempted = true;
    out.ok = moved.is_ok();
    out.not_found = !out.ok && moved.error().is_not_found();
    out.error = out.ok ? "" : moved.error().message();
    return out;
  }

  void remove_attempt_logs(const std::string& task) override {
    runtime::remove_attempt_logs(ctx_.runs_dir, task);
  }

  std::vector<runtime::active_stage_reading> read_active_stages(
    const runtime::state_model& state) override {
    return runtime::read_active_stages(state, {ctx_.workspace, ctx_.workspace_id, ctx_.runs_dir},
                                       *ctx_.clk, {});
  }

  messages::task_actor start_task(messages::scheduler_actor::pointer self,
                                  const run_context_ptr& ctx, const task_spec& spec) override {
    runtime::heap_after_admission();
    return self->spawn(task_actor_impl, ctx, spec, messages::scheduler_actor{self});
  }

  // Detached: a probe runs a command and waits for it.
  messages::quota_prober_actor start_quota_prober(
    messages::scheduler_actor::pointer self) override {
    return self->spawn<caf::detached + caf::linked>(quota_prober_impl,
                                                    std::chrono::milliseconds(30'000));
  }

private:
  const run_context& ctx_;
  std::unique_ptr<runtime::early_scan> scan_;
};

} // namespace

std::unique_ptr<scheduler_io> make_file_scheduler_io(const run_context& ctx,
                                                     std::unique_ptr<runtime::early_scan> scan) {
  if (!scan)
    scan = std::make_unique<runtime::early_scan>(ctx.workspace, group_option(ctx));
  return std::make_unique<file_scheduler_io>(ctx, std::move(scan));
}

} // namespace ad::actors
