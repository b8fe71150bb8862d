#pragma once
// A value that never changes once made, held by pointer so that copies of
// its holder share it: copying costs a reference count, not the value. It is
// for the large parts of the state model that are written once and then only
// read (an attempt's write-set snapshots, a task's route decisions): the
// store, the state store actor and the scheduler's mirror each hold the
// model, and the changes that record these parts carry them as shared values,
// so the models share them instead of repeating them.
//
// Reading: get(), *, ->, or the value's own read-only members through the
// forwarding ones below (size, empty, begin, end, at, [], front, back).
// Changing: modify() copies the value first and returns the copy to change,
// so whoever shares the old value keeps it; assigning a T puts in a new one.
// The shared value is const, so holders on other threads may read it while
// this one changes its own. An empty holder reads as T{}.

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>

namespace ad::runtime {

template <class T>
class shared_value {
public:
  shared_value() = default;
  shared_value(T value) : value_(std::make_shared<const T>(std::move(value))) {}
  template <class E>
    requires std::constructible_from<T, std::initializer_list<E>>
  shared_value(std::initializer_list<E> list) : shared_value(T(list)) {}

  const T& get() const { return value_ ? *value_ : none(); }
  const T& operator*() const { return get(); }
  const T* operator->() const { return &get(); }
  operator const T&() const { return get(); }

  // A fresh copy of the value, now this holder's own, to change.
  T& modify() {
    auto copy = std::make_shared<T>(get());
    T& out = *copy;
    value_ = std::move(copy);
    return out;
  }

  bool shares_with(const shared_value& other) const { return value_ == other.value_; }

  // Only for a container value (a struct's holder is not a range).
  auto size() const requires requires(const T& t) { t.size(); } { return get().size(); }
  bool empty() const requires requires(const T& t) { t.empty(); } { return get().empty(); }
  auto begin() const requires requires(const T& t) { t.begin(); } { return get().begin(); }
  auto end() const requires requires(const T& t) { t.end(); } { return get().end(); }
  decltype(auto) at(std::size_t i) const requires requires(const T& t) { t.at(i); } {
    return get().at(i);
  }
  decltype(auto) operator[](std::size_t i) const requires requires(const T& t) { t[i]; } {
    return get()[i];
  }
  decltype(auto) front() const requires requires(const T& t) { t.front(); } {
    return get().front();
  }
  decltype(auto) back() const requires requires(const T& t) { t.back(); } {
    return get().back();
  }

  friend bool operator==(const shared_value& a, const shared_value& b) {
    return a.value_ == b.value_ || a.get() == b.get();
  }

private:
  static const T& none() {
    static const T none{};
    return none;
  }

  std::shared_ptr<const T> value_;
};

} // namespace ad::runtime
