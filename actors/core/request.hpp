#pragma once
// Request/response as an awaitable: `auto r = request(self, dest, timeout,
// xs...); auto reply = co_await r;` sends the request when the coroutine
// suspends (self->request(...).then(ok, err)) and resumes it from that
// response handler, so it always resumes on the actor. The timeout is
// mandatory. Reply types come from a typed handle's interface or are named
// explicitly for a dynamically typed one: request<int>(self, dyn, 1s, x).
// Each co_await of the same object sends the request again. Error contract:
// the result is a caf::expected — an error reply, sec::request_timeout, or
// sec::unexpected_response arrive as its error, never as an exception. If the
// frame is destroyed first (the actor quit), the late reply is dropped.

#include <caf/duration.hpp>
#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <caf/detail/implicit_conversions.hpp>
#include <caf/response_type.hpp>

#include <chrono>
#include <coroutine>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "actors/core/coroutine_host.hpp"

namespace ad::actors::core {

namespace detail {

// The value a reply with types Rs... resumes the coroutine with.
template <class... Rs>
struct reply_value {
  using type = std::tuple<Rs...>;
};
template <class R>
struct reply_value<R> {
  using type = R;
};
template <>
struct reply_value<void> {
  using type = void;
};

template <class Value>
struct reply_slot : wait_slot {
  std::optional<caf::expected<Value>> result;
};

// Response handler with concrete parameter types (CAF 0.17 type-checks it
// against the interface, so a generic lambda does not do).
template <class Value, class... Rs>
struct on_reply {
  std::shared_ptr<reply_slot<Value>> slot;
  void operator()(Rs&... xs) const {
    if (!slot->waiter)
      return;
    if constexpr (sizeof...(Rs) == 1)
      slot->result.emplace(std::move(xs)...);
    else
      slot->result.emplace(std::make_tuple(std::move(xs)...));
    slot->resume();
  }
};

template <class Value>
struct on_reply<Value, void> {
  std::shared_ptr<reply_slot<Value>> slot;
  void operator()() const {
    if (!slot->waiter)
      return;
    slot->result.emplace();
    slot->resume();
  }
};

template <class Value>
struct on_error {
  std::shared_ptr<reply_slot<Value>> slot;
  void operator()(caf::error& err) const {
    if (!slot->waiter)
      return;
    slot->result.emplace(std::move(err));
    slot->resume();
  }
};

template <class Handle, class... Ts>
struct interface_reply;

template <class Handle, class... Ts>
  requires(!std::is_same_v<typename Handle::signatures, caf::none_t>)
struct interface_reply<Handle, Ts...> {
  using outputs = caf::response_type_t<typename Handle::signatures, Ts...>;
};

// The type CAF sends for an argument of type T (const char* -> string, ...).
template <class T>
using sent_t = typename caf::detail::implicit_conversions<std::decay_t<T>>::type;

} // namespace detail

template <class Self, class Handle, class Args, class... Rs>
class request_awaitable {
public:
  using value_type = typename detail::reply_value<Rs...>::type;
  using result_type = caf::expected<value_type>;

  request_awaitable(Self* self, Handle dest, caf::duration timeout, Args args)
    : self_(self), dest_(std::move(dest)), timeout_(timeout), args_(std::move(args)) {}
  request_awaitable(const request_awaitable&) = delete;
  request_awaitable& operator=(const request_awaitable&) = delete;
  ~request_awaitable() {
    if (slot_)
      slot_->waiter = {};
  }

  struct awaiter {
    request_awaitable* a;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) { a->send(h); }
    result_type await_resume() { return std::move(*a->slot_->result); }
  };
  awaiter operator co_await() & noexcept { return awaiter{this}; }
  awaiter operator co_await() && = delete;

private:
  void send(std::coroutine_handle<> h) {
    if (slot_)
      slot_->waiter = {};  // an earlier round's late reply must not resume us
    slot_ = std::make_shared<detail::reply_slot<value_type>>();
    slot_->waiter = h;
    auto handle = std::apply(
      [this](auto&... xs) { return self_->request(dest_, timeout_, xs...); }, args_);
    handle.then(detail::on_reply<value_type, Rs...>{slot_},
                detail::on_error<value_type>{slot_});
  }

  Self* self_;
  Handle dest_;
  caf::duration timeout_;
  Args args_;
  std::shared_ptr<detail::reply_slot<value_type>> slot_;
};

namespace detail {

template <class Self, class Handle, class Args, class List>
struct awaitable_for;

template <class Self, class Handle, class Args, class... Rs>
struct awaitable_for<Self, Handle, Args, caf::detail::type_list<Rs...>> {
  using type = request_awaitable<Self, Handle, Args, Rs...>;
};

} // namespace detail

// Reply types named explicitly (required for a dynamically typed handle).
template <class R, class... Rs, class Self, class Handle, class Rep, class Period,
          class... Ts>
request_awaitable<Self, Handle, std::tuple<detail::sent_t<Ts>...>, R, Rs...>
request(Self* self, const Handle& dest, std::chrono::duration<Rep, Period> timeout,
        Ts&&... xs) {
  return {self, dest, caf::duration{timeout},
          std::tuple<detail::sent_t<Ts>...>{std::forward<Ts>(xs)...}};
}

// Reply types taken from a typed handle's interface.
template <class Self, class Handle, class Rep, class Period, class... Ts>
  requires(!std::is_same_v<typename Handle::signatures, caf::none_t>)
typename detail::awaitable_for<
  Self, Handle, std::tuple<detail::sent_t<Ts>...>,
  typename detail::interface_reply<Handle, detail::sent_t<Ts>...>::outputs>::type
request(Self* self, const Handle& dest, std::chrono::duration<Rep, Period> timeout,
        Ts&&... xs) {
  return {self, dest, caf::duration{timeout},
          std::tuple<detail::sent_t<Ts>...>{std::forward<Ts>(xs)...}};
}

} // namespace ad::actors::core
