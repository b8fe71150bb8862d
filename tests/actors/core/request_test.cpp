// request(): resumes with the reply, an error reply, a timeout, an unexpected
// reply type; frames of an actor that quits while waiting are destroyed.

#include "tests/actors/core/coroutine_fixture.hpp"

namespace ad::actors::core::testing {
namespace {

task<void> ask_double(client_actor* self, record_ptr rec, caf::actor peer) {
  frame_guard guard{rec};
  auto server = caf::actor_cast<doubler>(peer);
  rec->log.push_back("asking");
  auto ask = request(self, server, 1s, 21);
  auto reply = co_await ask;
  if (reply)
    rec->log.push_back("reply " + std::to_string(*reply));
  else
    rec->log.push_back("error " + caf::to_string(reply.error()));
  ++rec->finished;
}

TEST_F(coroutine_test, RequestResumesWithTheReply) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(ask_double, rec, server);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"asking", "reply 42"}));
  EXPECT_EQ(rec->finished, 1);
  EXPECT_EQ(rec->destroyed, 1);  // the frame ended and was destroyed at once
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

TEST_F(coroutine_test, RequestIsSentOnlyWhenTheCoroutineSuspends) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = sys.spawn(client, ask_double, 1, rec, server);
  // The client's start job runs the coroutine up to its first co_await.
  sched.run_once();
  EXPECT_EQ(rec->log, (std::vector<std::string>{"asking"}));
  // Exactly one job (the server with the request) is pending now.
  ASSERT_TRUE(sched.has_job());
  auto& job = sched.next_job<caf::abstract_actor>();
  EXPECT_EQ(job.address(), server.address());
  drain();
  EXPECT_EQ(rec->log.back(), "reply 42");
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

task<void> ask_zero(client_actor* self, record_ptr rec, caf::actor peer) {
  auto server = caf::actor_cast<doubler>(peer);
  auto ask = request(self, server, 1s, 0);
  auto reply = co_await ask;
  if (!reply && reply.error() == messages::errc::not_found)
    rec->log.push_back("not_found");
  else
    rec->log.push_back("unexpected");
  ++rec->finished;
}

TEST_F(coroutine_test, AnErrorReplyComesBackAsAValue) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(ask_zero, rec, server);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"not_found"}));
  EXPECT_EQ(rec->finished, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

task<void> ask_silent(client_actor* self, record_ptr rec, caf::actor peer) {
  frame_guard guard{rec};
  auto server = caf::actor_cast<doubler>(peer);
  auto ask = request(self, server, 250ms, -1);
  auto reply = co_await ask;
  if (!reply && reply.error() == caf::sec::request_timeout)
    rec->log.push_back("timeout");
  else
    rec->log.push_back("unexpected");
  ++rec->finished;
}

TEST_F(coroutine_test, ARequestWithoutAnswerTimesOut) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(ask_silent, rec, server);
  EXPECT_TRUE(rec->log.empty());
  advance(249ms);
  EXPECT_TRUE(rec->log.empty());
  advance(1ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"timeout"}));
  EXPECT_EQ(rec->destroyed, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

TEST_F(coroutine_test, ActorQuittingWhileARequestIsPendingDestroysTheFrame) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(ask_silent, rec, server);
  EXPECT_EQ(rec->destroyed, 0);
  caf::anon_send(c, quit_atom::value);
  drain();
  EXPECT_EQ(rec->destroyed, 1);
  EXPECT_EQ(rec->finished, 0);
  // The request's timeout fires later and finds nobody to resume.
  advance(1s);
  EXPECT_TRUE(rec->log.empty());
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

TEST_F(coroutine_test, ActorKilledFromOutsideDestroysTheFrame) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(ask_silent, rec, server);
  caf::anon_send_exit(c, caf::exit_reason::kill);
  drain();
  EXPECT_EQ(rec->destroyed, 1);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

caf::behavior string_server(caf::event_based_actor*, int) {
  return {
    [](int x) { return std::to_string(x); },
    [](const std::string& s) { return static_cast<int>(s.size()); },
  };
}

task<void> ask_dynamic(client_actor* self, record_ptr rec, caf::actor peer) {
  auto ask = request<int>(self, peer, 1s, "four");
  auto n = co_await ask;
  rec->log.push_back(n ? "int " + std::to_string(*n) : "error");
  // The server answers an int with a string: the wrong type is an error value.
  auto wrong = request<int>(self, peer, 1s, 7);
  auto w = co_await wrong;
  rec->log.push_back(w ? "int" : "error " + caf::to_string(w.error()));
  // Several reply types arrive as a tuple; here a single string.
  auto right = request<std::string>(self, peer, 1s, 7);
  auto s = co_await right;
  rec->log.push_back(s ? "string " + *s : "error");
  ++rec->finished;
}

TEST_F(coroutine_test, DynamicHandlesNameTheirReplyType) {
  auto rec = std::make_shared<record>();
  auto server = sys.spawn(string_server, 0);
  drain();
  auto c = spawn_client(ask_dynamic, rec, server);
  ASSERT_EQ(rec->log.size(), 3u);
  EXPECT_EQ(rec->log[0], "int 4");
  EXPECT_NE(rec->log[1].find("unexpected_response"), std::string::npos) << rec->log[1];
  EXPECT_EQ(rec->log[2], "string 7");
  EXPECT_EQ(rec->finished, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

task<void> ask_twice_same_object(client_actor* self, record_ptr rec, caf::actor peer) {
  auto server = caf::actor_cast<doubler>(peer);
  auto ask = request(self, server, 1s, 5);
  for (int i = 0; i < 3; ++i) {
    auto reply = co_await ask;
    rec->log.push_back(reply ? std::to_string(*reply) : "error");
  }
  ++rec->finished;
}

TEST_F(coroutine_test, AwaitingTheSameRequestAgainSendsItAgain) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(ask_twice_same_object, rec, server);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"10", "10", "10"}));
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

task<void> ask_dead(client_actor* self, record_ptr rec, caf::actor) {
  doubler nobody;
  auto ask = request(self, nobody, 1s, 1);
  auto reply = co_await ask;
  rec->log.push_back(reply ? "reply" : "error " + caf::to_string(reply.error()));
}

TEST_F(coroutine_test, ARequestToAnInvalidHandleFails) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(ask_dead, rec);
  ASSERT_EQ(rec->log.size(), 1u);
  EXPECT_NE(rec->log[0].find("invalid_argument"), std::string::npos) << rec->log[0];
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

} // namespace
} // namespace ad::actors::core::testing
