// Review texts: the verdict of a CODE_REVIEW, its checklist, and USER_REVIEW.
// The first byte picks the reader. Invariants: a verdict and its absence
// agree; a checklist has no more open boxes than boxes; a user review is a stop request exactly when nothing is missing.
#include "runtime/workspace/checklist.hpp"
#include "runtime/workspace/review_verdict.hpp"
#include "runtime/workspace/user_review.hpp"
#include "tests/fuzz/fuzz_target.hpp"

AD_FUZZ_TARGET(review) {
  using namespace ad::runtime;
  if (input.empty())
    return 0;
  char mode = input[0];
  std::string_view text = input.substr(1);
  switch (static_cast<unsigned char>(mode) % 3) {
    case 0: {
      auto v = read_verdict(text);
      ad::fuzz::fuzz_require(v.verdict.has_value() == (v.absence == verdict_absence::none),
                             "verdict and absence disagree");
      break;
    }
    case 1: {
      auto c = read_checklist(text);
      ad::fuzz::fuzz_require(c.open <= c.boxes, "more open boxes than boxes");
      break;
    }
    default: {
      auto u = read_user_review(text);
      ad::fuzz::fuzz_require(u.is_stop_request() == u.missing_summary().empty(),
                             "stop request and missing summary disagree");
      break;
    }
  }
  return 0;
}
