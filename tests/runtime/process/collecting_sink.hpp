#pragma once
// A process_event_sink for tests: records every event of one child under a
// mutex and lets the test thread wait for the exit, a line or the agent.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/process/process_events.hpp"

namespace ad::runtime::testing {

class collecting_sink final : public process_event_sink {
public:
  void on_line(process_line&& line) override {
    std::lock_guard<std::mutex> g(mu_);
    lines_.push_back(std::move(line));
    cv_.notify_all();
  }
  void on_silence(const process_silence& tick) override {
    std::lock_guard<std::mutex> g(mu_);
    ticks_.push_back(tick);
    cv_.notify_all();
  }
  void on_agent(const process_agent& agent) override {
    std::lock_guard<std::mutex> g(mu_);
    agent_ = agent;
    cv_.notify_all();
  }
  void on_exit(const process_exit& exit) override {
    std::lock_guard<std::mutex> g(mu_);
    ++exit_count_;
    exit_ = exit;
    cv_.notify_all();
  }

  // The exit event, or nullopt after the timeout.
  std::optional<process_exit> wait_exit(std::chrono::milliseconds timeout =
                                          std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> g(mu_);
    cv_.wait_for(g, timeout, [&] { return exit_.has_value(); });
    return exit_;
  }

  // The agent a keeper reported starting, or nullopt after the timeout.
  std::optional<process_agent> wait_agent(std::chrono::milliseconds timeout =
                                            std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> g(mu_);
    cv_.wait_for(g, timeout, [&] { return agent_.has_value(); });
    return agent_;
  }

  // True once a line with this text arrived on the stream.
  bool wait_line(const std::string& text, std::chrono::milliseconds timeout =
                                            std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> g(mu_);
    return cv_.wait_for(g, timeout, [&] {
      for (const auto& l : lines_)
        if (l.text == text)
          return true;
      return false;
    });
  }

  std::vector<std::string> texts(output_stream s) const {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<std::string> out;
    for (const auto& l : lines_)
      if (l.stream == s)
        out.push_back(l.text);
    return out;
  }
  std::vector<process_line> lines() const {
    std::lock_guard<std::mutex> g(mu_);
    return lines_;
  }
  std::vector<process_silence> ticks() const {
    std::lock_guard<std::mutex> g(mu_);
    return ticks_;
  }
  int exit_count() const {
    std::lock_guard<std::mutex> g(mu_);
    return exit_count_;
  }

private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<process_line> lines_;
  std::vector<process_silence> ticks_;
  std::optional<process_agent> agent_;
  std::optional<process_exit> exit_;
  int exit_count_ = 0;
};

} // namespace ad::runtime::testing
