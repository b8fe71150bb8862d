#include "runtime/keeper/spool_format.hpp"

#include <charconv>

namespace ad::runtime {

namespace {

constexpr std::string_view stdout_tag = "[stdout] ";
constexpr std::string_view stderr_tag = "[stderr] ";
constexpr std::string_view cut_suffix_head = " [line cut: ";
constexpr std::string_view cut_suffix_tail = " bytes dropped]";
constexpr std::string_view note_tag = "[agent-dispatch: ";
constexpr std::string_view head_end_head = "[agent-dispatch: the first ";
constexpr std::string_view head_end_rest = " bytes of this log end here; ";

// Reads the decimal number at the start of text; false when there is none.
bool leading_number(std::string_view& text, uint64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end == text.data())
    return false;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

bool skip(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix)
    return false;
  text.remove_prefix(prefix.size());
  return true;
}

parsed_spool_line parse_note(std::string_view line) {
  parsed_spool_line p;
  std::string_view rest = line;
  if (skip(rest, head_end_head)) {
    if (leading_number(rest, p.head_bytes) && skip(rest, head_end_rest) && rest.ends_with("]"))
      p.kind = spool_line_kind::head_end;
    return p;
  }
  // "[agent-dispatch: <n> lines (<b> bytes) cut here]"
  rest = line.substr(note_tag.size());
  if (leading_number(rest, p.cut_lines) && skip(rest, " lines (") &&
      leading_number(rest, p.cut_bytes) && rest == " bytes) cut here]")
    p.kind = spool_line_kind::cut;
  return p;
}

} // namespace

std::string_view spool_tag(spool_channel channel) noexcept {
  return channel == spool_channel::out ? stdout_tag : stderr_tag;
}

std::string spool_cut_suffix(uint64_t dropped_bytes) {
  return std::string(cut_suffix_head) + std::to_string(dropped_bytes) + std::string(cut_suffix_tail);
}

std::string spool_head_end_line(uint64_t head_bytes, uint64_t tail_bytes) {
  return std::string(head_end_head) + std::to_string(head_bytes) + std::string(head_end_rest) +
         "of the rest the newest " + std::to_string(tail_bytes) +
         " bytes are kept, and a line says what was cut]\n";
}

std::string spool_cut_line(uint64_t cut_lines, uint64_t cut_bytes) {
  return std::string(note_tag) + std::to_string(cut_lines) + " lines (" + std::to_string(cut_bytes) +
         " bytes) cut here]\n";
}

std::size_t spool_max_line_bytes(std::size_t line_cap) noexcept {
  // tag + text + the longest suffix (a 20-digit count) + '\n'
  return stdout_tag.size() + line_cap + cut_suffix_head.size() + 20 + cut_suffix_tail.size() + 1;
}

parsed_spool_line parse_spool_line(std::string_view line, std::size_t line_cap) noexcept {
  parsed_spool_line p;
  if (line.starts_with(note_tag))
    return parse_note(line);
  if (line.starts_with(stdout_tag))
    p.channel = spool_channel::out;
  else if (line.starts_with(stderr_tag))
    p.channel = spool_channel::err;
  else
    return p;
  p.kind = spool_line_kind::agent;
  p.text = line.substr(stdout_tag.size());
  // A cut line: exactly line_cap bytes of text, then the suffix.
  if (p.text.size() > line_cap && p.text.ends_with(cut_suffix_tail)) {
    std::string_view suffix = p.text.substr(line_cap);
    uint64_t dropped = 0;
    if (skip(suffix, cut_suffix_head) && leading_number(suffix, dropped) && suffix == cut_suffix_tail) {
      p.text = p.text.substr(0, line_cap);
      p.cut = spool_cut::truncated;
      p.dropped_bytes = dropped;
    }
  }
  return p;
}

} // namespace ad::runtime
