#include "tools/cli/run_dashboard.hpp"

#include "runtime/report/event_render.hpp"

namespace ad::cli {

runtime::result<std::unique_ptr<run_dashboard>> run_dashboard::start(
  const dashboard_settings& settings, runtime::dashboard_options options,
  std::shared_ptr<const runtime::clock> clock, const std::string& runs_dir) {
  std::unique_ptr<run_dashboard> d(new run_dashboard());
  d->view_ = std::make_shared<shared>();
  d->view_->model = runtime::dashboard_model(std::move(options));
  d->view_->clock = std::move(clock);
  d->view_->output = std::make_unique<runtime::attempt_output_reader>(runs_dir);
  d->events_ = std::make_shared<runtime::event_fanout>();
  dashboard_source source;
  auto output = [view = d->view_.get()](const std::string& identity, const std::string& locator) {
    return (*view->output)(identity, locator);  // under the view's mutex
  };
  source.state = [view = d->view_, output] {
    std::lock_guard lock(view->mutex);
    return view->model.state(view->clock->now(), output);
  };
  source.task = [view = d->view_, output](const std::string& name) {
    std::lock_guard lock(view->mutex);
    return view->model.task(name, view->clock->now(), output);
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

} // namespace ad::cli
