#pragma once
// task<T>: the C++20 coroutine type for multi-step conversations inside one
// CAF 0.17 event-based actor. A task is lazy: it runs when a coroutine_host
// starts it (a root task, whose frame the host owns and destroys when the
// task ends or when the actor exits) or when another task co_awaits it (a
// child, whose frame its task object owns). Every resumption happens on the
// owning actor, from one of its message handlers, so a task may touch the
// actor's state without locks; other messages are handled between its
// suspensions. A task must never be resumed from another thread, and must
// never be co_awaited as a temporary: g++ 12 miscompiles temporaries with
// destructors inside a co_await expression, so `co_await child()` does not
// compile; write `auto t = child(); co_await t;`. Error contract: failures
// travel as values (caf::expected, std::optional); an exception escaping a
// child task is rethrown in its parent, and one escaping a root task makes
// the host stop its actor with caf::sec::runtime_error.

#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

namespace ad::actors::core {

class coroutine_host;

namespace detail {

// Implemented by coroutine_host: a root frame reached its end (the host
// destroys it) or let an exception escape (the host stops its actor).
void root_finished(coroutine_host* host, std::coroutine_handle<> frame) noexcept;
void root_failed(coroutine_host* host, std::exception_ptr error) noexcept;

struct promise_base {
  coroutine_host* host = nullptr;          // set for root tasks only
  std::coroutine_handle<> continuation;    // the awaiting parent (child tasks)
  std::exception_ptr error;

  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) noexcept {
      promise_base& p = self.promise();
      if (p.host != nullptr) {
        // The host destroys the frame; nothing here may touch it afterwards.
        root_finished(p.host, self);
        return std::noop_coroutine();
      }
      if (p.continuation)
        return p.continuation;
      return std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };

  std::suspend_always initial_suspend() const noexcept { return {}; }
  final_awaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept {
    if (host != nullptr)
      root_failed(host, std::current_exception());
    else
      error = std::current_exception();
  }
};

} // namespace detail

template <class T = void>
class task;

namespace detail {

template <class T>
struct task_promise : promise_base {
  std::optional<T> value;
  task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& x) { value.emplace(std::forward<U>(x)); }
};

template <>
struct task_promise<void> : promise_base {
  task<void> get_return_object() noexcept;
  void return_void() noexcept {}
};

} // namespace detail

template <class T>
class task {
public:
  using promise_type = detail::task_promise<T>;
  using handle_type = std::coroutine_handle<promise_type>;

  task() noexcept = default;
  explicit task(handle_type h) noexcept : h_(h) {}
  task(task&& other) noexcept : h_(std::exchange(other.h_, {})) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      reset();
      h_ = std::exchange(other.h_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() { reset(); }

  bool valid() const noexcept { return static_cast<bool>(h_); }
  bool done() const noexcept { return h_ && h_.done(); }

  // Gives up ownership of the frame (coroutine_host::start uses this).
  handle_type release() noexcept { return std::exchange(h_, {}); }

  // Runs the child until it ends, then resumes the parent with its result.
  struct awaiter {
    handle_type h;
    bool await_ready() const noexcept { return !h || h.done(); }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
      h.promise().continuation = parent;
      return h;
    }
    T await_resume() {
      auto& p = h.promise();
      if (p.error)
        std::rethrow_exception(p.error);
      if constexpr (!std::is_void_v<T>)
        return std::move(*p.value);
    }
  };
  awaiter operator co_await() & noexcept { return awaiter{h_}; }
  // A temporary task inside co_await trips the g++ 12 miscompilation.
  awaiter operator co_await() && = delete;

private:
  void reset() noexcept {
    if (h_)
      h_.destroy();
    h_ = {};
  }
  handle_type h_;
};

namespace detail {

template <class T>
task<T> task_promise<T>::get_return_object() noexcept {
  return task<T>{std::coroutine_handle<task_promise<T>>::from_promise(*this)};
}

inline task<void> task_promise<void>::get_return_object() noexcept {
  return task<void>{std::coroutine_handle<task_promise<void>>::from_promise(*this)};
}

} // namespace detail

} // namespace ad::actors::core
