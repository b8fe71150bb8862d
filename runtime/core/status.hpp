#pragma once
// Failure as a value for everything under runtime/. A status is cheap when OK
// (no allocation) and otherwise carries a code and a human message that says
// what failed, where, and what to do. result<T> holds either a T or a non-OK
// status. No function in runtime/ lets an exception escape; callers branch on
// the is_x() predicates. This header never throws and never prints.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ad::runtime {

class status {
public:
  enum class code : uint8_t {
    ok = 0,
    not_found,
    invalid_argument,  // bad input from a user or a file: fix the input
    corruption,        // durable data is damaged: a human must look
    io_error,          // the operating system refused: may pass on retry
    conflict,          // someone else holds what we need (lock, claim)
    unsupported,
    internal,          // a bug
  };

  status() noexcept = default;

  static status ok() noexcept { return {}; }
  static status not_found(std::string msg) { return {code::not_found, std::move(msg)}; }
  static status invalid_argument(std::string msg) {
    return {code::invalid_argument, std::move(msg)};
  }
  static status corruption(std::string msg) { return {code::corruption, std::move(msg)}; }
  static status io_error(std::string msg) { return {code::io_error, std::move(msg)}; }
  // An io_error built from errno: "<what>: <strerror(err)>".
  static status from_errno(std::string_view what, int err);
  static status conflict(std::string msg) { return {code::conflict, std::move(msg)}; }
  static status unsupported(std::string msg) { return {code::unsupported, std::move(msg)}; }
  static status internal(std::string msg) { return {code::internal, std::move(msg)}; }

  bool is_ok() const noexcept { return rep_ == nullptr; }
  explicit operator bool() const noexcept { return is_ok(); }
  bool is_not_found() const noexcept { return get_code() == code::not_found; }
  bool is_invalid_argument() const noexcept { return get_code() == code::invalid_argument; }
  bool is_corruption() const noexcept { return get_code() == code::corruption; }
  bool is_io_error() const noexcept { return get_code() == code::io_error; }
  bool is_conflict() const noexcept { return get_code() == code::conflict; }
  bool is_unsupported() const noexcept { return get_code() == code::unsupported; }
  bool is_internal() const noexcept { return get_code() == code::internal; }

  code get_code() const noexcept { return rep_ ? rep_->c : code::ok; }
  const std::string& message() const noexcept;
  // "corruption: <message>", or "ok".
  std::string to_string() const;
  // The same status with "<context>: " put before its message.
  status with_context(std::string_view context) const;

private:
  struct rep {
    code c;
    std::string msg;
  };
  status(code c, std::string msg) : rep_(std::make_shared<rep>(rep{c, std::move(msg)})) {}
  std::shared_ptr<const rep> rep_;
};

// Either a value or a non-OK status. Constructing from an OK status is a bug
// and yields status::internal.
template <class T>
class result {
public:
  result(T value) : v_(std::move(value)) {}
  result(status st) : v_(st.is_ok() ? status::internal("result built from ok status") : std::move(st)) {}

  bool is_ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return is_ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The error; status::ok() when a value is held.
  status error() const { return is_ok() ? status::ok() : std::get<1>(v_); }

private:
  std::variant<T, status> v_;
};

} // namespace ad::runtime
