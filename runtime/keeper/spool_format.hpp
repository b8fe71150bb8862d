#pragma once
// The line format of an agent's output spool (stream.log and its tail
// segments, docs/keeper.md), shared by the writer (stream_spool), the reader
// (stream_follower) and seal_stream, and identical to what runtime/attempt's
// line_file writes: every line of the file starts with "[stdout] ",
// "[stderr] " or "[agent-dispatch: ", so a reader can always tell the
// agent's text from the spool's own notes. Pure functions over strings:
// nothing here does I/O, keeps state or throws (except std::bad_alloc).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ad::runtime {

enum class spool_channel : uint8_t { out, err }; // the agent's stdout, stderr
enum class spool_cut : uint8_t { whole, truncated };

// The longest agent line kept by default; the rest of a longer line is
// dropped and counted (docs/limits.md).
inline constexpr std::size_t spool_default_line_cap = std::size_t{1} << 20;

// "[stdout] " or "[stderr] ".
std::string_view spool_tag(spool_channel channel) noexcept;

// " [line cut: <dropped> bytes dropped]", after the kept text of a cut line.
std::string spool_cut_suffix(uint64_t dropped_bytes);

// The line (with its '\n') that ends the head of a retained spool.
std::string spool_head_end_line(uint64_t head_bytes, uint64_t tail_bytes);

// The line (with its '\n') that a sealed spool has where lines were cut.
std::string spool_cut_line(uint64_t cut_lines, uint64_t cut_bytes);

// The longest line (with tag, cut suffix and '\n') a spool written with
// this line cap can hold.
std::size_t spool_max_line_bytes(std::size_t line_cap) noexcept;

enum class spool_line_kind : uint8_t {
  agent,     // a line of the agent's output
  head_end,  // the head of a retained spool ends here
  cut,       // a sealed spool: lines were cut here
  malformed, // none of the above (a damaged file)
};

struct parsed_spool_line {
  spool_line_kind kind = spool_line_kind::malformed;
  spool_channel channel = spool_channel::out; // agent
  std::string_view text;                      // agent: without tag and cut suffix
  spool_cut cut = spool_cut::whole;           // agent
  uint64_t dropped_bytes = 0;                 // agent, cut
  uint64_t head_bytes = 0;                    // head_end: the size of the head
  uint64_t cut_lines = 0, cut_bytes = 0;      // cut
};

// Reads one spool line given without its '\n'. A line whose text ends in a
// cut suffix is cut only when the text before the suffix is exactly
// line_cap bytes long (an agent line that merely ends with such words is
// shorter than the cap, or was itself cut), so line_cap must be the
// writer's.
parsed_spool_line parse_spool_line(std::string_view line, std::size_t line_cap) noexcept;

} // namespace ad::runtime
