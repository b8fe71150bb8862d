#include "tests/contract/shapes.hpp"

namespace ad::contract {

cli_shape shape_of(cli c, std::string_view stdout_jsonl, int exit_code) {
  return test::shape_of(name_of(c), stdout_jsonl, exit_code);
}

cli_shape capture_shape(cli c, const std::string& scenario) {
  return test::capture_shape(name_of(c), scenario);
}

} // namespace ad::contract
