#pragma once
// Hands each published message to every subscriber without ever waiting for
// one: the dashboard's Server-Sent Events (docs/dashboard.md). publish()
// only appends to each subscriber's queue under a mutex; a subscriber whose
// queue already holds `max_queued` messages (a client that does not read) is
// dropped, and its next take() reports that, so the connection is closed.
// take() waits at most `timeout` for a message. Thread-safe; never throws
// except std::bad_alloc. The fanout must outlive its subscribers.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ad::runtime {

class event_fanout {
public:
  class subscriber;

  explicit event_fanout(size_t max_queued = 256) : max_queued_(max_queued) {}

  // A new subscriber, receiving what is published from now on.
  std::shared_ptr<subscriber> subscribe();
  void publish(const std::string& message);
  // Wakes every subscriber and makes take() report the end.
  void close();
  size_t subscribers() const;
  int64_t dropped() const;

  class subscriber {
  public:
    enum class state : uint8_t { message, idle, dropped, closed };
    struct taken {
      state what = state::idle;
      std::string message;  // with state::message
    };
    // The next message, or idle after `timeout`, or dropped/closed.
    taken take(std::chrono::milliseconds timeout);
    // Stops receiving (the connection went away).
    void leave();

  private:
    friend class event_fanout;
    event_fanout* owner_ = nullptr;
    std::deque<std::string> queue_;
    bool dropped_ = false;
    bool left_ = false;
  };

private:
  size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::shared_ptr<subscriber>> subscribers_;
  bool closed_ = false;
  int64_t dropped_ = 0;
};

} // namespace ad::runtime
