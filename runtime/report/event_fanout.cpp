#include "runtime/report/event_fanout.hpp"

#include <algorithm>

namespace ad::runtime {

std::shared_ptr<event_fanout::subscriber> event_fanout::subscribe() {
  auto s = std::make_shared<subscriber>();
  s->owner_ = this;
  std::lock_guard lock(mutex_);
  if (closed_)
    s->left_ = true;
  else
    subscribers_.push_back(s);
  return s;
}

void event_fanout::publish(const std::string& message) {
  {
    std::lock_guard lock(mutex_);
    for (auto& s : subscribers_) {
      if (s->queue_.size() >= max_queued_) {
        s->dropped_ = true;  // a client that does not read is let go
        s->queue_.clear();
        ++dropped_;
      } else {
        s->queue_.push_back(message);
      }
    }
    std::erase_if(subscribers_, [](const auto& s) { return s->dropped_; });
  }
  ready_.notify_all();
}

void event_fanout::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    subscribers_.clear();
  }
  ready_.notify_all();
}

size_t event_fanout::subscribers() const {
  std::lock_guard lock(mutex_);
  return subscribers_.size();
}

int64_t event_fanout::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

event_fanout::subscriber::taken event_fanout::subscriber::take(std::chrono::milliseconds timeout) {
  std::unique_lock lock(owner_->mutex_);
  auto done = [&] { return !queue_.empty() || dropped_ || left_ || owner_->closed_; };
  owner_->ready_.wait_for(lock, timeout, done);
  if (dropped_)
    return {state::dropped, ""};
  if (!queue_.empty()) {
    taken t{state::message, std::move(queue_.front())};
    queue_.pop_front();
    return t;
  }
  if (left_ || owner_->closed_)
    return {state::closed, ""};
  return {state::idle, ""};
}

void event_fanout::subscriber::leave() {
  {
    std::lock_guard lock(owner_->mutex_);
    left_ = true;
    std::erase_if(owner_->subscribers_, [this](const auto& s) { return s.get() == this; });
  }
  owner_->ready_.notify_all();
}

} // namespace ad::runtime
