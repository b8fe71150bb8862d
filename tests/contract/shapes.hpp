#pragma once
// What the contract tests compare between a run against the mock and the
// capture of the real CLI (tests/fixtures/realcli/<cli>/<scenario>): the
// comparison of tests/support/cli_shapes.hpp (exit code, collapsed event
// types, each CLI's key texts), named by the contract tests' cli value.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tests/contract/contract_run.hpp"
#include "tests/support/cli_shapes.hpp"

namespace ad::contract {

using test::cli_shape;
using test::json_lines;
using test::normalize;

// The shape of a CLI's stdout (JSON lines) and exit code.
cli_shape shape_of(cli c, std::string_view stdout_jsonl, int exit_code);

// The shape of the capture tests/fixtures/realcli/<cli>/<scenario>.
cli_shape capture_shape(cli c, const std::string& scenario);

} // namespace ad::contract
