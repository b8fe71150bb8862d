#include "runtime/report/logging.hpp"

#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <vector>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/spdlog.h>

namespace ad::runtime {

namespace {

// stderr for people, or held for the board (hold_console).
class console_sink final : public spdlog::sinks::base_sink<std::mutex> {
public:
  void hold(bool on) {
    std::lock_guard lock(mutex_);
    held_on_ = on;
    if (on)
      return;
    for (const auto& line : held_)
      std::fprintf(stderr, "agent-dispatch: %s\n", line.c_str());
    std::fflush(stderr);
    held_.clear();
  }
  std::vector<std::string> take() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out(held_.begin(), held_.end());
    held_.clear();
    return out;
  }

protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (held_on_) {
      auto level = spdlog::level::to_string_view(msg.level);
      held_.push_back(std::string(level.data(), level.size()) + ": " +
                      std::string(msg.payload.data(), msg.payload.size()));
      while (held_.size() > max_held_console_lines)
        held_.pop_front();
      return;
    }
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::fwrite(formatted.data(), 1, formatted.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }

private:
  bool held_on_ = false;
  std::deque<std::string> held_;
};

std::shared_ptr<console_sink>& the_console() {
  static std::shared_ptr<console_sink> sink;
  return sink;
}

} // namespace

void hold_console(bool hold) {
  if (auto sink = the_console())
    sink->hold(hold);
}

std::vector<std::string> take_held_console_lines() {
  auto sink = the_console();
  return sink ? sink->take() : std::vector<std::string>{};
}

spdlog::level::level_enum console_level(int verbosity) {
  if (verbosity <= 0)
    return spdlog::level::warn;
  if (verbosity == 1)
    return spdlog::level::info;
  return spdlog::level::debug;
}

std::filesystem::path log_file_path(const std::filesystem::path& state_root) {
  return state_root / log_folder_name / log_file_name;
}

status setup_logging(const std::filesystem::path& state_root, const logging_options& options) {
  std::vector<spdlog::sink_ptr> sinks;
  auto console = std::make_shared<console_sink>();
  console->set_level(console_level(options.verbosity));
  console->set_pattern("agent-dispatch: %l: %v");
  sinks.push_back(console);
  the_console() = console;
  status outcome = status::ok();
  if (!state_root.empty()) {
    auto path = log_file_path(state_root);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      outcome = status::io_error("cannot create log folder " + path.parent_path().string() +
                                 ": " + ec.message());
    } else {
      try {
        auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
          path.string(), options.max_file_bytes, options.max_files);
        file->set_level(spdlog::level::debug);
        file->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l [%P:%t] %v");
        sinks.push_back(file);
      } catch (const std::exception& e) {
        outcome = status::io_error("cannot open log file " + path.string() + ": " + e.what());
      }
    }
  }
  auto logger = std::make_shared<spdlog::logger>("agent-dispatch", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::debug);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return outcome;
}

} // namespace ad::runtime
