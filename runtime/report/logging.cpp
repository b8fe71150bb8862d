#include "runtime/report/logging.hpp"

#include <memory>
#include <system_error>
#include <vector>

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace ad::runtime {

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
  auto console = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  console->set_level(console_level(options.verbosity));
  console->set_pattern("agent-dispatch: %l: %v");
  sinks.push_back(console);
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
