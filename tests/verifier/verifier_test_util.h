#ifndef HMO_TESTS_VERIFIER_VERIFIER_TEST_UTIL_H_
#define HMO_TESTS_VERIFIER_VERIFIER_TEST_UTIL_H_

// Helpers shared by the verifier tests: parse a module from text and assert
// on the verifier's first violation (scope, rule and message fragment).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"

namespace hmo::testing {

// Parses `text`; records a test failure and returns null when it does not
// parse.
inline std::unique_ptr<HloModule> Parse(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "test.hlo");
  if (!m.ok()) {
    ADD_FAILURE() << "parse failed: " << m.status().message();
    return nullptr;
  }
  return std::move(m).value();
}

// Expected first violation. An empty `instruction` means a computation-level
// violation; empty `instruction` and `computation` a module-level one.
struct ExpectedViolation {
  std::string rule;
  std::string instruction;
  std::string computation;
  std::string message_part;
};

inline std::string ExpectedScope(const ExpectedViolation& e) {
  if (!e.instruction.empty()) {
    return "instruction " + e.instruction + " in computation " + e.computation + ": ";
  }
  if (!e.computation.empty()) return "computation " + e.computation + ": ";
  return "module ";
}

// VerifyHloModule fails with exactly this scope, rule and message fragment,
// and CollectVerifierErrors starts with the same error.
inline ::testing::AssertionResult FirstViolationIs(const HloModule& module,
                                                   const ExpectedViolation& e,
                                                   const HloVerifierOptions& options = {}) {
  absl::Status status = VerifyHloModule(module, options);
  if (status.ok()) return ::testing::AssertionFailure() << "module verified OK";
  if (status.code() != absl::StatusCode::kInvalidArgument) {
    return ::testing::AssertionFailure() << "unexpected status code: " << status;
  }
  std::string msg(status.message());
  std::string scope = ExpectedScope(e);
  std::string suffix = " (rule: " + e.rule + ")";
  if (msg.rfind(scope, 0) != 0) {
    return ::testing::AssertionFailure() << "message does not start with '" << scope << "': " << msg;
  }
  if (msg.size() < suffix.size() || msg.compare(msg.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return ::testing::AssertionFailure() << "message does not end with '" << suffix << "': " << msg;
  }
  if (msg.find(e.message_part) == std::string::npos) {
    return ::testing::AssertionFailure() << "message lacks '" << e.message_part << "': " << msg;
  }
  std::vector<HloVerifierError> all = CollectVerifierErrors(module, options);
  if (all.empty() || all.front().ToString() != msg) {
    return ::testing::AssertionFailure()
           << "CollectVerifierErrors disagrees with VerifyHloModule: "
           << (all.empty() ? std::string("<none>") : all.front().ToString());
  }
  return ::testing::AssertionSuccess();
}

// Some error (not necessarily the first) has this rule and message fragment.
inline ::testing::AssertionResult HasViolation(const HloModule& module, std::string_view rule,
                                               std::string_view message_part,
                                               const HloVerifierOptions& options = {}) {
  std::vector<HloVerifierError> all = CollectVerifierErrors(module, options);
  std::string seen;
  for (const HloVerifierError& e : all) {
    if (e.rule == rule && e.ToString().find(message_part) != std::string::npos) {
      return ::testing::AssertionSuccess();
    }
    seen += "\n  " + e.ToString();
  }
  return ::testing::AssertionFailure() << "no " << rule << " error containing '" << message_part
                                       << "'; errors:" << (seen.empty() ? " none" : seen);
}

inline ::testing::AssertionResult VerifiesOk(const HloModule& module,
                                             const HloVerifierOptions& options = {}) {
  std::vector<HloVerifierError> all = CollectVerifierErrors(module, options);
  if (all.empty()) return ::testing::AssertionSuccess();
  std::string text;
  for (size_t i = 0; i < all.size() && i < 20; ++i) text += "\n  " + all[i].ToString();
  return ::testing::AssertionFailure() << all.size() << " verifier error(s):" << text;
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_VERIFIER_VERIFIER_TEST_UTIL_H_
