#pragma once
// Splits a byte stream into '\n'-terminated lines with a hard cap on the
// memory held for one line: bytes of a line beyond the cap are counted and
// dropped, never buffered. Pure and single-threaded (one splitter per pipe);
// never throws except std::bad_alloc. Bytes are passed through untouched
// (binary garbage is just bytes; a trailing '\r' is kept).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/process/process_events.hpp"

namespace ad::runtime {

class line_splitter {
public:
  explicit line_splitter(std::size_t cap = default_line_cap) : cap_(cap == 0 ? 1 : cap) {}

  // Calls emit(std::string&& text, line_cut cut, uint64_t dropped_bytes) for
  // every line completed by data.
  template <class Emit>
  void feed(std::string_view data, Emit&& emit) {
    while (!data.empty()) {
      auto nl = data.find('\n');
      if (nl == std::string_view::npos) {
        append(data);
        return;
      }
      append(data.substr(0, nl));
      flush(emit);
      data.remove_prefix(nl + 1);
    }
  }

  // End of stream: emits the unterminated last line, if any.
  template <class Emit>
  void finish(Emit&& emit) {
    if (!buf_.empty() || dropped_ > 0)
      flush(emit);
  }

  bool holds_partial_line() const noexcept { return !buf_.empty() || dropped_ > 0; }

private:
  void append(std::string_view part) {
    std::size_t room = cap_ > buf_.size() ? cap_ - buf_.size() : 0;
    if (part.size() <= room) {
      buf_.append(part);
      return;
    }
    buf_.append(part.substr(0, room));
    dropped_ += part.size() - room;
  }

  template <class Emit>
  void flush(Emit& emit) {
    line_cut cut = dropped_ > 0 ? line_cut::truncated : line_cut::whole;
    uint64_t dropped = dropped_;
    std::string text = std::move(buf_);
    buf_.clear();
    dropped_ = 0;
    emit(std::move(text), cut, dropped);
  }

  std::size_t cap_;
  std::string buf_;
  uint64_t dropped_ = 0;
};

} // namespace ad::runtime
