#pragma once
// Host independence of a trace: every string written into a trace has its
// host roots (the workspace, the state root, the home folder) replaced by
// tokens such as "${workspace}", and replay expands the tokens to the roots
// of the replaying machine (any folder: replay never touches it). The
// replacement works on every string of a JSON value, anywhere inside the
// string (prompts embed paths), longest root first, so a state root inside
// the workspace keeps its own token. Pure value type; never throws; never
// touches the file system.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/json.hpp"

namespace ad::runtime {

class trace_paths {
public:
  // token is written as "${token}"; an empty root is ignored.
  void add_root(std::string root, std::string token);

  std::string relativize_text(std::string_view text) const;
  std::string expand_text(std::string_view text) const;
  json relativize(const json& value) const;
  json expand(const json& value) const;

  // (token, root) pairs, longest root first.
  const std::vector<std::pair<std::string, std::string>>& roots() const noexcept { return roots_; }

private:
  std::vector<std::pair<std::string, std::string>> roots_; // ("${token}", root)
};

} // namespace ad::runtime
