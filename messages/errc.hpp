#pragma once
// The one error enum that crosses actor boundaries. Codes start at 1 and are
// chosen by what the receiver must do: retry the call, retry the task, or
// stop until the state is fixed. Registered with CAF as category "ad".

#include <cstdint>
#include <string>

#include <caf/error.hpp>
#include <caf/make_message.hpp>

namespace ad::messages {

enum class errc : uint8_t {
  retry_call = 1,     // transient: the same request may succeed later
  retry_task,         // this attempt failed; the supervisor decides what next
  state_unavailable,  // durable state cannot be written: stop admitting work
  state_corrupt,      // durable state is damaged: terminal until a human fixes it
  invalid_request,    // the request itself is wrong (a bug or bad input)
  conflict,           // someone else holds what was asked for (claim, lock)
  not_found,          // the named task, attempt or node is unknown
  cancelled,          // the work was cancelled by shutdown
  node_lost,          // the remote node running the work is gone
};

std::string to_string(errc x);

} // namespace ad::messages

CAF_ERROR_CODE_ENUM(ad::messages::errc, "ad")
