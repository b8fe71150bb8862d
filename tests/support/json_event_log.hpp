#pragma once
// A SAX handler that writes down every JSON event it is handed, one line
// each (numbers by kind and exact value), for comparing what two parsers
// hand over for the same text (runtime/core/json_events.hpp against
// nlohmann's sax_parse). It refuses the event numbered `refuse_at`
// (counting from 0) when given one. Header-only: the fuzz build uses it too.

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ad::test {

class json_event_log final : public nlohmann::json_sax<nlohmann::json> {
public:
  explicit json_event_log(int refuse_at = -1) : refuse_at_(refuse_at) {}

  bool null() override { return note("null"); }
  bool boolean(bool v) override { return note(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return note("int " + std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    return note("unsigned " + std::to_string(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    char exact[40];
    std::snprintf(exact, sizeof exact, "%a", v);
    return note(std::string("float ") + exact);
  }
  bool string(string_t& v) override { return note("string " + v); }
  bool binary(binary_t&) override { return note("binary"); }
  bool start_object(std::size_t n) override { return note("{ " + std::to_string(n)); }
  bool key(string_t& k) override { return note("key " + k); }
  bool end_object() override { return note("}"); }
  bool start_array(std::size_t n) override { return note("[ " + std::to_string(n)); }
  bool end_array() override { return note("]"); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    failed = true;
    return false;
  }

  std::vector<std::string> events;
  bool failed = false;  // the parser reported an error

private:
  bool note(std::string e) {
    events.push_back(std::move(e));
    return static_cast<int>(events.size()) - 1 != refuse_at_;
  }
  int refuse_at_;
};

} // namespace ad::test
