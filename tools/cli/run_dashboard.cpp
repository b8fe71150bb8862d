#include "tools/cli/run_dashboard.hpp"

#include "runtime/observe/attempt_log.hpp"
#include "runtime/report/event_render.hpp"

namespace ad::cli {

runtime::result<std::unique_ptr<run_dashboard>> run_dashboard::start(
  const dashboard_settings& settings, runtime::dashboard_options options,
  std::shared_ptr<const runtime::clock> clock, const std::string& runs_dir,
  const std::string& workspace) {
  std::unique_ptr<run_dashboard> d(new run_dashboard());
  d->view_ = std::make_shared<shared>();
  d->view_->model = runtime::dashboard_model(std::move(options));
  d->view_->clock = std::move(clock);
  d->view_->output = std::make_unique<runtime::attempt_output_reader>(runs_dir);
  d->events_ = std::make_shared<runtime::event_fanout>();
  dashboard_source source;
  auto output = [view = d->view_.get()](const std::string& identity, const std::string& locator) {
    return view->output->live(identity, locator);  // under the view's mutex
  };
  source.state = [view = d->view_, output] {
    std::lock_guard lock(view->mutex);
    return view->model.state(view->clock->now(), output);
  };
  source.task = [view = d->view_, output, workspace,
                 interventions = d->interventions_](const std::string& name) {
    std::optional<runtime::json> j;
    {
      std::lock_guard lock(view->mutex);
      j = view->model.task(name, view->clock->now(), output);
    }
    if (!j)
      return j;
    (*j)["work_log"] = runtime::task_work_log_rows(workspace, name);
    std::lock_guard lock(interventions->mutex);
    (*j)["intervention"] = interventions->reader ? interventions->reader->of(name) : nullptr;
    return j;
  };
  source.log = [runs_dir](const std::string& identity, const std::string& file, uint64_t offset,
                          size_t limit) {
    return runtime::attempt_log_page(runs_dir, identity, file, offset, limit);
  };
  source.targets = [view = d->view_, output] {
    std::lock_guard lock(view->mutex);
    return view->model.targets(view->clock->now(), output);
  };
  source.nodes = [view = d->view_, output] {
    std::lock_guard lock(view->mutex);
    return view->model.nodes(view->clock->now(), output);
  };
  auto server = dashboard_server::start(settings, std::move(source), d->events_);
  if (!server)
    return server.error();
  d->server_ = std::move(*server);
  return d;
}

void run_dashboard::observe(const runtime::run_event& event) {
  {
    std::lock_guard lock(view_->mutex);
    view_->model.apply(event);
  }
  events_->publish(sse_message("run_event", runtime::run_event_json(event)));
}

void run_dashboard::read_interventions(runtime::task_intervention_reader reader) {
  std::lock_guard lock(interventions_->mutex);
  interventions_->reader = std::move(reader);
}

void run_dashboard::observe_cooldowns(const runtime::target_cooldowns& cooldowns) {
  std::map<std::string, runtime::dashboard_cooldown> now;
  for (const auto& [target, e] : cooldowns.entries())
    now[target] = {e.until, e.reason};
  {
    std::lock_guard lock(view_->mutex);
    if (!view_->model.set_cooldowns(std::move(now)))
      return;
  }
  events_->publish(sse_message("cooldowns", runtime::json::object()));
}

} // namespace ad::cli
