#include "runtime/run/task_files.hpp"

#include "runtime/attempt/attempt_files.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/attempt_snapshots.hpp"
#include "runtime/schedule/review_observe.hpp"
#include "runtime/schedule/review_progress.hpp"
#include "runtime/workspace/checklist.hpp"

namespace ad::runtime {

namespace {

std::string progress_signature_of(const task_spec& spec) {
  auto snap = snapshot_review_progress(spec.task_dir, spec.write_paths);
  return snap.is_ok() ? progress_signature(*snap) : std::string("unreadable");
}

class files final : public task_files {
public:
  launch_reading read_for_launch(const task_context& ctx, const task_spec& spec,
                                 const task_cmd::read_for_launch& cmd) const override {
    launch_reading r;
    r.write_set = current_write_set(spec.write_paths);
    if (cmd.review_baseline) {
      if (auto obs = observe_review(ctx.task_root, spec.name); obs.is_ok())
        r.review_seen = collect_seen_sources(*obs);
      r.review_signature = progress_signature_of(spec);
    }
    return r;
  }

  attempt_reading read_after_attempt(const task_context& ctx, const task_spec& spec,
                                     const task_cmd::read_after_attempt& cmd) const override {
    attempt_reading r;
    r.write_set = current_write_set(spec.write_paths);
    if (!cmd.succeeded) {
      r.stream_tail = log_tail(cmd.stream_log);
      return r;
    }
    switch (spec.stage) {
      case task_stage::worker:
        if (auto loc = read_locator_file(cmd.locator); loc.is_ok())
          r.runtime_identity = {loc->cli, loc->model};
        break;
      case task_stage::selfcheck:
        r.checklist = read_checklist_file(spec.review);
        break;
      default: {
        auto obs = observe_review(ctx.task_root, spec.name);
        r.review_observed = obs.is_ok();
        if (obs.is_ok())
          r.review = std::move(*obs);
        r.review_signature = progress_signature_of(spec);
        break;
      }
    }
    return r;
  }

  std::vector<named_file> named_files(const named_path_query& query) const override {
    return gather_named_files(query);
  }

  void remove_attempt_logs(const task_context& ctx, const task_spec& spec) const override {
    runtime::remove_attempt_logs(ctx.runs_dir, spec.name);
  }
};

} // namespace

const task_files& real_task_files() {
  static const files f;
  return f;
}

} // namespace ad::runtime
