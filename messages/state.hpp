#pragma once
// Messages and typed interfaces of the durable state actors (actors/state):
// the state store (authoritative in-memory state; answers queries; applies
// typed changes and replies only once they are durable) and the serializer
// (the only writer of state files; group-commits whatever is queued). Changes
// travel as runtime::state_change values (runtime/state/change.hpp); across
// hosts a change list is carried as its JSON journal text, and task and
// state values as their snapshot JSON (messages/wire.hpp).
// Error contract of both actors: errc::state_unavailable when the durable
// write failed (the store then refuses every further change until the
// dispatcher restarts: stop admitting work), errc::invalid_request for a
// malformed request. A change rejected by its precondition (unknown task,
// handoff id mismatch) is NOT an error: it is durable and reported in its
// change_outcome. Registered by add_state_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/error.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/errc.hpp"
#include "messages/wire.hpp"
#include "runtime/state/change.hpp"

namespace ad::messages {

using runtime::state_change;


// Client -> store: make these changes durable, in order, as one journal
// entry (all of them or none survive a crash), then apply them.
struct apply_state_changes {
  std::vector<state_change> changes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, apply_state_changes& x) {
  return f(caf::meta::type_name("apply_state_changes"), x.changes);
}

// The apply status of one change: code is runtime::status::code (0 = ok).
struct change_outcome {
  uint8_t code = 0;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, change_outcome& x) {
  return f(caf::meta::type_name("change_outcome"), x.code, x.message);
}

// Store -> client, sent only after the entry is durable and applied.
// seq is the entry's journal sequence number (increasing in reply order).
struct state_changes_applied {
  uint64_t seq = 0;
  std::vector<change_outcome> outcomes;  // one per change, in order
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, state_changes_applied& x) {
  return f(caf::meta::type_name("state_changes_applied"), x.seq, x.outcomes);
}

// Query one task's state.
struct get_task_state {
  std::string task;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_task_state& x) {
  return f(caf::meta::type_name("get_task_state"), x.task);
}

struct task_state_reply {
  std::string task;
  bool found = false;
  runtime::task_state state; // when found
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_state_reply& x) {
  return f(caf::meta::type_name("task_state_reply"), x.task, x.found, x.state);
}

// Query what one task and the whole run have spent (runtime/state/spend.hpp):
// the task machine's reading before an attempt when the policy sets limits.
struct get_task_spend {
  std::string task;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_task_spend& x) {
  return f(caf::meta::type_name("get_task_spend"), x.task);
}

struct task_spend_reply {
  runtime::token_usage task;
  runtime::token_usage run;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_spend_reply& x) {
  return f(caf::meta::type_name("task_spend_reply"), x.task, x.run);
}

// Query the whole state.
struct get_state_snapshot {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_state_snapshot&) {
  return f(caf::meta::type_name("get_state_snapshot"));
}

struct state_snapshot_reply {
  uint64_t seq = 0; // last durable entry reflected
  runtime::state_model state;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, state_snapshot_reply& x) {
  return f(caf::meta::type_name("state_snapshot_reply"), x.seq, x.state);
}

// Subscriber -> store: from now on, publish every entry to the sender once
// it is durable and applied (state_changes_published); the reply is the
// state as of the subscription. Used by the scheduler to keep a mirror of
// the state instead of asking for a snapshot on every pass.
struct subscribe_state_changes {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, subscribe_state_changes&) {
  return f(caf::meta::type_name("subscribe_state_changes"));
}

// Store -> subscriber: the changes of one journal entry, sent in journal
// order right before the requester's reply, so a subscriber that hears of
// the request's effect from the requester has already received them.
struct state_changes_published {
  uint64_t seq = 0;
  std::vector<state_change> changes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, state_changes_published& x) {
  return f(caf::meta::type_name("state_changes_published"), x.seq, x.changes);
}

using state_subscriber_actor = caf::typed_actor<caf::reacts_to<state_changes_published>>;

// Query every write claim (typed: the scheduler asks this often).
struct get_claims {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_claims&) {
  return f(caf::meta::type_name("get_claims"));
}

struct claim_entry {
  std::string owner;
  bool exclusive = false;
  std::vector<std::string> paths;  // sorted; empty when exclusive
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claim_entry& x) {
  return f(caf::meta::type_name("claim_entry"), x.owner, x.exclusive, x.paths);
}

struct claims_reply {
  std::vector<claim_entry> claims;  // ordered by owner
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claims_reply& x) {
  return f(caf::meta::type_name("claims_reply"), x.claims);
}

// One journal entry: the changes of one apply_state_changes request.
struct journal_entry {
  std::vector<state_change> changes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journal_entry& x) {
  return f(caf::meta::type_name("journal_entry"), x.changes);
}

// Store -> serializer: every entry the store received together, in order,
// to group-commit (one request per batch, not per entry).
struct journal_batch {
  std::vector<journal_entry> entries;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journal_batch& x) {
  return f(caf::meta::type_name("journal_batch"), x.entries);
}

// The entry is durable (fsync returned).
struct journal_entry_durable {
  uint64_t seq = 0;
  std::vector<change_outcome> outcomes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journal_entry_durable& x) {
  return f(caf::meta::type_name("journal_entry_durable"), x.seq, x.outcomes);
}

// Serializer -> store: every entry of the batch is durable; one result per
// entry, in batch order.
struct journal_batch_durable {
  std::vector<journal_entry_durable> entries;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journal_batch_durable& x) {
  return f(caf::meta::type_name("journal_batch_durable"), x.entries);
}

// The serializer's note to itself: commit everything queued so far.
using st_flush_atom = caf::atom_constant<caf::atom("st_flush")>;
// The store's note to itself: send everything received so far as one batch.
using st_batch_atom = caf::atom_constant<caf::atom("st_batch")>;

using state_serializer_actor =
  caf::typed_actor<caf::replies_to<journal_batch>::with<journal_batch_durable>,
                   caf::reacts_to<st_flush_atom>>;

using state_store_actor =
  caf::typed_actor<caf::replies_to<apply_state_changes>::with<state_changes_applied>,
                   caf::replies_to<get_task_state>::with<task_state_reply>,
                   caf::replies_to<get_task_spend>::with<task_spend_reply>,
                   caf::replies_to<get_state_snapshot>::with<state_snapshot_reply>,
                   caf::replies_to<subscribe_state_changes>::with<state_snapshot_reply>,
                   caf::replies_to<get_claims>::with<claims_reply>,
                   caf::reacts_to<st_batch_atom>>;

inline void add_state_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<apply_state_changes>("apply_state_changes");
  cfg.add_message_type<change_outcome>("change_outcome");
  cfg.add_message_type<std::vector<change_outcome>>("change_outcome_list");
  cfg.add_message_type<state_changes_applied>("state_changes_applied");
  cfg.add_message_type<get_task_state>("get_task_state");
  cfg.add_message_type<task_state_reply>("task_state_reply");
  cfg.add_message_type<get_task_spend>("get_task_spend");
  cfg.add_message_type<task_spend_reply>("task_spend_reply");
  cfg.add_message_type<get_state_snapshot>("get_state_snapshot");
  cfg.add_message_type<state_snapshot_reply>("state_snapshot_reply");
  cfg.add_message_type<subscribe_state_changes>("subscribe_state_changes");
  cfg.add_message_type<state_changes_published>("state_changes_published");
  cfg.add_message_type<get_claims>("get_claims");
  cfg.add_message_type<claim_entry>("claim_entry");
  cfg.add_message_type<claims_reply>("claims_reply");
  cfg.add_message_type<journal_entry>("journal_entry");
  cfg.add_message_type<journal_entry_durable>("journal_entry_durable");
  cfg.add_message_type<std::vector<journal_entry>>("journal_entry_list");
  cfg.add_message_type<journal_batch>("journal_batch");
  cfg.add_message_type<std::vector<journal_entry_durable>>("journal_entry_durable_list");
  cfg.add_message_type<journal_batch_durable>("journal_batch_durable");
}

} // namespace ad::messages
