#pragma once
// Conversions between the attempt messages and runtime/attempt values. Pure.

#include "actors/attempt/attempt_actor.hpp"
#include "runtime/attempt/attempt_run.hpp"

namespace ad::actors {

// The runtime setup of a start_attempt; invalid_argument for an unknown
// adapter or a selector evidence that is not JSON.
runtime::result<runtime::attempt_setup> to_attempt_setup(const messages::start_attempt& req,
                                                         const attempt_config& cfg);

messages::attempt_result to_attempt_result(const runtime::attempt_run& run,
                                           const runtime::failure_verdict& verdict);

// The runtime view of a process_exit (launch failures go to end.launch).
void record_exit(const messages::process_exit& exit, runtime::attempt_end& end);

} // namespace ad::actors
