#pragma once
// The self-message of actor coroutine timers (actors/core): (coro_wake_atom,
// token), scheduled by an actor's coroutine_host at its earliest pending
// deadline. A typed actor whose coroutines sleep or wait with a timeout
// extends its interface with coroutine_wake_actor. Only ever sent by an
// actor to itself; carries no custom type, so nothing to register.

#include <cstdint>

#include <caf/atom.hpp>
#include <caf/typed_actor.hpp>

namespace ad::messages {

using coro_wake_atom = caf::atom_constant<caf::atom("coro_wake")>;

using coroutine_wake_actor = caf::typed_actor<caf::reacts_to<coro_wake_atom, uint64_t>>;

} // namespace ad::messages
