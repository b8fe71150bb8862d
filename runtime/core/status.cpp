#include "runtime/core/status.hpp"

#include <cstring>

namespace ad::runtime {

namespace {
const char* code_name(status::code c) {
  switch (c) {
    case status::code::ok: return "ok";
    case status::code::not_found: return "not found";
    case status::code::invalid_argument: return "invalid argument";
    case status::code::corruption: return "corruption";
    case status::code::io_error: return "I/O error";
    case status::code::conflict: return "conflict";
    case status::code::unsupported: return "unsupported";
    case status::code::internal: return "internal error";
  }
  return "unknown";
}
} // namespace

status status::from_errno(std::string_view what, int err) {
  std::string msg(what);
  msg += ": ";
  msg += std::strerror(err);
  if (err == ENOENT)
    return not_found(std::move(msg));
  return io_error(std::move(msg));
}

const std::string& status::message() const noexcept {
  static const std::string empty;
  return rep_ ? rep_->msg : empty;
}

std::string status::to_string() const {
  if (is_ok())
    return "ok";
  return std::string(code_name(rep_->c)) + ": " + rep_->msg;
}

status status::with_context(std::string_view context) const {
  if (is_ok())
    return *this;
  return status(rep_->c, std::string(context) + ": " + rep_->msg);
}

} // namespace ad::runtime
